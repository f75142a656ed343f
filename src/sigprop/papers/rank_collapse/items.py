"""Dan+20 items (seeds 000-002): every simulation, figure and theorem check of the rank-collapse
paper."""

from ...base.registry import (
    Figure,
    Simulation,
    Split,
    Table,
    Theorem,
    lazy_modules,
    training_simulation,
)
from ...training.experiment_spec import CURVES
from . import (
    bn_chain_lemma_judges,
    breaking_bn_judges,
    chain_judges,
    corollary15_judges,
    gradient_vanishing_judges,
    invariance_judges,
    spectral_lemma_judges,
    training_judges,
)
from .config_checks import check_config

lazy = lazy_modules(__package__)
"""The modules of this family that import torch, named without importing them."""


CHECK_CONFIG = check_config
"""The cross-key checks of the ``rank_collapse`` config section (whole config in)."""

_TRAINING_CURVES = CURVES
"""A run diverged at a too-large step size of the grid holds NaN from then on: a result of the
grid search, never chosen by the figures."""
_BN_CHAIN = {"chain": "bn_chain"}
_BY_WIDTH = Split("widths", dim="width", cost_power=3)
"""Chains whose streams are their own per width d (``<id>.gamma<g>.d<d>...``) may run one job per
width (config ``split_simulations``); a width's work grows as d^3 (d x d products, d = N)."""
_NO_SKIP = ("gamma",)
"""The column gamma, inf in the rows without a skip connection."""


def _training_figure(
    name: str, simulation: str, judge, script: str | None = None, judge_args=None, constants=None
) -> Figure:
    """Dan+20 Fig. <n> drawn and judged from the curves of ``simulation`` (judge arguments: the
    figure's config slice unless ``judge_args`` names them)."""
    return Figure(
        name,
        source=f"Dan+20 Fig. {name[3:]}",
        reads={"curves": simulation},
        params={"setup": "@curves"},
        constants=constants or {},
        judge=judge,
        judge_args=judge_args or ".",
        script=script,
        nonfinite=_TRAINING_CURVES,
    )


def _curves(shows: str, rows: dict[str, str], seed_dataset: str = "cifar10") -> dict:
    """What ``pretraining_curves.py`` draws for one figure (Dan+20 Figs. 4, 11, 12): the
    caption's first words, the rows (curve column -> y label) and the seed's dataset."""
    return {"shows": shows, "rows": rows, "seed_dataset": seed_dataset}


_CURVES_SCRIPT = "pretraining_curves.py"


def _training_simulation(name: str, source: str) -> Simulation:
    """The networks of ``rank_collapse/<name>`` trained on its dataset (``network_training``)."""
    run = lazy.training_simulations.network_training
    return training_simulation(name, source, run, _TRAINING_CURVES)


