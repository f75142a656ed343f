"""Validation before any job, and the target lists of rule all."""

import functools
import os
import sys
from pathlib import Path
from types import SimpleNamespace

from snakemake.utils import validate

# Jobs import sigprop from this checkout's src/, also inside a conda env built from envs/.
# (A write, so the --lint rule for reading undeclared environment variables does not apply.)
SIGPROP_SRC = str(Path(workflow.basedir) / "src")
sys.path.insert(0, SIGPROP_SRC)
os.environ.update(
    PYTHONPATH=os.pathsep.join(p for p in (SIGPROP_SRC, os.getenv("PYTHONPATH")) if p)
)

from sigprop.datasets.data import preflight
from sigprop.papers import load_registry
from sigprop.pipeline.fingerprint import code_fingerprint
from sigprop.pipeline.job_benchmarks import previous_seconds
from sigprop.pipeline.job_resources import (
    cost_table,
    placement,
    retries_for,
)
from sigprop.base.registry import (
    dataset_names,
    qualified_name,
    resolve,
    simulation_setup,
    theorem_setup,
)
from sigprop.verdicts.claims import ledger_headline
from sigprop.pipeline.run_info import item_scale, reference_configs, run_record
from sigprop.pipeline.jobs import render_description, script_description

validate(config, schema="../schemas/config.schema.yaml")

SCALE_REFERENCES = reference_configs(Path(workflow.basedir) / "config")
"""The merged quick and paper configs: each item's scale label compares its slice with them."""

# The scale label comes from what runs, not from a key: quick, paper or custom (sigprop.pipeline.run_info).
RUN = run_record(
    config,
    workflow.configfiles,
    Path(workflow.basedir) / "config",
    overrides=bool(workflow.config_settings.config),
    references=SCALE_REFERENCES,
)
config["scale"] = RUN["scale"]
RUN["confidence"] = config["claims"]["confidence"]
config["run"] = RUN  # for the report's description (workflow/report/workflow.rst)
# the report's front page leads with the last ledger's paper claims (empty before a first run)
config["ledger_headline"] = ledger_headline("results/claims.csv")


def requested_targets():
    """The targets on this run's command line (Snakemake's own parser; none: the default)."""
    from snakemake.cli import get_argument_parser

    args, _ = get_argument_parser().parse_known_args(sys.argv[1:])
    return sorted(args.targets or ())


REGISTRY = load_registry()
"""Every paper item of the ported families (sigprop.papers.<family>.items)."""
REGISTRY.check_config(config)
SELECTED = REGISTRY.selected(config["items"])
"""The judged items this run covers: config ``items`` (``family.item``), or every one."""
SPLITS = REGISTRY.splits(config)
"""(family, simulation) -> its parts (``sigprop.base.registry.Part``), for the simulations
config ``split_simulations`` names: one ``simulate_part`` job each, then a local ``merge``."""
PARTS = {(part.family, part.name): part for parts in SPLITS.values() for part in parts}


def data_targets():
    """The files whose simulations need data: the requested targets, or the claims of the
    selected items where only the default, ``all`` or the ledger is asked for."""
    targets = requested_targets()
    ledger = {"all", "results/claims.csv", "results/claims.md"}
    if config["items"] and set(targets) <= ledger:
        return [f"results/claims/{family}/{item.name}.json" for family, item in SELECTED]
    return targets


# Every dataset the requested targets read can be had (prepared, local, Debian package,
# download), or the run stops here, before any job, with the data layer's message. Only the
# main process checks: a cluster job re-reads this file on its node, after the data is ready.
NEEDED = REGISTRY.simulations_for(data_targets())
DATASETS = (
    preflight(
        [
            n
            for _, item in (REGISTRY.items("simulation") if NEEDED is None else NEEDED)
            for n in dataset_names(item, config)
        ],
        config["data"]["root"],
        download=config["data"]["download"],
        apt=config["data"]["apt"],
        system_sources=config["data"]["system_sources"],
    )
    if workflow.is_main_process
    else {}
)
"""Dataset name -> how the data rule will have it (prepared, local, apt or download)."""

COSTS = cost_table()
"""The paper-scale cost table shipped in the package (sigprop.pipeline.job_resources.cost_table): devices
and runtimes of compute jobs."""


