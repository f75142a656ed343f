"""Thesis ch. 3 and app. B items: every simulation, figure and theorem check of the mean-field
family, in the seed's order (Joudaki 2024, seed 004; JDB23a)."""

from ...base.registry import Figure, Simulation, Theorem, lazy_modules
from . import (
    fixed_point_judges,
    gram_judges,
    mixing_judges,
    tail_judges,
)
from .config_checks import check_config

lazy = lazy_modules(__package__)
"""The modules of this family that import torch, named without importing them."""


CHECK_CONFIG = check_config

ITEMS = [
    Simulation(
        "gram_chain",
        source="Thesis Eq. (3.1)-(3.2); Figs. 3.1-3.4",
        run=lazy.gram_simulations.gram_chain,
        nonfinite=("kappa",),  # the condition number of the singular no-BN Grams: NaN / inf
        mem_mb=4000,
    ),
    Theorem(
        "fixed_point",
        source="Thesis Eq. (3.3) and (B.36), Sec. 3.3.2",
        measure=lazy.fixed_point_theorems.measure,
        judge=fixed_point_judges.judge,
        tolerances=("agreement_margin",),
        # NaN outside the rows of its part (the table holds several kinds of row)
        nonfinite=(
            "reference_diag",
            "reference_offdiag",
            "kappa",
        ),
    ),
    Figure(
        "fig3_1",
        source="Thesis Fig. 3.1, Sec. 3.3.3",
        reads={"chain": "gram_chain"},
        params={"fig": "."},
        judge=gram_judges.fig3_1_claims,
    ),
    Theorem(
        "mixing",
        source="Thesis Assumption 3.1, Eq. (3.4)",
        measure=lazy.mixing_theorems.measure,
        judge=mixing_judges.judge,
        # z sets the layers of the rate fit (a window, not a tolerance), so the measurement reads
        # it; merged_margin is the judge's.
        tolerances=("merged_margin",),
    ),
    Figure(
        "fig3_2",
        source="Thesis Fig. 3.2; Thm. 3.2, Eq. (3.9)",
        reads={"chain": "gram_chain"},
        params={"fig": "."},
        judge=gram_judges.fig3_2_claims,
        judge_args=("batch_size", "@chain/widths", "plateau_from", "plateau_margin"),
    ),
    Figure(
        "fig3_3",
        source="Thesis Fig. 3.3; Thm. 3.2",
        reads={"chain": "gram_chain"},
        params={"fig": "."},
        judge=gram_judges.fig3_3_claims,
        judge_args=("slope_margin",),
    ),
    Figure(
        "fig3_4",
        source="Thesis Fig. 3.4; Thm. 3.2",
        reads={"chain": "gram_chain"},
        params={"fig": "."},
        judge=gram_judges.fig3_4_claims,
        judge_args=("slope_margin", "@chain/widths"),
        nonfinite=("kappa",),  # the condition number of singular no-BN Grams: NaN / inf
    ),
    Theorem(
        "lemma_b1_b2",
        source="Thesis Lemmas B.1, B.2 (Eq. (B.3), (B.4)); Lemma 3.3 / B.3",
        measure=lazy.tail_theorems.measure,
        judge=tail_judges.judge,
        tolerances=("slope_margin",),
    ),
]
