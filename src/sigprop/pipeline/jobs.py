"""Glue for Snakemake scripts: logging, and the generic simulate, measure and judge steps.

Scripts stay thin: ``log_to_file(snakemake.log[0])`` first, then read ``snakemake.input`` and
``snakemake.params``, call the library, write ``snakemake.output``.
"""

from __future__ import annotations

import ast
import logging
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from ..base import store
from ..base.registry import import_function, qualified_name
from ..verdicts import claims

__all__ = [
    "STARTUP_MARK",
    "log_startup",
    "import_function",
    "item_params",
    "log_to_file",
    "remove_finished_checkpoints",
    "render_description",
    "run_judge",
    "run_measure",
    "run_merge",
    "run_simulation",
    "script_description",
]


STARTUP_MARK = "startup before first computation:"
"""Log line prefix of a job's start-up time (interpreter and imports); see ``log_startup``."""


def log_startup() -> float:
    """Log (``STARTUP_MARK``) and return the seconds since this process started: a job calls
    it just before its first computation, and ``sigprop.pipeline.job_benchmarks`` collects the
    last."""
    import psutil

    seconds = time.time() - psutil.Process().create_time()
    logging.getLogger("sigprop").info("%s %.3f s", STARTUP_MARK, seconds)
    return seconds


def log_to_file(path: str | os.PathLike, level: int = logging.INFO) -> logging.Logger:
    """Send logging and stderr (warnings, tracebacks) to ``path``; return the ``sigprop`` logger.

    Scripts call it after their imports, so it also logs the start-up time (``log_startup``).
    """
    stream = open(path, "w", buffering=1)  # noqa: SIM115 - lives as long as the script
    sys.stderr = stream
    logging.basicConfig(
        stream=stream,
        level=level,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        force=True,
    )
    log_startup()
    return logging.getLogger("sigprop")


def _timed_call(function, arguments: dict, device: str, threads: int):
    """Call ``function(**arguments, device=...)`` on ``threads`` CPU threads; log and time it."""
    import torch

    from ..engine.devices import resolve_device

    torch.set_num_threads(max(1, threads))
    resolved = resolve_device(device)
    log_startup()
    logging.getLogger("sigprop").info(
        "%s on %s with %s", qualified_name(function), resolved, arguments
    )
    start = time.perf_counter()
    result = function(**arguments, device=str(resolved))
    return result, resolved, time.perf_counter() - start


def _resumable_call(function, setup: dict, device: str, output: str, threads: int, code: str):
    """``_timed_call`` with the job's checkpoints under ``checkpoint_root(output)``, one folder per
    setup, device and code: a rerun of the same job resumes where it stopped."""
    from ..base.checkpoints import resumable

    with resumable(checkpoint_root(output) / _settings_hash(setup, device, code)):
        return _timed_call(function, setup, device, threads)


def run_simulation(
    experiment,
    setup: dict,
    device: str,
    tensor_path: str,
    threads: int = 1,
    nonfinite: tuple[str, ...] = (),
    code: str = "",
) -> None:
    """Call ``experiment(**setup, device=...)`` and save its tensors with provenance.

    Training inside it is resumable (``base.checkpoints``), and so are the chains declared
    resumable (``chains.simulate``) and ``a1_grid``'s pixels: their checkpoints go to
    ``<tensor_path stem>.checkpoints/<hash of setup, device and code>/``, so a killed job,
    rerun, resumes where it stopped. They outlive the job: one stopped at its time limit after
    saving its tensors (which Snakemake then deletes as a failed job's) reruns from its finished
    checkpoint in seconds; the workflow removes them at its end (``remove_finished_checkpoints``).

    Args:
        experiment: the registry item's ``run`` function.
        setup: the rule's config slice, passed as keyword arguments and recorded in the sidecar.
        device: ``auto``, ``cpu`` or ``cuda``.
        tensor_path: the rule's ``.safetensors`` output; the ``.json`` sidecar goes beside it.
        threads: CPU threads torch may use (the rule's ``threads``).
        nonfinite: value names that may hold NaN or inf (the item's declaration).
        code: the fingerprint of the experiment's code (a resumed job must run the same code).
    """
    result, resolved, wall = _resumable_call(experiment, setup, device, tensor_path, threads, code)
    meta = store.provenance(
        dict(setup), result.seeds, resolved, wall, experiment=qualified_name(experiment)
    )
    store.save(tensor_path, result, meta, nonfinite=nonfinite)
    logging.getLogger("sigprop").info("wrote %s in %.2fs", tensor_path, wall)


