"""Cross-key checks of the ``orthogonality`` config (relations a JSON schema cannot express).

``check_config`` takes the whole config and raises ``sigprop.base.config.ConfigError`` naming the
full key paths of the values that disagree.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...base.config import ConfigError, check_window
from .training_spec import FIGURE_NETWORKS

__all__ = ["check_config"]

ROOT = "orthogonality"


def _window(orth: Mapping, item: str, key: str, depth: int, depth_key: str) -> None:
    """``orthogonality.<item>.<key>`` = [first, last] is ordered and ends by ``depth``."""
    check_window(orth[item][key], f"{ROOT}.{item}.{key}", depth, depth_key)


def _simulated(orth: Mapping, item: str, key: str, simulation: str, simulated_key: str) -> None:
    """``orthogonality.<item>.<key>`` holds only values of ``<simulation>.<simulated_key>``."""
    simulated = orth[simulation][simulated_key]
    missing = sorted(set(orth[item][key]) - set(simulated))
    if missing:
        raise ConfigError(
            f"{ROOT}.{item}.{key} {missing} are not simulated: add them to "
            f"{ROOT}.{simulation}.{simulated_key} {simulated}"
        )


def check_config(config: Mapping) -> None:
    """Raise ``ConfigError`` naming the keys if related ``orthogonality`` values disagree."""
    orth = config[ROOT]
    _check_gap_chain(orth)
    _check_real_gap(orth)
    _check_gaussian_chain(orth)
    _check_conjecture_chain(orth)
    _check_a1_grid(orth)
    _check_drift_items(orth)
    _check_init_items(orth)
    _check_training_items(orth)


def _check_gap_chain(orth: Mapping) -> None:
    """DJB21 Figs. 2a, 2b: plotted widths and windows inside the gap_chain simulation."""
    chain, fig2a = orth["gap_chain"], orth["fig2a"]
    depth_key = f"{ROOT}.gap_chain.depth"
    _simulated(orth, "fig2a", "widths", "gap_chain", "widths")
    if fig2a["layers"] > chain["depth"]:
        raise ConfigError(
            f"{ROOT}.fig2a.layers = {fig2a['layers']} exceeds {depth_key} = {chain['depth']}"
        )
    _window(orth, "fig2a", "decay_window", fig2a["layers"], f"{ROOT}.fig2a.layers")
    _window(orth, "fig2a", "plateau_window", fig2a["layers"], f"{ROOT}.fig2a.layers")
    _window(orth, "fig2b", "window", chain["depth"], depth_key)
    _window(orth, "fig2b", "paper_window", chain["depth"], depth_key)
    if len(chain["widths"]) < 4:
        raise ConfigError(
            f"{ROOT}.gap_chain.widths {chain['widths']}: the Fig. 2b exponent fit "
            "(log V = a + beta log d + c/d) needs at least 4 widths"
        )
    if chain["batch_size"] > min(chain["widths"]):
        raise ConfigError(
            f"{ROOT}.gap_chain.batch_size = {chain['batch_size']} exceeds the smallest "
            f"width {min(chain['widths'])} of {ROOT}.gap_chain.widths; DJB21 assumes d >= n"
        )


def _check_real_gap(orth: Mapping) -> None:
    """DJB21 Fig. 5: the windows of ``fig5`` lie in layers 1..real_gap.depth; odd kernel."""
    real, fig5 = orth["real_gap"], orth["fig5"]
    depth_key = f"{ROOT}.real_gap.depth"
    for key in ("growth_window", "plateau_window"):
        _window(orth, "fig5", key, real["depth"], depth_key)
        first, last = fig5[key]
        if first < 1 or last - first < 2:
            raise ConfigError(
                f"{ROOT}.fig5.{key} = {fig5[key]}: layers start at 1 (the input) and a "
                "per-batch slope needs at least 3 layers"
            )
    if real["kernel_size"] % 2 == 0:
        raise ConfigError(
            f"{ROOT}.real_gap.kernel_size = {real['kernel_size']} must be odd to keep the "
            "ConvNet's maps equal sized"
        )


def _check_gaussian_chain(orth: Mapping) -> None:
    """DJB21 Thm. 1 / Lemma 2 / Cor. 3 / Table 1 items against their simulations."""
    chain = orth["gaussian_chain"]
    depth_key = f"{ROOT}.gaussian_chain.depth"
    for name in ("gaussian_chain", "wide_gaussian_chain"):
        sizes, widths = orth[name]["batch_sizes"], orth[name]["widths"]
        if max(sizes) > min(widths):
            raise ConfigError(
                f"{ROOT}.{name}.batch_sizes {sizes} exceed the smallest width {min(widths)} of "
                f"{ROOT}.{name}.widths; DJB21 assumes d >= n"
            )
    for item in ("thm1", "w2_depth"):
        _simulated(orth, item, "widths", "gaussian_chain", "widths")
    _window(orth, "thm1", "decay_window", chain["depth"], depth_key)
    _window(orth, "thm1", "plateau_window", chain["depth"], depth_key)
    _window(orth, "w2_width", "window", chain["depth"], depth_key)
    if orth["w2_depth"]["plateau_from"] > chain["depth"]:
        raise ConfigError(
            f"{ROOT}.w2_depth.plateau_from = {orth['w2_depth']['plateau_from']} exceeds "
            f"{depth_key} = {chain['depth']}"
        )
    if orth["table1"]["batch_size"] not in chain["batch_sizes"]:
        raise ConfigError(
            f"{ROOT}.table1.batch_size = {orth['table1']['batch_size']} is not in "
            f"{ROOT}.gaussian_chain.batch_sizes {chain['batch_sizes']}"
        )


def _check_conjecture_chain(orth: Mapping) -> None:
    """DJB21 Fig. 6: burn-in inside the chain; plotted activations simulated; >= 3 fitted widths."""
    conj, fig6 = orth["conjecture_chain"], orth["fig6"]
    key = f"{ROOT}.conjecture_chain"
    if conj["burn_in"] >= conj["depth"]:
        raise ConfigError(
            f"{key}.burn_in = {conj['burn_in']} must be below {key}.depth = {conj['depth']}"
        )
    _simulated(orth, "fig6", "main", "conjecture_chain", "activations")
    fitted = [w for w in conj["widths"] if w >= fig6["fit_min_width"]]
    if len(fitted) < 3:
        raise ConfigError(
            f"{ROOT}.fig6.fit_min_width = {fig6['fit_min_width']} leaves {fitted} of "
            f"{key}.widths {conj['widths']}; the slope needs at least 3 widths"
        )


def _check_a1_grid(orth: Mapping) -> None:
    """Thesis Fig. 2.3: increasing grids with valid pixels, an n for the printed curve."""
    grid, fig2_3 = orth["a1_grid"], orth["fig2_3"]
    for key in ("batch_sizes", "widths"):
        if list(grid[key]) != sorted(set(grid[key])):
            raise ConfigError(f"{ROOT}.a1_grid.{key} {grid[key]} must be strictly increasing")
    if max(grid["widths"]) < min(grid["batch_sizes"]):
        raise ConfigError(
            f"{ROOT}.a1_grid: no pixel has d >= n ({ROOT}.a1_grid.widths {grid['widths']}, "
            f"{ROOT}.a1_grid.batch_sizes {grid['batch_sizes']}); DJB21 assumes d >= n"
        )
    if max(grid["batch_sizes"]) <= 28:
        raise ConfigError(
            f"{ROOT}.a1_grid.batch_sizes {grid['batch_sizes']} must include an n > 28: "
            "the printed curve d = (n - 28)^1.8 of Thesis Fig. 2.3 is real only there"
        )
    if fig2_3["min_fit_points"] > len(grid["batch_sizes"]):
        raise ConfigError(
            f"{ROOT}.fig2_3.min_fit_points = {fig2_3['min_fit_points']} exceeds the "
            f"{len(grid['batch_sizes'])} {ROOT}.a1_grid.batch_sizes"
        )


def _check_drift_items(orth: Mapping) -> None:
    """DJB21 App. A.3-C items (lemma4, theorem5, lemma6, lemma10, stability): d >= n."""
    lemma4 = orth["lemma4"]
    if max(lemma4["batch_sizes"]) > lemma4["width"]:
        raise ConfigError(
            f"{ROOT}.lemma4.batch_sizes {lemma4['batch_sizes']} exceed "
            f"{ROOT}.lemma4.width = {lemma4['width']}; DJB21 assumes d >= n"
        )
    for item in ("theorem5", "lemma6", "stability"):
        for n, d in orth[item]["cases"]:
            if d < n:
                raise ConfigError(
                    f"{ROOT}.{item}.cases: [n={n}, d={d}] has d < n; DJB21 assumes d >= n"
                )
    n_min, n_max = orth["lemma10"]["batch_sizes"]
    if n_min > n_max:
        raise ConfigError(f"{ROOT}.lemma10.batch_sizes [{n_min}, {n_max}]: n_min exceeds n_max")


def _check_init_items(orth: Mapping) -> None:
    """Relations between the keys of the iterative-orthogonalization items (DJB21 App. E, A.8)."""
    ratios = [float(r) for r in orth["app_e"]["batch_ratios"]]
    if 1.0 not in ratios or not any(r > 1 for r in ratios):
        raise ConfigError(
            f"{ROOT}.app_e.batch_ratios {ratios} must include 1 (n = d, the code "
            "variant's exact case) and a ratio > 1 (n > d, the sliced-V' control)"
        )
    a8 = orth["lemma_a8"]
    if a8["batch_size"] > min(a8["widths"]):
        raise ConfigError(
            f"{ROOT}.lemma_a8.batch_size = {a8['batch_size']} exceeds the smallest "
            f"width {min(a8['widths'])} of {ROOT}.lemma_a8.widths (identity columns)"
        )
    methods = set(orth["init_mlp"]["methods"])
    if not {"xavier", "iterative_code"} <= methods:
        raise ConfigError(
            f"{ROOT}.init_mlp.methods {sorted(methods)} must include xavier and "
            "iterative_code (the init_gap claims compare them)"
        )


def _check_training_items(orth: Mapping) -> None:
    """The training figures' curves exist; Fig. 3b's depth is simulated; the code variant's
    initialization batch holds a sample per unit (its Sigma must be invertible); Table 3's nets
    get 32 x 32 images. (Fig. 3a's correlation needs 4 nets: the schema's 2 depths x 2 runs.)"""
    for name, curves in FIGURE_NETWORKS.items():
        missing = [c for c in curves if c not in orth[name]["networks"]]
        if missing:
            raise ConfigError(
                f"{ROOT}.{name}.networks lacks {missing}: its figures compare {list(curves)}"
            )
    mlp = orth["depth_orthogonality"]
    if orth["fig3b"]["depth"] not in mlp["depths"]:
        raise ConfigError(
            f"{ROOT}.fig3b.depth = {orth['fig3b']['depth']} is not in "
            f"{ROOT}.depth_orthogonality.depths {mlp['depths']}"
        )
    code = any(spec.get("orthogonalize") == "code" for spec in mlp["networks"].values())
    if code and mlp["init_batch_size"] < mlp["width"]:
        raise ConfigError(
            f"{ROOT}.depth_orthogonality.init_batch_size = {mlp['init_batch_size']} is below "
            f"the width {mlp['width']}: the code variant inverts a width x width Sigma"
        )
    convnets = orth["deep_convnets"]
    native = 28 if convnets["dataset"] in ("fashion_mnist", "mnist") else 32
    if max(native, convnets["image_size"]) != 32:
        raise ConfigError(
            f"{ROOT}.deep_convnets.image_size = {convnets['image_size']}: DJB21 Table 3's nets "
            f"take 32 x 32 images ({convnets['dataset']} is {native} x {native})"
        )
