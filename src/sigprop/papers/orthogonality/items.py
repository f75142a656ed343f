"""DJB21 items: every simulation, figure, table and theorem check of the orthogonality paper.

Seed numbering: DJB21 (NeurIPS 2021, seed 003) first, then Joudaki's thesis (seed 004: ch. 2 and
App. A). Config slices are ``orthogonality/<name>``.
"""

from ...base.registry import (
    Figure,
    Simulation,
    Table,
    Theorem,
    dataset_simulation,
    lazy_modules,
    training_simulation,
)
from ...training.experiment_spec import CURVES
from . import (
    assumption_judges,
    chain_judges,
    conjecture_judges,
    drift_judges,
    drift_theorem_judges,
    gaussian_bound_judges,
    init_judges,
    init_theorem_judges,
    real_judges,
    sawa_judges,
    stability_judges,
    training_judges,
)
from .config_checks import check_config

lazy = lazy_modules(__package__)
"""The modules of this family that import torch, named without importing them."""


_TRAINING_CURVES = CURVES
"""NaN once a run diverged (kept, never chosen by the step-size search; a judge that reads it
is invalid)."""


def _training_simulation(name: str, source: str, run=None) -> Simulation:
    """Networks trained on ``orthogonality/<name>/dataset``: ``run``, by default
    ``network_training`` itself."""
    run = run or lazy.training_simulations.network_training
    return training_simulation(name, source, run, _TRAINING_CURVES)


def _training_figure(name: str, source: str, simulation: str, judge) -> Figure:
    """A training figure drawn and judged from the curves of ``simulation``."""
    return Figure(
        name,
        source=source,
        reads={"curves": simulation},
        params={"setup": "@curves", "figure": "."},
        judge=judge,
        judge_args=".",
        nonfinite=_TRAINING_CURVES,
    )