def get_placement(kind, field):
    """A compute job's ``device`` or cluster resource (``gpus``, ``runtime``, ``mem_mb``),
    from its item, the config's device and the cost table (sigprop.pipeline.job_resources)."""

    def of_job(wildcards):
        return getattr(_placement(wildcards.family, _item(wildcards, kind)), field)

    return of_job


def _placement(family, item, share=1.0):
    scale = item_scale(REGISTRY, family, item, config, SCALE_REFERENCES)
    return placement(
        f"{family}/{item.name}",
        config["device"],
        item.runtime,
        item.mem_mb,
        COSTS,
        paper_scale=scale == "paper",
        max_runtime=config.get("max_runtime"),
        share=share,
    )


def get_part_placement(field):
    """A part's ``device`` or cluster resource: its simulation's placement with the projected
    times scaled by the part's share of the work (``sigprop.base.registry.Split.shares``)."""

    def of_job(wildcards):
        part = _part(wildcards)
        return getattr(_placement(part.family, part.item, part.share), field)

    return of_job


def _part(wildcards):
    return PARTS[wildcards.family, wildcards.part]


def get_retries(kind):
    """A compute rule's retries: Snakemake's ``--retries`` for failures, plus the attempts its
    longest job needs across the partition's time limit (``max_runtime``; each attempt resumes
    from the checkpoint of the last, ``sigprop.pipeline.job_resources.retries_for``)."""
    placements = {
        f"{family}/{item.name}": _placement(family, item) for family, item in REGISTRY.items(kind)
    }
    retries, beyond = retries_for(
        placements, getattr(workflow.execution_settings, "retries", 0) or 0
    )
    if beyond:
        print(
            f"warning: {', '.join(beyond)} would need more attempts than the retries allow at "
            f"max_runtime={config.get('max_runtime')} minutes: use a longer partition or a GPU",
            file=sys.stderr,
        )
    return retries


def tiny_names(kind, tiny=True):
    """The compute items of ``kind`` projected under a minute on one core at this run's scale
    (``sigprop.pipeline.job_resources.TINY_SECONDS``; ``tiny=False``: the others), as a wildcard
    pattern. The tiny ones run on the machine of the main process, never submitted to a
    cluster (``simulate_tiny``, ``measure_tiny``: a submission would cost more than the job)."""
    placed = [
        (item.name, _placement(family, item).tiny)
        for family, item in REGISTRY.items(kind)
        if (family, item.name) not in SPLITS
    ]
    return _tiny_pattern(placed, tiny)


def part_names(tiny=True):
    """The parts of split simulations projected under a minute (``tiny=False``: the others),
    as a wildcard pattern: ``simulate_part_tiny`` runs them where the workflow runs."""
    placed = [(p.name, _placement(p.family, p.item, p.share).tiny) for p in PARTS.values()]
    return _tiny_pattern(placed, tiny)


def _tiny_pattern(placed, tiny):
    """(name, tiny) pairs -> the names tiny everywhere (``tiny=False``: the others) as a
    pattern; a name that never occurs matches nothing."""
    small = {name for name, _ in placed} - {name for name, is_tiny in placed if not is_tiny}
    names = sorted(small if tiny else {name for name, _ in placed} - small)
    return "|".join(names) or "(?!)"


def split_names():
    """The split simulations (config ``split_simulations``) as a pattern: the ``merge`` rule's."""
    return "|".join(sorted({name for _, name in SPLITS})) or "(?!)"


def get_figures():
    """Every figure as PDF and PNG, e.g. figures/orthogonality/fig2b.pdf, and every table (of
    the selected items)."""
    return [
        path
        for family, item in SELECTED
        if item.kind in ("figure", "table")
        for path in item_outputs(family, item)
    ]


def get_claims():
    """Every claims file, one per checked figure, table or theorem item (of the selected items):
    results/claims/<family>/<item>.json."""
    return [f"results/claims/{family}/{item.name}.json" for family, item in SELECTED]


def get_findings():
    """Every family's findings file that exists (src/sigprop/papers/<family>/findings.yaml): the
    ledger joins them to its failing and fails-leaning paper claims."""
    base = Path(workflow.basedir)
    return [
        str(p.relative_to(base)) for p in sorted(base.glob("src/sigprop/papers/*/findings.yaml"))
    ]


