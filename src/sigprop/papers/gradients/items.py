"""Thesis ch. 6 / app. C items (Meterez, Joudaki et al. ICLR 2024; seed 004): every simulation,
figure, table and theorem check, in seed order."""

from ...base.registry import Figure, Simulation, Table, Theorem, lazy_modules
from . import (
    batch_rank_judges,
    depth_judges,
    gain_judges,
    isometry_chain_judges,
    training_judges,
)
from . import isometry_theorem_judges as iso_judges
from . import jacobian_theorem_judges as jac_judges
from .config_checks import check_config
from .depth_sweep_spec import VARIANTS, simulation_name
from .depth_sweep_tables import variants

lazy = lazy_modules(__package__)
"""The modules of this family that import torch, named without importing them."""


CHECK_CONFIG = check_config


_BATCH = {
    "batch": (
        "gradients/data/dataset",
        "gradients/data/batch_size",
        "gradients/data/normalize",
        {"data_root": "data/root"},
    )
}
"""The one real batch of the at-initialization figures (``gradients/data`` and the data
directory), the argument ``batch``: ``bn_mlp.input_batch``'s arguments."""
_BATCH_DATASET = ("gradients/data/dataset",)

_SWEEP = "gradients/depth_sweep"
_DEPTH_SETUP = (
    *(f"{_SWEEP}/{key}" for key in ("depths", "n_runs", "width", "dtype", "degenerate")),
    _BATCH,
)
_DEPTH_SEEDS = {
    "orthogonal": "Thesis Figs. 6.2, 6.3, C.9 (orthogonal, identity, theory BN)",
    "gaussian": "Thesis Fig. 6.3 (Gaussian weights)",
    "degenerate": "Thesis Fig. 6.2 and Remark 6.6 (degenerate batch)",
    "sin": "Thesis Fig. C.9 (sin, no gain)",
    "tanh": "Thesis Fig. C.9 (tanh, no gain)",
    "mean_reduction": "Thesis Fig. C.10 (with mean reduction)",
    "no_mean_reduction": "Thesis Fig. C.10 (without mean reduction, Eq. (6.4))",
}
_GAIN_SETUP = ("width", "norm", "bias", "dtype", _BATCH)
"""The arguments every gain simulation takes after its own."""
_CLAIMS = "gradients/depth_claims"
_SLOPES = (f"{_CLAIMS}/window", f"{_CLAIMS}/flat_slope")
"""The layer window of the depth figures' slope fits and the slope that counts as flat."""


def _depth_reads(figure: str) -> dict[str, str]:
    """A depth figure's inputs: the simulation of each variant it draws, in curve order."""
    return {name: simulation_name(name) for name in variants(figure)}


def _depth_figure(name: str, source: str, judge, judge_args: tuple, script: str | None = None):
    return Figure(
        name,
        source=source,
        reads=_depth_reads(name),
        params={"sweep": _SWEEP},
        constants={"figure": name} if script else {},
        judge=judge,
        judge_args=judge_args,
        script=script,
        nonfinite=("gap_last",),  # +inf where H_(L-1) lost rank (see the depth simulations)
    )


_ISOMETRY_GAIN_NAN = (
    *("spread", "psi0", "log_factor", "max_lambda", "mean_psi", "se_psi", "mean_iso", "se_iso"),
    *("max_iso_error", "ratio_thm6_3", "se_thm6_3", "ratio_cor6_4", "se_cor6_4", "ratio_c48"),
    "se_c48",
)
"""The Monte Carlo isometry-gain columns shared by the Thm. 6.3 and Lemma C.8/C.9 tables, NaN in
the rows of their other parts."""

_TRAINING_KEYS = ("width", "batch_size", "lr", "norm", "gain_exponent", "n_runs", "eval_size",
                  "probe_size", "dtype")  # fmt: skip
"""``gradients/training``: the hyperparameters shared by every training figure (Sec. 6.3)."""
_TRAINING_OWN = ("dataset", "depths", "epochs", "train_size", "test_size")
_ACCURACY_CURVES = ("train_loss", "train_accuracy", "test_loss", "test_accuracy",
                    "log_gradient_ratio")  # fmt: skip
"""NaN once a run diverged (never at the configured scales; declared so a diverged run shows)."""
_LAYER_CURVES = ("weight_isometry_gap", "gradient_norm", "weight_displacement",
                 "random_displacement_gap")  # fmt: skip
"""NaN at layers beyond a network's depth (padding) and once a run diverged."""