def remove_finished_checkpoints(results: str | os.PathLike = "results") -> list[Path]:
    """Remove every compute job's checkpoints (``checkpoint_root``) under ``results`` whose
    output exists (a simulation's tensors, a measure's table; the Snakefile's ``onsuccess`` and
    ``onerror``: Snakemake deletes the outputs of a failed job, so outputs that exist are a
    finished job's). Returns the removed folders."""
    import shutil

    removed = []
    roots = [*Path(results).glob("*/*.checkpoints"), *Path(results).glob("*/parts/*.checkpoints")]
    for root in sorted(roots):
        stem = root.name.removesuffix(".checkpoints")
        if any(root.with_name(stem + suffix).exists() for suffix in (".safetensors", ".csv")):
            shutil.rmtree(root, ignore_errors=True)
            removed.append(root)
    return removed


def run_merge(
    part_paths: list[str],
    setup: dict,
    split: dict,
    tensor_path: str,
    nonfinite: tuple[str, ...] = (),
) -> None:
    """A split simulation's result from its parts (``registry.Split``): their tensors joined
    along ``split["dim"]`` (``store.concat``), saved where the simulate rule saves the whole.

    Args:
        part_paths: the parts' ``.safetensors``, in the order of the split list.
        setup: the whole simulation's config slice (the sidecar's ``config``).
        split: ``{"key": ..., "dim": ...}``: the split argument and the result's dim.
        tensor_path: the merged ``.safetensors``; its sidecar records the parts'.
        nonfinite: value names that may hold NaN or inf (the item's declaration).

    Raises:
        ValueError: if the joined coords of the dim are not ``setup[split["key"]]``.
    """
    log_startup()
    merged = store.concat([store.load_labelled(p) for p in part_paths], split["dim"])
    expected = list(setup[split["key"]])
    if merged.coords[split["dim"]] != expected:
        raise ValueError(
            f"{tensor_path}: the parts hold {split['dim']} {merged.coords[split['dim']]}, "
            f"the config {split['key']} {expected}"
        )
    metas = {Path(p).stem: store.load_metadata(p) for p in part_paths}
    store.save(tensor_path, merged, merged_provenance(setup, merged.seeds, metas), nonfinite)
    logging.getLogger("sigprop").info("merged %d parts into %s", len(metas), tensor_path)


PART_FIELDS = ("device", "host", "wall_time_s", "finished_utc", "sha256")
"""What a merged sidecar keeps of each part's (under ``parts``)."""

SHARED_FIELDS = (
    "experiment", "device", "device_name", "torch_threads", "versions", "git_revision", "host",
)  # fmt: skip
"""The fields of the parts' sidecars a merged sidecar records once (where they agree)."""


def merged_provenance(setup: dict, seeds: dict, metas: dict[str, dict]) -> dict:
    """The sidecar of a merged result: the whole setup and seeds; each ``SHARED_FIELDS`` value
    of the parts' sidecars that they share, or part name -> value where they differ; the parts'
    wall time summed and their latest end; and each part's ``PART_FIELDS``."""
    found = list(metas.values())
    info: dict = {"config": dict(setup), "seeds": seeds}
    for key in SHARED_FIELDS:
        values = [m.get(key) for m in found]
        same = all(v == values[0] for v in values)
        info[key] = values[0] if same else dict(zip(metas, values, strict=True))
    info["wall_time_s"] = round(sum(m.get("wall_time_s", 0.0) for m in found), 3)
    info["finished_utc"] = max(str(m.get("finished_utc", "")) for m in found)
    info["parts"] = {name: {k: m[k] for k in PART_FIELDS if k in m} for name, m in metas.items()}
    return info


def checkpoint_root(tensor_path: str | os.PathLike) -> Path:
    """Where a compute job's checkpoints live while it runs (beside its output)."""
    path = Path(tensor_path)
    return path.with_name(path.stem + ".checkpoints")


def _settings_hash(setup: dict, device: str, code: str) -> str:
    from .run_info import config_sha256

    return config_sha256({"setup": setup, "device": device, "code": code})[:16]