def item_outputs(family, item):
    """The files a figure or table item writes."""
    if item.kind == "figure":
        return [f"figures/{family}/{item.name}.{ext}" for ext in ("pdf", "png")]
    return [f"results/{family}/{item.name}.{ext}" for ext in ("csv", "md")]


def _item(wildcards, kind):
    return REGISTRY.get(wildcards.family, wildcards.item, kind)


def _judged_item(wildcards):
    for kind in ("figure", "table", "theorem"):
        if wildcards.item in REGISTRY.names(kind):
            return REGISTRY.get(wildcards.family, wildcards.item, kind)
    raise KeyError(f"no judged item {wildcards.family}.{wildcards.item}")


def previous_run_seconds(rule):
    """A compute rule's priority: the job's seconds in the last run here, so that the longest
    ready job starts first (``sigprop.pipeline.job_benchmarks.previous_seconds``). A job that never ran
    here (a fresh clone) falls back to its item's ``runtime`` (minutes at paper scale, a rank
    only: the training simulations declare 600 and start before the 30-minute ones)."""

    def of_job(wildcards):
        seconds = previous_seconds(f"benchmarks/{wildcards.family}/{rule}_{wildcards.item}.tsv")
        kind = {"simulate": "simulation", "measure": "theorem"}[rule]
        return seconds or _item(wildcards, kind).runtime

    return of_job


def previous_part_seconds(wildcards):
    """A part's priority: its seconds in the last run here, else its share of its item's
    ``runtime`` (``previous_run_seconds``)."""
    part = _part(wildcards)
    seconds = previous_seconds(f"benchmarks/{wildcards.family}/simulate_{part.name}.tsv")
    return seconds or part.item.runtime * part.share


def get_part_setup(wildcards):
    """A part's keyword arguments: its simulation's, the split argument ``[value]``."""
    return _part(wildcards).setup(config)


def get_part_function(wildcards):
    """The part's simulation function and declared non-finite values (``get_simulation_function``)."""
    item = _part(wildcards).item
    return {"name": qualified_name(item.run), "nonfinite": list(item.nonfinite)}


def get_part_code(wildcards):
    """Fingerprint of the part's simulation code: a code change reruns every part."""
    return code_fingerprint([_part(wildcards).item.run])


def get_part_datasets(wildcards):
    """The data rule's markers of the datasets the part's simulation reads."""
    item = _part(wildcards).item
    root = config["data"]["root"]
    return [ancient(f"{root}/.prepared/{name}.json") for name in dataset_names(item, config)]


def get_parts(wildcards):
    """A split simulation's part tensors, in the order of its split list."""
    return [part.path for part in SPLITS[wildcards.family, wildcards.item]]


def get_split(wildcards):
    """What the merge joins: the split argument, the result's dim, the declared non-finite."""
    item = _item(wildcards, "simulation")
    return {"key": item.split.key, "dim": item.split.dim, "nonfinite": list(item.nonfinite)}


def get_merge_code(wildcards):
    """Fingerprint of the library code the merge script imports."""
    return code_fingerprint(scripts=[Path(workflow.basedir) / "workflow/scripts/merge.py"])


def get_setup(wildcards):
    """A simulation's keyword arguments: its config slice (registry ``setup`` and ``extra``)."""
    return simulation_setup(wildcards.family, _item(wildcards, "simulation"), config)


def get_datasets(wildcards):
    """The data rule's markers of the datasets a simulation reads (its registry ``datasets``)."""
    item = _item(wildcards, "simulation")
    root = config["data"]["root"]
    return [ancient(f"{root}/.prepared/{name}.json") for name in dataset_names(item, config)]


def get_measure_setup(wildcards):
    """A theorem measurement's keyword arguments: its config slice less the tolerances."""
    return theorem_setup(wildcards.family, _item(wildcards, "theorem"), config)


def get_reads(wildcards):
    """A figure's or table's input tensors: {input name: results/<family>/<sim>.safetensors}."""
    item = _judged_item(wildcards)
    return {name: REGISTRY.read_path(wildcards.family, ref) for name, ref in item.reads.items()}