def _training_simulation(
    name: str, source: str, nonfinite: tuple[str, ...], own: tuple[str, ...] = _TRAINING_OWN
) -> Simulation:
    """``training_simulations.<name>``: the shared training keys and its own (``own`` overrides
    a shared key of the same name)."""
    return Simulation(
        name,
        source=source,
        run=getattr(lazy.training_simulations, name),
        setup={
            **{key: f"gradients/training/{key}" for key in _TRAINING_KEYS},
            **{key: key for key in own},
            "data_root": "data/root",
        },
        datasets=("dataset",),
        nonfinite=nonfinite,
        mem_mb=4000,
        runtime=600,
    )


def _training_figure(name: str, source: str, simulation: str, judge, script: str, layers: bool):
    """A training figure drawn by ``script`` from ``simulation``'s curves."""
    return Figure(
        name,
        source=source,
        reads={"curves": simulation},
        params=({"setup": "@curves"}, "gradients/training"),
        constants={"figure": name},
        judge=judge,
        judge_args="." if layers else ({"settings": "."}, "@curves/dataset"),
        script=script,
        nonfinite=_LAYER_CURVES if layers else _ACCURACY_CURVES,
    )


ITEMS = [
    # Sec. 6.2: isometry gap of the BN chain (Thm. 6.1, Fig. 6.1) and its lemmas
    Simulation(
        "isometry_chain",
        source="Thesis Fig. 6.1, Thm. 6.1",
        run=lazy.isometry_chain_simulations.isometry_chain,
        mem_mb=1000,
        runtime=10,
    ),
    Figure(
        "fig6_1",
        source="Thesis Fig. 6.1, Thm. 6.1 (ICLR 2024 Fig. 1)",
        reads={"gaps": "isometry_chain"},
        params=("authors_c",),
        judge=isometry_chain_judges.fig6_1_claims,
        judge_args=".",
    ),
    Theorem(
        "lemma6_2",
        source="Thesis Lemma C.1, Lemma 6.2 / C.2, Cor. C.3",
        measure=lazy.isometry_theorems.measure_lemma6_2,
        judge=iso_judges.judge_lemma6_2,
        tolerances=("roundoff_units",),
    ),
    Theorem(
        "theorem6_3",
        source="Thesis Thm. 6.3 / C.4, Cor. 6.4 / C.6, Eq. (C.48), Eq. (C.29)-(C.31)",
        measure=lazy.isometry_theorems.measure_theorem6_3,
        judge=iso_judges.judge_theorem6_3,
        tolerances=("control_factor", "roundoff_units"),
        # NaN outside the rows of its part (cases, orthogonal inputs, moments)
        nonfinite=(
            *_ISOMETRY_GAIN_NAN,
            "sigma_lambda",
            "max_abs_eps",
            "mc",
            "se",
            "exact",
            "z",
            "z_gaussian",
        ),
    ),
    Theorem(
        "lemma_c8_c9",
        source="Thesis Lemma C.8, Eq. (C.53), (C.56), (C.60), Lemma C.9",
        measure=lazy.isometry_theorems.measure_lemma_c8_c9,
        judge=iso_judges.judge_lemma_c8_c9,
        tolerances=("control_threshold", "roundoff_units"),
        # NaN outside the rows of its part (spectra, Monte Carlo runs)
        nonfinite=(
            *_ISOMETRY_GAIN_NAN,
            "psi",
            "c_min",
            "ratio_c49",
            "se_c49",
            "ratio_c50",
            "se_c50",
        ),
    ),
    # Sec. 6.3: gradients vs depth (Thm. 6.5, Figs. 6.2, 6.3, C.9, C.10), one simulation a curve
    *[
        Simulation(
            simulation_name(name),
            source=_DEPTH_SEEDS[name],
            run=lazy.depth_sweep_simulations.depth_sweep,
            setup=_DEPTH_SETUP,
            # the variant alone, on the streams every variant shares
            constants={"variants": [name], "experiment_id": "gradients.depth_sweep"},
            datasets=_BATCH_DATASET,
            # psi of a last layer that lost rank is +inf (the isometry gap of a singular Gram,
            # e.g. Gaussian weights at depth): a value, not an error; gradients must stay finite
            nonfinite=("gap_last",),
        )
        for name in VARIANTS
    ],
    _depth_figure(
        "fig6_2",
        "Thesis Fig. 6.2, Remark 6.6",
        depth_judges.fig6_2_claims,
        (
            *_SLOPES,
            f"{_CLAIMS}/min_slope",
            {"min_difference": f"{_CLAIMS}/degenerate_min_difference"},
            f"{_SWEEP}/degenerate/distinct",
            f"{_SWEEP}/degenerate/repeats",
        ),
        script="log_grad_vs_depth.py",
    ),
    _depth_figure(
        "fig6_3",
        "Thesis Fig. 6.3, Thm. 6.5 (ICLR 2024 Fig. 2)",
        depth_judges.fig6_3_claims,
        (
            *_SLOPES,
            f"{_CLAIMS}/min_slope",
            {"min_difference": f"{_CLAIMS}/gaussian_min_difference"},
            "gradients/data/batch_size",
        ),
        script="log_grad_vs_depth.py",
    ),
    # App. C.3: the proof of Thm. 6.5 (Thm. C.10), Remark 6.7
    Theorem(
        "jacobian",
        source="Thesis Lemmas C.13, C.16-C.21",
        measure=lazy.jacobian_theorems.measure_jacobian,
        judge=jac_judges.judge_jacobian,
        tolerances=("roundoff_units",),
        nonfinite=("c17_small",),  # NaN where the small-case check of (C.17) does not apply
    ),
    Theorem(
        "lemma_c11",
        source="Thesis Remark 6.7, Lemma C.11",
        measure=lazy.jacobian_theorems.measure_lemma_c11,
        judge=jac_judges.judge_lemma_c11,
        tolerances=("sharpness",),
        nonfinite=("autograd_error",),  # NaN: no autograd reference for MSE on raw logits
    ),
    Theorem(
        "chain_rule",
        source="Thesis proof of Thm. C.10, Eq. (C.79)-(C.82)",
        measure=lazy.jacobian_theorems.measure_chain_rule,
        judge=jac_judges.judge_chain_rule,
        # NaN outside a row's kind (layer / net); rhs_thesis at layer 0
        nonfinite=(
            "run",
            "layer",
            "log_grad",
            "rhs",
            "log_dl_dhl",
            "sum_log_j",
            "log_x_norm",
            "rhs_thesis",
            "slack",
            "consistency",
            "control",
        ),
    ),
    Theorem(
        "lemma_c12",
        source="Thesis Lemma C.12, Eq. (C.81), (C.87)-(C.90)",
        measure=lazy.jacobian_theorems.measure_lemma_c12,
        judge=jac_judges.judge_lemma_c12,
        tolerances=("max_orthogonal_slope", "min_gaussian_slope"),
        # NaN outside the rows of its part (the table holds several kinds of row)
        nonfinite=(
            "run",
            "layer",
            "psi",
            "log_j",
            "cumulative",
            "late_slope",
            "c13_violations",
            "c94_ratio",
        ),
    ),
    Theorem(
        "lemma_c14_c15",
        source="Thesis Lemmas C.14, C.15, Eq. (C.108)",
        measure=lazy.jacobian_theorems.measure_lemma_c14_c15,
        judge=jac_judges.judge_lemma_c14_c15,
        tolerances=(),
        # NaN outside the rows of its part (several kinds of row);
        # S_gaussian NaN: the Gaussian control never hits
        nonfinite=(
            "run",
            "psi0",
            "S",
            "S_gaussian",
            "c14_bound",
            "c118_bound",
            "phase2_sum",
            "c15_bound",
            "psi",
            "ratio_mean",
            "ratio_se",
        ),
    ),
    # App. C.4: rank of real image batches (the premise of Thm. 6.5)
    Simulation(
        "table_c1",
        source="Thesis Table C.1, app. C.4",
        run=lazy.batch_rank_simulations.table_c1,
        setup=(
            "datasets",
            "batch_sizes",
            "batches",
            "control_batches",
            "normalizations",
            {"data_root": "data/root"},
        ),
        datasets=("datasets",),
        nonfinite=("control_rank",),  # NaN: the duplicate-image control runs on some batches only
        mem_mb=4000,
    ),
    Table(
        "table_c1",
        source="Thesis Table C.1, app. C.4",
        reads={"batches": "table_c1"},
        params=("/scale",),
        judge=batch_rank_judges.table_c1_claims,
        judge_args="gradients/table_c1_check",
        nonfinite=("printed_cosine",),  # NaN where the seed prints no cosine
    ),
    # Sec. 6.4 and app. C.5: activation shaping (Figs. 6.5, C.1, C.2)
    Simulation(
        "gain_depth",
        source="Thesis Fig. 6.5",
        run=lazy.gain_simulations.gain_depth,
        datasets=_BATCH_DATASET,
        setup=("activations", "exponents", "depths", "runs", "layer", *_GAIN_SETUP),
    ),
    Figure(
        "fig6_5",
        source="Thesis Fig. 6.5 (ICLR 2024 Fig. 5)",
        reads={"profile": "gain_depth"},
        judge=gain_judges.fig6_5_claims,
        judge_args=".",
    ),
    Simulation(
        "constant_gain",
        source="Thesis Fig. C.1, Eq. (C.155)",
        run=lazy.gain_simulations.constant_gain,
        datasets=_BATCH_DATASET,
        setup=("activations", "gains", "depth", "layers", "gap", "runs", *_GAIN_SETUP),
    ),
    Figure(
        "fig_c1",
        source="Thesis Fig. C.1, app. C.5",
        reads={"rates": "constant_gain"},
        params=("fit_min_gain",),
        judge=gain_judges.fig_c1_claims,
        judge_args=".",
    ),
    Simulation(
        "exponent_rate",
        source="Thesis Fig. C.2, app. C.5",
        run=lazy.gain_simulations.exponent_rate,
        datasets=_BATCH_DATASET,
        setup=("activations", "exponents", "depths", "from_layer", "gap", "runs", *_GAIN_SETUP),
    ),
    Figure(
        "fig_c2",
        source="Thesis Fig. C.2, app. C.5",
        reads={"rates": "exponent_rate"},
        judge=gain_judges.fig_c2_claims,
        judge_args=".",
    ),
    # App. C.7: more on the depth sweep (Figs. C.9, C.10)
    _depth_figure(
        "fig_c9",
        "Thesis Fig. C.9, app. C.7",
        depth_judges.fig_c9_claims,
        (
            *_SLOPES,
            {"min_slope": f"{_CLAIMS}/nonlinear_min_slope"},
            f"{_CLAIMS}/gap_floor",
            f"{_CLAIMS}/gap_decay",
        ),
    ),
    _depth_figure(
        "fig_c10",
        "Thesis Fig. C.10, app. C.7",
        depth_judges.fig_c10_claims,
        _SLOPES,
        script="log_grad_vs_depth.py",
    ),
    # Sec. 6.3, 6.5, app. C.6, C.7: training (Figs. 6.4, 6.6, C.3-C.8)
    _training_simulation("shaped_cifar10", "Thesis Figs. 6.4, C.8", _ACCURACY_CURVES),
    _training_simulation("shaped_mnist", "Thesis Fig. C.5", _ACCURACY_CURVES),
    _training_simulation("shaped_fmnist", "Thesis Fig. C.6", _ACCURACY_CURVES),
    _training_simulation("shaped_cifar100", "Thesis Fig. C.7", _ACCURACY_CURVES),
    _training_simulation(
        "weight_orthogonality",
        "Thesis Figs. 6.6, C.3, C.4",
        _LAYER_CURVES,
        own=(*_TRAINING_OWN, "eval_size"),  # its figures use no accuracy: a small evaluation
    ),  # fmt: skip
    *[
        _training_figure(
            name,
            source,
            sim,
            getattr(training_judges, f"{name}_claims"),
            "shaped_accuracy.py",
            layers=False,
        )  # fmt: skip
        for name, source, sim in (
            ("fig6_4", "Thesis Fig. 6.4, Sec. 6.3-6.4", "shaped_cifar10"),
            ("fig_c5", "Thesis Fig. C.5, app. C.7", "shaped_mnist"),
            ("fig_c6", "Thesis Fig. C.6, app. C.7", "shaped_fmnist"),
            ("fig_c7", "Thesis Fig. C.7, app. C.7", "shaped_cifar100"),
            ("fig_c8", "Thesis Fig. C.8, app. C.7", "shaped_cifar10"),
        )
    ],
    *[
        _training_figure(
            name,
            source,
            "weight_orthogonality",
            getattr(training_judges, f"{name}_claims"),
            "weight_orthogonality.py",
            layers=True,
        )  # fmt: skip
        for name, source in (
            ("fig6_6", "Thesis Fig. 6.6, Sec. 6.5"),
            ("fig_c3", "Thesis Fig. C.3, app. C.6"),
            ("fig_c4", "Thesis Fig. C.4, app. C.6"),
        )
    ],
]