ITEMS = [
    Simulation(
        "cosine_pair",
        source="DJB21 Fig. 1; Thesis Fig. 2.1",
        run=lazy.chain_simulations.cosine_pair,
        mem_mb=1000,
        runtime=10,
    ),
    Figure(
        "fig1",
        source="DJB21 Fig. 1; Thesis Fig. 2.1",
        reads={"cosines": "cosine_pair"},
        params={"setup": "@cosines"},
        judge=chain_judges.fig1_claims,
        judge_args=("@cosines/width", "vanilla_min_final_cosine"),
    ),
    Simulation(
        "gap_chain",
        source="DJB21 Eq. (1); Figs. 2a, 2b; Thesis Fig. 2.2",
        run=lazy.chain_simulations.gap_chain,
        mem_mb=4000,
        runtime=30,
    ),
    Figure(
        "fig2a",
        source="DJB21 Fig. 2a; Thesis Fig. 2.2a",
        reads={"gaps": "gap_chain"},
        params=("widths", "layers", {"chain": "@gaps"}),
        judge=chain_judges.fig2a_claims,
        judge_args=("decay_window", "plateau_window", "plateau_drift"),
    ),
    Figure(
        "fig2b",
        source="DJB21 Fig. 2b; Thesis Fig. 2.2b",
        reads={"gaps": "gap_chain"},
        params=("window", "paper_window", {"chain": "@gaps"}),
        judge=chain_judges.fig2b_claims,
        judge_args=("window", "slope_margin", "paper_window", "paper_slope"),
    ),
    dataset_simulation(
        "real_gap",
        source="DJB21 Fig. 5 (App. F)",
        run=lazy.real_simulations.real_gap,
        mem_mb=3000,
        runtime=30,
    ),
    Figure(
        "fig5",
        source="DJB21 Fig. 5 (App. F)",
        reads={"gaps": "real_gap"},
        params={"setup": "@gaps"},
        judge=real_judges.fig5_claims,
        judge_args=(
            "@gaps/batch_size",
            "growth_window",
            "plateau_window",
            "plateau_drift",
            "float_tolerance",
        ),
    ),
    Simulation(
        "gaussian_chain",
        source=(
            "DJB21 Thm. 1, Lemma 2, Cor. 3, Table 1; "
            "Thesis Thm. 2.1, Lemma 2.2, Cor. 2.3, Table 2.1"
        ),
        run=lazy.gaussian_simulations.gaussian_chain,
        mem_mb=4000,
        runtime=60,
    ),
    Simulation(
        "wide_gaussian_chain",
        source="DJB21 Thm. 1, Cor. 3; Thesis Thm. 2.1, Cor. 2.3 (where the bounds bite)",
        run=lazy.gaussian_simulations.gaussian_chain,
        setup=(
            "batch_sizes",
            "widths",
            "n_runs",
            *(f"orthogonality/gaussian_chain/{key}" for key in ("depth", "correlation", "dtype")),
        ),
        # the same chain at the widths where Thm. 1's bound can fail, with streams of its own
        mem_mb=4000,
        runtime=60,
    ),
    Figure(
        "thm1",
        source="DJB21 Thm. 1; Thesis Thm. 2.1",
        reads={"chain": "gaussian_chain", "wide": "wide_gaussian_chain"},
        params=("widths", "decay_window", "plateau_window", "@chain", "@wide"),
        judge=gaussian_bound_judges.thm1_claims,
        judge_args=(
            "widths",
            "decay_window",
            "plateau_window",
            "plateau_drift",
            "exponent_margin",
            "n_exponent_tolerance",
            "@chain/n_runs",
        ),
        # NaN at layer 0: the bounds start at layer 1
        nonfinite=(
            "bound_literal",
            "bound_rigorous",
            "transient_literal",
        ),
    ),
    Figure(
        "w2_depth",
        source="DJB21 Lemma 2, Cor. 3; Thesis Lemma 2.2, Cor. 2.3",
        reads={"chain": "gaussian_chain", "wide": "wide_gaussian_chain"},
        params=("widths", "@chain", "@wide"),
        judge=gaussian_bound_judges.w2_depth_claims,
        # +inf where alpha_hat = 0 (paper scale, deep layers): Cor. 3 needs alpha > 0 and gives
        # no bound there; a ratio to it is 0, and such a layer is never "useful"
        nonfinite=("cor3_literal", "cor3_rigorous"),
        judge_args=("plateau_from", "float_tolerance"),
    ),
    Figure(
        "w2_width",
        source="DJB21 Table 1, Cor. 3; Thesis Table 2.1, Cor. 2.3",
        reads={"chain": "gaussian_chain"},
        params=("window", "@chain"),
        judge=gaussian_bound_judges.w2_width_claims,
        judge_args=("max_exponent",),
    ),
    Table(
        "table1",
        source="DJB21 Table 1; Thesis Table 2.1",
        reads={"chain": "gaussian_chain"},
        params=("batch_size", "orthogonality/w2_width/window"),
        judge=gaussian_bound_judges.table1_claims,
        judge_args=("orthogonality/w2_width/max_exponent",),
        # NaN where a batch size has too few widths to fit
        nonfinite=(
            "exponent",
            "exponent_se",
            "batch_size",
            "min_width",
            "max_width",
            "radius_at_max_width",
        ),
    ),
    Simulation(
        "conjecture_chain",
        source="DJB21 Conjecture F.1, Fig. 6 (App. F)",
        run=lazy.conjecture_simulations.conjecture_chain,
        mem_mb=2000,
        runtime=30,
    ),
    Figure(
        "fig6",
        source="DJB21 Fig. 6, Conjecture F.1 (App. F)",
        reads={"fluctuations": "conjecture_chain"},
        params=("main", {"chain": "@fluctuations"}),
        judge=conjecture_judges.fig6_claims,
        judge_args=(
            "main",
            "fit_min_width",
            "slope_margin",
            "distinct_margin",
            "offdiag_share",
            "@fluctuations/batch_size",
        ),
    ),
    Simulation(
        "a1_grid",
        source="Thesis Fig. 2.3 (DJB21 assumption A_1)",
        run=lazy.assumption_simulations.a1_grid,
        # NaN by design: first_fail of a run that never fails; every value of a pixel n > d,
        # outside the assumption's range (not simulated)
        nonfinite=("first_fail", "alpha0", "min_ratio", "passed", "layers"),
        mem_mb=2000,
        runtime=60,
    ),
    Figure(
        "fig2_3",
        source="Thesis Fig. 2.3 (DJB21 assumption A_1)",
        reads={"grid": "a1_grid"},
        params=("min_fit_points", "n2_constant", "@grid"),
        judge=assumption_judges.fig2_3_claims,
        judge_args=(
            "@grid/threshold",
            "@grid/depth",
            "min_fit_points",
            "n2_constant",
            "exponent_margin",
        ),
        # first_fail NaN: the assumption never failed along the chain; the other three are NaN
        # on invalid pixels (d < n), which the judge leaves out by the `valid` column
        nonfinite=("first_fail", "min_ratio", "alpha0_mean", "layers"),
    ),
    Theorem(
        "lemma4",
        source="DJB21 Lemma 4, Eq. (11); Thesis Lemma A.1",
        measure=lazy.drift_theorems.measure_lemma4,
        judge=drift_theorem_judges.judge_lemma4,
        tolerances=("float_tolerance",),
        nonfinite=("max_abs_equality",),  # NaN outside the equality-case rows
    ),
    Theorem(
        "theorem5",
        source="DJB21 Thm. 5, Lemmas 7-8 (App. C); Thesis Thm. A.2, Lemmas A.4-A.5",
        measure=lazy.drift_theorems.measure_theorem5,
        judge=drift_theorem_judges.judge_theorem5,
        tolerances=("float_tolerance",),
        # NaN outside the rows of its part (the table holds several kinds of row)
        nonfinite=(
            "d",
            "n_draws",
            "gamma",
            "rhs",
            "lemma6_exact",
            "frob",
            "frob_se",
            "msd",
            "msd_se",
            "weyl_margin",
            "mc_mean",
            "mc_se",
        ),
    ),
    Figure(
        "drift",
        source="DJB21 Thm. 5, Lemma 8 (App. C); Thesis Thm. A.2, Lemma A.5",
        reads={"table": "theorem5"},  # its cached Monte Carlo (part == "mc")
        params=("@table/cases", "@table/n_states", "@table/n_degenerate", "@table/n_draws"),
        judge=drift_judges.drift_claims,
        judge_args=("@table/n_draws",),
    ),
    Theorem(
        "lemma6",
        source="DJB21 Lemma 6, Eq. (13), Lemma 9, Eq. (15); Thesis Lemmas A.3, A.6",
        measure=lazy.drift_theorems.measure_lemma6,
        judge=sawa_judges.judge_lemma6,
        tolerances=("relative_margin", "float_tolerance"),
    ),
    Theorem(
        "lemma10",
        source="DJB21 Lemma 10, Eq. (16) (App. C.6); Thesis Lemma A.7",
        measure=lazy.drift_theorems.measure_lemma10,
        judge=sawa_judges.judge_lemma10,
        tolerances=("float_tolerance", "derivative_tolerance"),
        # NaN where n has no random-spectra search
        nonfinite=(
            "min_f_minus_g",
            "min_f_minus_linear",
        ),
    ),
    Theorem(
        "stability",
        source="DJB21 App. B.1; Thesis App. A.2",
        measure=lazy.drift_theorems.measure_stability,
        judge=stability_judges.judge_stability,
        tolerances=(),
    ),
    Theorem(
        "app_e",
        source="DJB21 App. E, Eq. (17)-(18), Eq. (6); Thesis App. A.4, Eq. (A.19)-(A.20)",
        measure=lazy.init_theorems.measure_app_e,
        judge=init_theorem_judges.judge_app_e,
        tolerances=("control_min_fraction",),
        # NaN outside the rows of its part (the table holds several kinds of row)
        nonfinite=(
            "count",
            "min_margin",
            "min_relative_margin",
            "mean_v2_before",
            "mean_v2_after",
            "d",
            "mean_gap_before",
            "mean_gap_after",
            "max_gap_change",
            "increase_fraction",
            "max_eq2_gap_after",
            "max_condition",
            "max_formula_error",
            "max_roundoff_ratio",
            "run",
            "layer",
            "gap_before",
            "gap_after",
            "eq2_gap_before",
            "eq2_gap_after",
        ),
    ),
    Theorem(
        "lemma_a8",
        source="Thesis Lemma A.8, Eq. (A.12)-(A.13)",
        measure=lazy.init_theorems.measure_lemma_a8,
        judge=init_theorem_judges.judge_lemma_a8,
        tolerances=("relative_margin",),
    ),
    Theorem(
        "whitening",
        source="DJB21 Sec. 3, remark after Thm. 1; Thesis Sec. 2.2",
        measure=lazy.init_theorems.measure_whitening,
        judge=init_theorem_judges.judge_whitening,
        tolerances=("bn_min_gap",),
        nonfinite=("max_floor_error",),  # NaN where the floor does not apply
    ),
    dataset_simulation(
        "init_mlp",
        source="DJB21 Sec. 5.2, Eq. (6); Thesis Sec. 2.4, Eq. (2.6), App. A.5",
        run=lazy.init_simulations.init_gap,
        constants={"experiment_id": "orthogonality.init_gap"},  # its streams' id since the start
        mem_mb=4000,
        runtime=30,
    ),
    Figure(
        "init_gap",
        source="DJB21 Sec. 5.2, Eq. (6); Thesis Sec. 2.4, Eq. (2.6), App. A.5",
        reads={"gaps": "init_mlp"},
        params={"setup": "@gaps"},
        judge=init_judges.init_gap_claims,
        judge_args=".",
    ),
    _training_simulation(
        "depth_orthogonality",
        "DJB21 Sec. 5, Figs. 3, 4 (Thesis Figs. 2.4, 2.5); Thesis Fig. A.1",
        lazy.training_simulations.depth_orthogonality,  # with the clipping shares
    ),
    _training_simulation("deep_convnets", "DJB21 App. G, Fig. 7"),
    _training_figure(
        "fig3a",
        "DJB21 Fig. 3a (Thesis Fig. 2.4a)",
        "depth_orthogonality",
        training_judges.fig3a_claims,
    ),
    _training_figure(
        "fig3b",
        "DJB21 Fig. 3b (Thesis Fig. 2.4b)",
        "depth_orthogonality",
        training_judges.fig3b_claims,
    ),
    _training_figure(
        "fig4", "DJB21 Fig. 4 (Thesis Fig. 2.5)", "depth_orthogonality", training_judges.fig4_claims
    ),
    _training_figure(
        "fig_a1",
        "Thesis Fig. A.1, Eq. (A.21)",
        "depth_orthogonality",
        training_judges.fig_a1_claims,
    ),
    _training_figure("fig7", "DJB21 App. G, Fig. 7", "deep_convnets", training_judges.fig7_claims),
]

CHECK_CONFIG = check_config
"""The cross-key checks of the ``orthogonality`` config (``config_checks.check_config``)."""