def get_script_params(wildcards):
    """A figure's or table's script parameters: config lookups and constants; a param reading
    ``scale`` gets the item's own scale, so an override elsewhere does not rerun it."""
    item = _judged_item(wildcards)
    scoped = {**config, "scale": get_item_scale(wildcards)}
    return {**resolve(item.params, scoped), **item.constants}


def get_simulation_function(wildcards):
    """The simulation's function (``module:qualname``) and its declared non-finite values:
    the job imports that module only, not the registry."""
    item = _item(wildcards, "simulation")
    return {"name": qualified_name(item.run), "nonfinite": list(item.nonfinite)}


def get_measure_function(wildcards):
    """The theorem's measurement (``module:qualname``) and its declared non-finite columns."""
    item = _item(wildcards, "theorem")
    return {"name": qualified_name(item.measure), "nonfinite": list(item.nonfinite)}


def get_judge_function(wildcards):
    """The item's judge (``module:qualname``), its declared non-finite columns, and whether it
    reads a theorem's measured table (checked against its sidecar)."""
    item = _judged_item(wildcards)
    return {
        "name": qualified_name(item.judge),
        "nonfinite": list(item.nonfinite),
        "measured": item.kind == "theorem",
    }


def get_simulation_code(wildcards):
    """Fingerprint of the simulation's code: a code change reruns it (sigprop.pipeline.fingerprint)."""
    return code_fingerprint([_item(wildcards, "simulation").run])


def get_measure_code(wildcards):
    return code_fingerprint([_item(wildcards, "theorem").measure])


def get_judge_code(wildcards):
    return code_fingerprint([_judged_item(wildcards).judge])


def get_script_code(wildcards):
    """Fingerprint of the library code a figure's or table's script imports."""
    script = Path(workflow.basedir) / "workflow/rules" / get_script(wildcards)
    return code_fingerprint(scripts=[script])


def get_script(wildcards):
    item = _judged_item(wildcards)
    return f"../scripts/{item.script_path}"


def get_judge_args(wildcards):
    """The judge's keyword arguments: registry ``judge_args``; a theorem gets its whole slice."""
    item = _judged_item(wildcards)
    if item.kind == "theorem":
        return resolve(None, config, default=f"{wildcards.family}/{item.name}")
    return resolve(item.judge_args, config)


def get_item_scale(wildcards):
    """The scale of this item's claims, from its own config slice (sigprop.pipeline.run_info.item_scale)."""
    return _item_scale(wildcards.family, wildcards.item)


@functools.cache
def _item_scale(family, name):
    """Once per item and run: three params of a judge job read it."""
    item = _judged_item(SimpleNamespace(family=family, item=name))
    return item_scale(REGISTRY, family, item, config, SCALE_REFERENCES)


def get_judged_figure(wildcards):
    """The file a claim refers to: the figure PDF, the table's Markdown, the measured CSV."""
    item = _judged_item(wildcards)
    stem = f"{wildcards.family}/{item.name}"
    return {"figure": f"figures/{stem}.pdf", "table": f"results/{stem}.md"}.get(
        item.kind, f"results/{stem}.csv"
    )


def get_source(wildcards):
    """The item's source: the seed paper and its numbering (registry), for its report caption."""
    return _judged_item(wildcards).source


def get_description(wildcards):
    """The item's report description, rendered: a figure's or table's caption is the docstring
    of its script (``sigprop.pipeline.jobs.script_description``); a theorem's is the generic
    workflow/report/theorem.rst. A caption's Jinja reads the script's params, the item's
    ``source``, the config and the wildcards."""
    item = _judged_item(wildcards)
    if item.kind == "theorem":
        template = (Path(workflow.basedir) / "workflow/report/theorem.rst").read_text()
        params = {}
    else:
        script = Path(workflow.basedir) / "workflow/rules" / get_script(wildcards)
        template = script_description(script)
        params = {"source": item.source, **get_script_params(wildcards)}
    # the item's own scale, not the run's: an override elsewhere does not rerun this judge
    scoped = {**config, "scale": get_item_scale(wildcards)}
    setups = Path(workflow.basedir) / "workflow/report/setups"
    return render_description(template, params, scoped, dict(wildcards), setups)
