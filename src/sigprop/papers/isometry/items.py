"""Joudaki 2024 (PhD thesis, seed 004) ch. 4-5 items: every figure, table and theorem check of
the family.

There are no cached simulations: the figures and tables are deterministic (quadrature, closed
forms) or cheap and seeded (Table 5.2's Monte Carlo), and their scripts compute what they plot.
"""

from ...base.registry import Figure, Table, Theorem, lazy_modules
from . import (
    finite_width_judges,
    hermite_table_judges,
    isometry_property_judges,
    kernel_bound_judges,
    kernel_bound_theorems,
    kernel_convergence_judges,
    normalization_gain_judges,
    normalization_layer_judges,
    parallelepiped_judges,
)
from .config_checks import check_config

lazy = lazy_modules(__package__)
"""The modules of this family that import torch, named without importing them."""


CHECK_CONFIG = check_config
"""Cross-key checks of the ``isometry`` config section (the whole config in, ConfigError out)."""


_FIG5_PARAMS = (
    {"subjects": "activations"},
    "rho0",
    "layers",
    "order",
    "case_tolerance",
    "n_points",
)
"""Thesis Figs. 5.1, 5.2: the keys of the figure's own section its script reads."""


ROUNDOFF = ("roundoff_units",)
"""Judge-only keys of Thm. 4.3 and Cors. 4.4, 4.5."""

_FIG5_PANELS_NAN = (
    *("layer", "rho", "rho_star", "distance", "bound", "printed_bound", "rho0", "case"),
    *("case_truncated", "alpha", "C", "kappa0", "dkappa0", "dkappa1", "dkappa1_truncated"),
    *("order", "x", "y"),
)
"""Columns of Figs. 5.1/5.2's plotted numbers that are NaN outside their panel's rows (the
convergence, kernel and activation panels share one CSV; printed_bound only in case 1)."""

ITEMS = [
    Figure(
        "fig4_1",
        source="Thesis Fig. 4.1; Def. 4.1, Eq. (4.2)",
        params=("labels", "parallelograms", "parallelepipeds"),
        judge=parallelepiped_judges.fig4_1_claims,
        judge_args=("isometry/fig4_1_check/tolerance",),
        # NaN: a, b and theta describe the n = 2 parallelograms only
        nonfinite=(
            "a",
            "b",
            "theta_deg",
        ),
    ),
    Theorem(
        "lemma4_2",
        source="Thesis Lemma 4.2",
        measure=lazy.isometry_property_theorems.lemma4_2,
        judge=isometry_property_judges.lemma4_2_claims,
        tolerances=("roundoff_units", "deficit_rtol"),
        # NaN outside the rows of its part (the table holds several kinds of row)
        nonfinite=(
            "gap",
            "reference_gap",
            "kappa",
            "roundoff",
            "gap_error",
        ),
    ),
    Theorem(
        "theorem4_3",
        source="Thesis Thm. 4.3, Eqs. (4.3)-(4.7)",
        measure=lazy.normalization_gain_theorems.theorem4_3,
        judge=normalization_gain_judges.theorem4_3_claims,
        tolerances=ROUNDOFF,
    ),
    Theorem(
        "corollary4_4",
        source="Thesis Cor. 4.4",
        measure=lazy.normalization_gain_theorems.corollary4_4,
        judge=normalization_gain_judges.corollary4_4_claims,
        tolerances=ROUNDOFF,
    ),
    Theorem(
        "corollary4_5",
        source="Thesis Cor. 4.5",
        measure=lazy.normalization_gain_theorems.corollary4_5,
        judge=normalization_gain_judges.corollary4_5_claims,
        tolerances=ROUNDOFF,
    ),
    Theorem(
        "prop5_1",
        source="Thesis Props. 5.1, 5.2; Thm. 5.15",
        measure=lazy.finite_width_theorems.prop5_1,
        judge=finite_width_judges.prop5_1_claims,
        tolerances=("slope_margin", "agree_margin", "control_slope"),
        # NaN where no wrong-kernel fit is made
        nonfinite=(
            "slope_wrong_kernel",
            "slope_wrong_kernel_se",
        ),
    ),
    Table(
        "table5_1",
        source="Thesis Table 5.1; Def. 5.4, Eq. (5.5)",
        params=("max_order", "nodes"),
        judge=hermite_table_judges.table5_1_claims,
        judge_args=("float_tolerance",),
    ),
    Table(
        "table5_2",
        source="Thesis Table 5.2; Def. 5.3, Lemma 5.6, Cor. 5.7, Thm. 5.11",
        params=(
            "activations",
            "order",
            "series_order",
            "series_rho_max",
            "case_tolerance",
            "mc_samples",
            "mc_rhos",
        ),
        judge=hermite_table_judges.table5_2_claims,
        judge_args=("float_tolerance", "mc_margin"),
        nonfinite=("closed_form_error",),  # NaN where no closed form is known
    ),
    Theorem(
        "kernel_bounds",
        source="Thesis Thm. 5.8, Cor. 5.10, Thm. 5.11, Remarks 5.12-5.14",
        measure=kernel_bound_theorems.kernel_bounds,
        judge=kernel_bound_judges.kernel_bounds_claims,
        tolerances=("float_tolerance",),
        # NaN outside the rows of its part (the table holds several kinds of row)
        nonfinite=(
            "case",
            "alpha",
            "rho_star",
            "kappa0",
            "dkappa0",
            "dkappa1",
            "dkappa_star",
            "final_distance",
            "max_excess",
            "max_ratio",
            "interior_fixed_points",
        ),
    ),
    Theorem(
        "theorem5_15",
        source="Thesis Thm. 5.15, Eqs. (5.11)-(5.14)",
        measure=lazy.normalization_layer_theorems.theorem5_15,
        judge=normalization_layer_judges.theorem5_15_claims,
        tolerances=("case_tolerance", "float_tolerance"),
        # inf: rho_l reaches 1 in float64 without centring (Psi(1) = inf)
        nonfinite=(
            "max_excess_printed",
            "max_excess_corrected",
        ),
    ),
    Figure(
        "fig5_1",
        source="Thesis Fig. 5.1; Thm. 5.11",
        params=_FIG5_PARAMS,
        judge=kernel_convergence_judges.fig5_1_claims,
        judge_args="isometry/fig5_1_check",
        script="fig5_kernel.py",
        nonfinite=_FIG5_PANELS_NAN,
    ),
    Figure(
        "fig5_2",
        source="Thesis Fig. 5.2; Thm. 5.11",
        params=_FIG5_PARAMS,
        judge=kernel_convergence_judges.fig5_2_claims,
        judge_args="isometry/fig5_2_check",
        script="fig5_kernel.py",
        nonfinite=_FIG5_PANELS_NAN,
    ),
]
