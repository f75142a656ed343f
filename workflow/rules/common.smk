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

validate(config, schema="../schemas/config.schema.yaml")
check_consistency(config)

# Simulations ask a cluster for a GPU only when the config says the device is CUDA.
SIMULATION_GPUS = 1 if config["device"] == "cuda" else 0

FIGURES = {
    "rank_collapse": ["fig2", "fig3a", "fig3b", "fig8", "fig9"],
    "orthogonality": [
        "fig1",
        "fig2a",
        "fig2b",
        "fig2_3",
        "fig5",
        "fig6",
        "thm1",
        "w2_depth",
        "w2_width",
        "drift",
        "init_gap",
    ],
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
    "orthogonality": ["table1"],
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
    "orthogonality": {
        "lemma4": "sigprop.theorems.orthogonality_drift:lemma4",
        "theorem5": "sigprop.theorems.orthogonality_drift:theorem5",
        "lemma6": "sigprop.theorems.orthogonality_drift:lemma6",
        "lemma10": "sigprop.theorems.orthogonality_drift:lemma10",
        "stability": "sigprop.theorems.orthogonality_drift:stability",
        "app_e": "sigprop.theorems.orthogonality_init:app_e",
        "lemma_a8": "sigprop.theorems.orthogonality_init:lemma_a8",
        "whitening": "sigprop.theorems.orthogonality_init:whitening_remark",
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
    """Every figure as PDF and PNG, e.g. figures/orthogonality/fig2b.pdf."""
    return [
        f"figures/{family}/{fig}.{ext}"
        for family, figs in FIGURES.items()
        for fig in figs
        for ext in ("pdf", "png")
    ]


def get_claims():
    """Every claims file, one per checked figure, table or theorem item:
    results/claims/<family>/<item>.json."""
    return [
        f"results/claims/{family}/{item}.json"
        for family, items in (*FIGURES.items(), *TABLES.items(), *THEOREMS.items())
        for item in items
    ]