def run_measure(
    measure,
    setup: dict,
    device: str,
    table_path: str,
    threads: int = 1,
    nonfinite: tuple[str, ...] = (),
    code: str = "",
) -> None:
    """Call a theorem item's ``measure(**setup, device=...)``; save its table with provenance.

    The table goes to ``table_path`` (CSV, full float precision); the sidecar beside it
    (``.json``) records the settings, device, versions, git revision and wall time.
    ``nonfinite``: the columns that may hold NaN or inf (the item's declaration). Long chains
    inside it checkpoint as a simulation's do (``run_simulation``; ``code``: the fingerprint
    of the measure's code).
    """
    table, resolved, wall = _resumable_call(measure, setup, device, table_path, threads, code)
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{qualified_name(measure)} must return a pandas.DataFrame")
    meta = store.provenance(dict(setup), {}, resolved, wall, measure=qualified_name(measure))
    store.write_table(table_path, table, meta, nonfinite=nonfinite)
    logging.getLogger("sigprop").info("wrote %s in %.2fs", table_path, wall)


def read_table(
    path: str | os.PathLike, measured: bool = False, nonfinite: tuple[str, ...] | None = None
) -> pd.DataFrame:
    """A CSV written by a figure, table or measurement (pandas >= 3 reads floats back bit for
    bit); a theorem's ``measured`` table is first checked against the sha256 of its sidecar.

    ``nonfinite``: when given, the columns that may hold NaN or inf; any other non-finite cell
    raises ``store.NonFiniteError`` (the judge never averages around it).
    """
    if measured:
        store.verify_table(path)
    table = pd.read_csv(path)
    if nonfinite is not None:
        store.refuse_nonfinite(table, path, tuple(nonfinite))
    return table


def run_judge(
    judge,
    table_path: str,
    arguments: dict,
    claims_path: str,
    figure: str,
    scale: str,
    description: str,
    caption_path: str,
    page_path: str | None = None,
    measured: bool = False,
    nonfinite: tuple[str, ...] = (),
    confidence: float = claims.DEFAULT_CONFIDENCE,
) -> None:
    """Evaluate ``judge(table, **arguments)`` on an item's CSV; write claims and caption.

    The caption (reStructuredText) is the item's rendered description followed by its
    verdicts; ``page_path`` gets the same as an HTML page for the report.
    ``measured``: the CSV is a theorem's measured table, checked against its sidecar first.
    ``nonfinite``: the CSV's columns that may hold NaN or inf; a non-finite cell anywhere else
    raises ``store.NonFiniteError`` before the judge runs.
    ``confidence``: the two-sided level of every claim's interval (config ``claims.confidence``).
    """
    log_startup()
    with claims.confidence(confidence):
        verdicts = judge(read_table(table_path, measured, nonfinite=nonfinite), **arguments)
    claims.write(claims_path, verdicts, figure=figure, scale=scale)
    caption = claims.verdict_caption(description, claims.read(claims_path))
    with store.atomic_path(caption_path) as tmp:
        tmp.write_text(caption)
    if page_path:
        from docutils.core import publish_string

        page = publish_string(caption, writer_name="html", settings_overrides={"report_level": 5})
        with store.atomic_path(page_path) as tmp:
            tmp.write_bytes(page)
    logging.getLogger("sigprop").info("\n%s", claims.summarize(claims.read(claims_path)))


def render_description(
    template: str, params: dict, config: dict, wildcards: dict, setups: str | Path | None = None
) -> str:
    """An item's report description with its Jinja placeholders filled.

    A figure's or table's description is its script's docstring (``script_description``), a
    theorem's the generic ``workflow/report/theorem.rst``. They read ``snakemake.params.*`` (the
    item's script parameters and its ``source``), ``snakemake.config`` and
    ``snakemake.wildcards``. The setup that several figures of one simulation share is written
    once, in ``setups`` (``workflow/report/setups/<family>/<name>.rst``), and a caption takes it
    with ``{% include "<family>/<name>.rst" %}``.
    """
    import jinja2

    context = SimpleNamespace(
        params=SimpleNamespace(**params), config=config, wildcards=SimpleNamespace(**wildcards)
    )
    loader = jinja2.FileSystemLoader(str(setups)) if setups is not None else None
    env = jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined)
    return env.from_string(template).render(snakemake=context)


def script_description(script: str | Path) -> str:
    """A figure's or table's caption template: the module docstring of its script.

    The first line says what the figure shows; the rest says how it is computed and drawn
    (setup, sizes, what the lines and bands are), with Jinja placeholders (``render_description``).
    The claims are not restated: the caption lists them with their verdicts. Editing it reruns
    the draw (Snakemake tracks the script) and the judge (its ``description`` param).
    """
    text = ast.get_docstring(ast.parse(Path(script).read_text()))
    if not text:
        raise ValueError(f"{script}: no module docstring, the item's caption")
    return text


def item_params(snakemake) -> SimpleNamespace:
    """A figure or table script's parameters (registry ``params`` and ``constants``)."""
    return SimpleNamespace(**snakemake.params.item)
