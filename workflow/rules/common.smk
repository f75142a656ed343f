"""Validation before any job, and the target lists of rule all."""

import os
import sys
from pathlib import Path

from snakemake.utils import validate

# Jobs import sigprop from this checkout's src/, also inside a conda env built from envs/.
# (A write, so the --lint rule for reading undeclared environment variables does not apply.)
SIGPROP_SRC = str(Path(workflow.basedir) / "src")
sys.path.insert(0, SIGPROP_SRC)
os.environ.update(
    PYTHONPATH=os.pathsep.join(p for p in (SIGPROP_SRC, os.getenv("PYTHONPATH")) if p)
)

from sigprop.config import check_consistency
from sigprop.papers import load_registry
from sigprop.registry import resolve
from sigprop.workflow import render_description

validate(config, schema="../schemas/config.schema.yaml")
check_consistency(config)

REGISTRY = load_registry()
"""Every paper item of the ported families (sigprop.papers.<family>.items)."""

# Simulations ask a cluster for a GPU only when the config says the device is CUDA.
SIMULATION_GPUS = 1 if config["device"] == "cuda" else 0

FIGURES = {
    "rank_collapse": ["fig3a", "fig3b", "fig8", "fig9"],
    "mean_field": ["fig3_1", "fig3_2", "fig3_3", "fig3_4"],
    "isometry": ["fig4_1", "fig5_1", "fig5_2"],
    "gradients": [
        "fig6_1",
        "fig6_2",
        "fig6_3",
        "fig_c9",
        "fig_c10",
        "fig6_5",
        "fig_c1",
        "fig_c2",
    ],
}
"""Figures per family, named by the seed's own numbers."""

TABLES = {
    "mean_field": [],
    "isometry": ["table5_1", "table5_2"],
    "gradients": ["table_c1"],
}
"""Generated tables per family (results/<family>/<table>.csv and .md); rule all requests their
claims, which need the tables."""


THEOREMS = {
    "rank_collapse": {
        "lemma1": "sigprop.theorems.rank_collapse_a:lemma1",
        "lemma3": "sigprop.theorems.rank_collapse_b:lemma3",
        "lemma4": "sigprop.theorems.rank_collapse_a:lemma4_centering",
        "lemma5_6": "sigprop.theorems.rank_collapse_a:lemma5_6",
        "lemma7": "sigprop.theorems.rank_collapse_a:lemma7",
        "prop8": "sigprop.theorems.rank_collapse_b:proposition8",
        "example9": "sigprop.theorems.rank_collapse_b:example9",
        "examples11_12": "sigprop.theorems.rank_collapse_b:examples11_12",
    },
    "mean_field": {
        "fixed_point": "sigprop.theorems.mean_field:fixed_point",
        "lemma_b1_b2": "sigprop.theorems.mean_field_tails:lemma_b1_b2",
        "mixing": "sigprop.theorems.mean_field_tails:mixing",
    },
    "isometry": {
        "lemma4_2": "sigprop.theorems.isometry:lemma4_2",
        "theorem4_3": "sigprop.theorems.isometry:theorem4_3",
        "corollary4_4": "sigprop.theorems.isometry:corollary4_4",
        "corollary4_5": "sigprop.theorems.isometry:corollary4_5",
        "kernel_bounds": "sigprop.theorems.isometry_kernel:kernel_bounds",
        "theorem5_15": "sigprop.theorems.isometry_normalization:theorem5_15",
        "prop5_1": "sigprop.theorems.isometry_normalization:prop5_1",
    },
    "gradients": {
        "lemma6_2": "sigprop.theorems.gradients_isometry:lemma6_2",
        "theorem6_3": "sigprop.theorems.gradients_isometry:theorem6_3",
        "lemma_c8_c9": "sigprop.theorems.gradients_isometry:lemma_c8_c9",
        "jacobian": "sigprop.theorems.gradients_jacobian:jacobian",
        "lemma_c11": "sigprop.theorems.gradients_jacobian:lemma_c11",
        "chain_rule": "sigprop.theorems.gradients_jacobian:chain_rule",
        "lemma_c12": "sigprop.theorems.gradients_jacobian:lemma_c12",
        "lemma_c14_c15": "sigprop.theorems.gradients_jacobian:lemma_c14_c15",
    },
}
"""Theorem checks without a figure: family -> config item -> check function."""


def get_figures():
    """Every figure as PDF and PNG, e.g. figures/orthogonality/fig2b.pdf, and every table."""
    legacy = [
        f"figures/{family}/{fig}.{ext}"
        for family, figs in FIGURES.items()
        for fig in figs
        for ext in ("pdf", "png")
    ]
    return legacy + [
        path
        for family, item in REGISTRY.items()
        if item.kind in ("figure", "table")
        for path in item_outputs(family, item)
    ]


def get_claims():
    """Every claims file, one per checked figure, table or theorem item:
    results/claims/<family>/<item>.json."""
    legacy = [
        f"results/claims/{family}/{item}.json"
        for family, items in (*FIGURES.items(), *TABLES.items(), *THEOREMS.items())
        for item in items
    ]
    return legacy + [f"results/claims/{family}/{item.name}.json" for family, item in REGISTRY.judged()]


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


def get_setup(wildcards):
    """A simulation's keyword arguments: its config slice (registry ``setup``)."""
    item = _item(wildcards, "simulation")
    return resolve(item.setup, config, default=f"{wildcards.family}/{item.name}")


def get_measure_setup(wildcards):
    """A theorem measurement's keyword arguments: its config slice less the tolerances."""
    item = _item(wildcards, "theorem")
    found = resolve(None, config, default=f"{wildcards.family}/{item.name}")
    return {k: v for k, v in found.items() if k not in item.tolerances}


def get_reads(wildcards):
    """A figure's or table's input tensors: {input name: results/<family>/<sim>.pt}."""
    item = _judged_item(wildcards)
    reads = {}
    for name, ref in item.reads.items():
        family, simulation = REGISTRY.simulation_of(wildcards.family, ref)
        reads[name] = f"results/{family}/{simulation.name}.pt"
    return reads


def get_script_params(wildcards):
    """A figure's or table's script parameters: config lookups and constants."""
    item = _judged_item(wildcards)
    return {**resolve(item.params, config), **item.constants}


def get_script(wildcards):
    item = _judged_item(wildcards)
    return f"../scripts/{wildcards.family}/{item.script or item.name + '.py'}"


def get_judge_args(wildcards):
    """The judge's keyword arguments: registry ``judge_args``; a theorem gets its whole slice."""
    item = _judged_item(wildcards)
    if item.kind == "theorem":
        return resolve(None, config, default=f"{wildcards.family}/{item.name}")
    return resolve(item.judge_args, config)


def get_judged_figure(wildcards):
    """The file a claim refers to: the figure PDF, the table's Markdown, the measured CSV."""
    item = _judged_item(wildcards)
    stem = f"{wildcards.family}/{item.name}"
    return {"figure": f"figures/{stem}.pdf", "table": f"results/{stem}.md"}.get(
        item.kind, f"results/{stem}.csv"
    )


def get_description(wildcards):
    """The item's report description (workflow/report/<family>/<item>.rst), rendered."""
    item = _judged_item(wildcards)
    if item.kind == "theorem":
        template = Path(workflow.basedir) / "workflow/report/theorem.rst"
        params = {}
    else:
        template = Path(workflow.basedir) / f"workflow/report/{wildcards.family}/{item.name}.rst"
        params = get_script_params(wildcards)
    return render_description(template.read_text(), params, config, dict(wildcards))