ITEMS = [
    Simulation(
        "depth_rank",
        source="Dan+20 Fig. 2",
        run=lazy.chain_simulations.depth_rank,
    ),
    Figure(
        "fig2",
        source="Dan+20 Fig. 2",
        reads={"ranks": "depth_rank"},
        params={"setup": "@ranks"},
        judge=chain_judges.fig2_claims,
        judge_args=("@ranks/width", "vanilla_rank_tolerance"),
    ),
    _training_simulation("depth_training", "Dan+20 Fig. 1"),
    Figure(
        "fig1",
        source="Dan+20 Fig. 1",
        reads={"curves": "depth_training"},
        params={"setup": "@curves"},
        judge=training_judges.fig1_claims,
        judge_args=(
            "@curves/width",
            "collapse_fraction",
            "keep_fraction",
            "learn_depth",
            "chance_margin",
            "mild_drop",
            "min_gap",
        ),
    ),
    _training_simulation("pretrain_vs_bn", "Dan+20 Figs. 4, 11"),
    _training_simulation("pretrain_vs_bn_fmnist", "Dan+20 Fig. 12"),
    _training_simulation("pretrain_levels", "Dan+20 Fig. 6"),
    _training_figure(
        "fig4",
        "pretrain_vs_bn",
        training_judges.fig4_claims,
        _CURVES_SCRIPT,
        constants=_curves(
            "training loss of rank-pre-trained vanilla, BN and vanilla ReLU MLPs",
            {"train_loss": "training loss"},
        ),
    ),
    _training_figure(
        "fig11",
        "pretrain_vs_bn",
        training_judges.fig11_claims,
        _CURVES_SCRIPT,
        judge_args=(
            "slowdown_ratio",
            # the setup claim of these runs, judged as Fig. 4's (Fig. 11 shows Fig. 4's runs)
            "rank_collapse/fig4/rank_gain",
        ),
        constants=_curves(
            "the runs of Fig. 4, training accuracy (top) and test loss (bottom)",
            {"train_accuracy": "training accuracy", "test_loss": "test loss"},
        ),
    ),  # fmt: skip
    _training_figure(
        "fig12",
        "pretrain_vs_bn_fmnist",
        training_judges.fig12_claims,
        _CURVES_SCRIPT,
        constants=_curves(
            "Fig. 4 on Fashion-MNIST, training loss (top) and test loss (bottom)",
            {"train_loss": "training loss", "test_loss": "test loss"},
            seed_dataset="fashion_mnist",
        ),
    ),
    _training_figure("fig6", "pretrain_levels", training_judges.fig6_claims),
    _training_simulation("breaking_bn_vgg", "Dan+20 Figs. 5, 7"),
    _training_simulation("breaking_bn_resnet", "Dan+20 Fig. 13"),
    _training_simulation("gradient_alignment_vgg", "Dan+20 Fig. 10"),
    _training_figure("fig5", "breaking_bn_vgg", breaking_bn_judges.fig5_claims, "breaking_bn.py"),
    _training_figure(
        "fig13", "breaking_bn_resnet", breaking_bn_judges.fig13_claims, "breaking_bn.py"
    ),
    _training_figure("fig7", "breaking_bn_vgg", breaking_bn_judges.fig7_claims),
    _training_figure("fig10", "gradient_alignment_vgg", gradient_vanishing_judges.fig10_claims),
    Theorem(
        "prop19",
        source="Dan+20 Prop. 19, Eq. (95)-(97) (App. H)",
        measure=lazy.gradient_vanishing_theorems.measure_prop19,
        judge=gradient_vanishing_judges.judge_prop19,
        tolerances=("exact_tolerance", "control_max", "min_alignment", "max_bn_alignment"),
    ),
    Theorem(
        "lemma3",
        source="Dan+20 Lemma 3, Eq. (6)",
        measure=lazy.spectral_lemmas.measure_lemma3,
        judge=spectral_lemma_judges.judge_lemma3,
        tolerances=("rank_tolerance",),
    ),
    Simulation(
        "small_batch_rank",
        source="Dan+20 (seed 002) Sec. 3.1",
        run=lazy.chain_simulations.small_batch_rank,
        split=_BY_WIDTH,
    ),
    Figure(
        "sec3_1",
        source="Dan+20 (seed 002) Sec. 3.1: full rank when N = O(sqrt d)",
        reads={"ranks": "small_batch_rank"},
        params={"setup": "@ranks"},
        judge=chain_judges.sec3_1_claims,
        judge_args=".",
        nonfinite=_NO_SKIP,
    ),
    Theorem(
        "lemma1",
        source="Dan+20 Lemma 1, Eq. (3)-(4)",
        measure=lazy.bn_chain_lemmas.measure_lemma1,
        judge=bn_chain_lemma_judges.judge_lemma1,
        tolerances=("control_min_fraction",),
        nonfinite=_NO_SKIP,
    ),
    Simulation(
        "bn_chain",
        source="Dan+20 Eq. (1); Figs. 3a, 8, 9",
        run=lazy.chain_simulations.bn_chain,
        mem_mb=4000,
        runtime=240,
        split=_BY_WIDTH,
    ),
    Table(
        "cor15",
        source="Dan+20 Cor. 15 (with Thm. 14)",
        reads=_BN_CHAIN,
        params=("@chain/taus",),
        judge=corollary15_judges.cor15_claims,
        judge_args=".",
        nonfinite=_NO_SKIP,
    ),
    Table(
        "eq52",
        source="Dan+20 Eq. (52) (Lemma 13)",
        reads=_BN_CHAIN,
        judge=invariance_judges.eq52_claims,
        judge_args=".",
        nonfinite=_NO_SKIP,
    ),
    Figure(
        "fig3a",
        source="Dan+20 Fig. 3a; Thm. 2, Thm. 14",
        reads=_BN_CHAIN,
        params={"setup": "@chain"},
        judge=chain_judges.fig3a_claims,
        judge_args=("@chain/taus", "min_width"),
        nonfinite=_NO_SKIP,
    ),
    Simulation(
        "collinear_chain",
        source="Dan+20 Fig. 3b",
        run=lazy.chain_simulations.collinear_chain,
        mem_mb=1000,
        runtime=10,
    ),
    Figure(
        "fig3b",
        source="Dan+20 Fig. 3b; Example 9",
        reads={"chain": "collinear_chain"},
        params={"setup": "@chain"},
        judge=chain_judges.fig3b_claims,
        judge_args=("min_growth",),
    ),
    Theorem(
        "lemma4",
        source="Dan+20 Lemma 4, Eq. (31)-(32); App. C, comment on BN-centering",
        measure=lazy.bn_chain_lemmas.measure_lemma4,
        judge=bn_chain_lemma_judges.judge_lemma4,
        tolerances=("offdiag_margin", "row_mean_max", "centering_tolerance"),
        nonfinite=(*_NO_SKIP, "float64_separation_layer"),  # NaN: never separated
    ),
    Theorem(
        "lemma5_6",
        source="Dan+20 Lemmas 5 and 6, Eq. (30), (33), (36)-(37)",
        measure=lazy.bn_chain_lemmas.measure_lemma5_6,
        judge=bn_chain_lemma_judges.judge_lemma5_6,
        tolerances=("float_tolerance",),
        # NaN outside the rows of its part (the table holds several kinds of row)
        nonfinite=(
            "rank_one_fraction",
            "escape_layer",
            "max_dev_from_start",
            "max_dev_from_unit",
            "max_dev_from_start_all_layers",
            "sign_change_fraction",
            "max_abs_delta_m",
            "printed_bound_4_gamma_b",
            "correct_bound",
            "min_r",
        ),
    ),
    Theorem(
        "lemma7",
        source="Dan+20 Lemma 7, Eq. (43)",
        measure=lazy.bn_chain_lemmas.measure_lemma7,
        judge=bn_chain_lemma_judges.judge_lemma7,
        tolerances=("min_order",),
    ),
    Theorem(
        "prop8",
        source="Dan+20 Prop. 8, Eq. (44)-(45)",
        measure=lazy.spectral_lemmas.measure_prop8,
        judge=spectral_lemma_judges.judge_prop8,
        tolerances=("rtol",),
    ),
    Theorem(
        "example9",
        source="Dan+20 Example 9, Eq. (78)-(82)",
        measure=lazy.spectral_lemmas.measure_example9,
        judge=spectral_lemma_judges.judge_example9,
        tolerances=(),
    ),
    Figure(
        "fig8",
        source="Dan+20 Fig. 8; Lemma 10",
        reads=_BN_CHAIN,
        params={"setup": "@chain"},
        judge=chain_judges.fig8_claims,
        judge_args=("max_alpha_wide", "wide_from"),
        nonfinite=_NO_SKIP,
    ),
    Theorem(
        "examples11_12",
        source="Dan+20 Examples 11 and 12, Eq. (83)-(89)",
        measure=lazy.spectral_lemmas.measure_examples11_12,
        judge=spectral_lemma_judges.judge_examples11_12,
        tolerances=("tol", "alpha_bound"),
        # NaN outside the rows of its part (the table holds several kinds of row)
        nonfinite=(
            "k",
            "beta",
            "slope",
            "predicted_exponent",
            "even_spread_exponent",
        ),
    ),
    Figure(
        "fig9",
        source="Dan+20 Fig. 9; Lemma 13",
        reads=_BN_CHAIN,
        params={"setup": "@chain"},
        judge=chain_judges.fig9_claims,
        judge_args=("slope_tolerance",),
        nonfinite=_NO_SKIP,
    ),
]
