"""Checks of the config that a JSON schema cannot express (relations between keys).

The schema (workflow/schemas/config.schema.yaml) checks each key alone; ``check_consistency``
checks that keys agree with each other, before any job runs, with messages naming the keys.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ConfigError", "check_consistency"]


class ConfigError(ValueError):
    """A config value is inconsistent with another; the message names both keys."""


def _window(cfg: Mapping, key: str, depth: int, depth_key: str) -> None:
    first, last = cfg[key]
    if first > last:
        raise ConfigError(f"{key}: first layer {first} is after last layer {last}")
    if last > depth:
        raise ConfigError(f"{key}: last layer {last} exceeds {depth_key} = {depth}")


def check_consistency(config: Mapping) -> None:
    """Raise ``ConfigError`` naming the keys if related values disagree."""
    orth = config["orthogonality"]
    chain, fig2a, fig2b = orth["gap_chain"], orth["fig2a"], orth["fig2b"]
    depth_key = "orthogonality.gap_chain.depth"
    missing = sorted(set(fig2a["widths"]) - set(chain["widths"]))
    if missing:
        raise ConfigError(
            f"orthogonality.fig2a.widths {missing} are not simulated: add them to "
            f"orthogonality.gap_chain.widths {chain['widths']}"
        )
    if fig2a["layers"] > chain["depth"]:
        raise ConfigError(
            f"orthogonality.fig2a.layers = {fig2a['layers']} exceeds {depth_key} = {chain['depth']}"
        )
    _window(fig2a, "decay_window", fig2a["layers"], "orthogonality.fig2a.layers")
    _window(fig2a, "plateau_window", fig2a["layers"], "orthogonality.fig2a.layers")
    _window(fig2b, "window", chain["depth"], depth_key)
    _window(fig2b, "paper_window", chain["depth"], depth_key)
    if len(chain["widths"]) < 4:
        raise ConfigError(
            f"orthogonality.gap_chain.widths {chain['widths']}: the Fig. 2b exponent fit "
            "(log V = a + beta log d + c/d) needs at least 4 widths"
        )
    if chain["batch_size"] > min(chain["widths"]):
        raise ConfigError(
            f"orthogonality.gap_chain.batch_size = {chain['batch_size']} exceeds the smallest "
            f"width {min(chain['widths'])}; DJB21 assumes d >= n"
        )
    _check_real_gap(orth)
    _check_gaussian_chain(orth)
    _check_conjecture_chain(orth)
    _check_a1_grid(orth)
    _check_drift_items(orth)
    _check_orthogonality_init(orth)
    if "gradients" in config:
        _check_gradients_depth(config["gradients"])
        _check_gradients_jac(config["gradients"])
        _check_gradients_table_c1(config["gradients"])
        _check_gradients_gain(config["gradients"])
        _check_gradients_isometry(config)


def _check_real_gap(orth: Mapping) -> None:
    """DJB21 Fig. 5: the windows of ``fig5`` lie in layers 1..real_gap.depth; odd kernel."""
    real, fig5 = orth["real_gap"], orth["fig5"]
    depth_key = "orthogonality.real_gap.depth"
    for key in ("growth_window", "plateau_window"):
        _window(fig5, key, real["depth"], depth_key)
        first, last = fig5[key]
        if first < 1 or last - first < 2:
            raise ConfigError(
                f"orthogonality.fig5.{key} = {fig5[key]}: layers start at 1 (the input) and a "
                "per-batch slope needs at least 3 layers"
            )
    if real["kernel_size"] % 2 == 0:
        raise ConfigError(
            f"orthogonality.real_gap.kernel_size = {real['kernel_size']} must be odd to keep the "
            "ConvNet's maps equal sized"
        )


def _check_gaussian_chain(orth: Mapping) -> None:
    """DJB21 Thm. 1 / Lemma 2 / Cor. 3 / Table 1 items against their simulation."""
    chain = orth["gaussian_chain"]
    depth_key = "orthogonality.gaussian_chain.depth"
    if max(chain["batch_sizes"]) > min(chain["widths"]):
        raise ConfigError(
            f"orthogonality.gaussian_chain.batch_sizes {chain['batch_sizes']} exceed the smallest "
            f"width {min(chain['widths'])}; DJB21 assumes d >= n"
        )
    for item in ("thm1", "w2_depth"):
        missing = sorted(set(orth[item]["widths"]) - set(chain["widths"]))
        if missing:
            raise ConfigError(
                f"orthogonality.{item}.widths {missing} are not simulated: add them to "
                f"orthogonality.gaussian_chain.widths {chain['widths']}"
            )
    _window(orth["thm1"], "decay_window", chain["depth"], depth_key)
    _window(orth["thm1"], "plateau_window", chain["depth"], depth_key)
    _window(orth["w2_width"], "window", chain["depth"], depth_key)
    if orth["w2_depth"]["plateau_from"] > chain["depth"]:
        raise ConfigError(
            f"orthogonality.w2_depth.plateau_from = {orth['w2_depth']['plateau_from']} exceeds "
            f"{depth_key} = {chain['depth']}"
        )
    if orth["table1"]["batch_size"] not in chain["batch_sizes"]:
        raise ConfigError(
            f"orthogonality.table1.batch_size = {orth['table1']['batch_size']} is not in "
            f"orthogonality.gaussian_chain.batch_sizes {chain['batch_sizes']}"
        )


def _check_conjecture_chain(orth: Mapping) -> None:
    """DJB21 Fig. 6: burn-in inside the chain; plotted activations simulated; >= 3 fitted widths."""
    conj, fig6 = orth["conjecture_chain"], orth["fig6"]
    key = "orthogonality.conjecture_chain"
    if conj["burn_in"] >= conj["depth"]:
        raise ConfigError(
            f"{key}.burn_in = {conj['burn_in']} must be below {key}.depth = {conj['depth']}"
        )
    missing = sorted(set(fig6["main"]) - set(conj["activations"]))
    if missing:
        raise ConfigError(
            f"orthogonality.fig6.main {missing} are not simulated: add them to "
            f"{key}.activations {conj['activations']}"
        )
    fitted = [w for w in conj["widths"] if w >= fig6["fit_min_width"]]
    if len(fitted) < 3:
        raise ConfigError(
            f"orthogonality.fig6.fit_min_width = {fig6['fit_min_width']} leaves {fitted} of "
            f"{key}.widths {conj['widths']}; the slope needs at least 3 widths"
        )


def _check_a1_grid(orth: Mapping) -> None:
    """Thesis Fig. 2.3: increasing grids with valid pixels, an n for the printed curve."""
    grid, fig2_3 = orth["a1_grid"], orth["fig2_3"]
    for key in ("batch_sizes", "widths"):
        if list(grid[key]) != sorted(set(grid[key])):
            raise ConfigError(
                f"orthogonality.a1_grid.{key} {grid[key]} must be strictly increasing"
            )
    if max(grid["widths"]) < min(grid["batch_sizes"]):
        raise ConfigError(
            f"orthogonality.a1_grid: no pixel has d >= n (widths {grid['widths']}, batch_sizes "
            f"{grid['batch_sizes']}); DJB21 assumes d >= n"
        )
    if max(grid["batch_sizes"]) <= 28:
        raise ConfigError(
            f"orthogonality.a1_grid.batch_sizes {grid['batch_sizes']} must include an n > 28: "
            "the printed curve d = (n - 28)^1.8 of Thesis Fig. 2.3 is real only there"
        )
    if fig2_3["min_fit_points"] > len(grid["batch_sizes"]):
        raise ConfigError(
            f"orthogonality.fig2_3.min_fit_points = {fig2_3['min_fit_points']} exceeds the "
            f"{len(grid['batch_sizes'])} orthogonality.a1_grid.batch_sizes"
        )


def _check_drift_items(orth: Mapping) -> None:
    """DJB21 App. A.3-C items (lemma4, theorem5, lemma6, lemma10, stability): d >= n."""
    lemma4 = orth["lemma4"]
    if max(lemma4["batch_sizes"]) > lemma4["width"]:
        raise ConfigError(
            f"orthogonality.lemma4.batch_sizes {lemma4['batch_sizes']} exceed "
            f"orthogonality.lemma4.width = {lemma4['width']}; DJB21 assumes d >= n"
        )
    for item in ("theorem5", "lemma6", "stability"):
        for n, d in orth[item]["cases"]:
            if d < n:
                raise ConfigError(
                    f"orthogonality.{item}.cases: [n={n}, d={d}] has d < n; DJB21 assumes d >= n"
                )
    n_min, n_max = orth["lemma10"]["batch_sizes"]
    if n_min > n_max:
        raise ConfigError(
            f"orthogonality.lemma10.batch_sizes [{n_min}, {n_max}]: n_min exceeds n_max"
        )


def _check_orthogonality_init(orth: Mapping) -> None:
    """Relations between the keys of the iterative-orthogonalization items (DJB21 App. E, A.8)."""
    ratios = [float(r) for r in orth["app_e"]["batch_ratios"]]
    if 1.0 not in ratios or not any(r > 1 for r in ratios):
        raise ConfigError(
            f"orthogonality.app_e.batch_ratios {ratios} must include 1 (n = d, the code "
            "variant's exact case) and a ratio > 1 (n > d, the sliced-V' control)"
        )
    a8 = orth["lemma_a8"]
    if a8["batch_size"] > min(a8["widths"]):
        raise ConfigError(
            f"orthogonality.lemma_a8.batch_size = {a8['batch_size']} exceeds the smallest "
            f"width {min(a8['widths'])} of orthogonality.lemma_a8.widths (identity columns)"
        )
    methods = set(orth["init_mlp"]["methods"])
    if not {"xavier", "iterative_code"} <= methods:
        raise ConfigError(
            f"orthogonality.init_mlp.methods {sorted(methods)} must include xavier and "
            "iterative_code (the init_gap claims compare them)"
        )


def _check_gradients_depth(grad: Mapping) -> None:
    """gradients.depth_sweep / depth_claims: the degenerate batch has n samples, and the slope
    window holds at least two simulated depths."""
    if "depth_sweep" not in grad:
        return
    sweep, n = grad["depth_sweep"], grad["data"]["batch_size"]
    deg = sweep["degenerate"]
    if deg["distinct"] * deg["repeats"] != n:
        raise ConfigError(
            f"gradients.depth_sweep.degenerate: distinct x repeats = {deg['distinct']} x "
            f"{deg['repeats']} must equal gradients.data.batch_size = {n} (Fig. 6.2 compares "
            "batches of the same size)"
        )
    if deg["distinct"] >= n:
        raise ConfigError(
            f"gradients.depth_sweep.degenerate.distinct = {deg['distinct']} must be below "
            f"gradients.data.batch_size = {n} for the batch to be degenerate"
        )
    if "depth_claims" in grad:
        lo, hi = grad["depth_claims"]["window"]
        inside = [d for d in sweep["depths"] if lo <= d <= hi]
        if len(inside) < 2:
            raise ConfigError(
                f"gradients.depth_claims.window {[lo, hi]} holds the depths {inside} of "
                f"gradients.depth_sweep.depths {sweep['depths']}: the slope fits need >= 2"
            )


def _check_gradients_jac(grad: Mapping) -> None:
    """Thesis app. C.3 checks: the Lemma C.12 slope window and the C.108 states."""
    c12 = grad.get("lemma_c12")
    if c12 is not None and c12["depth"] - int(c12["late_from"] * c12["depth"]) < 3:
        raise ConfigError(
            f"gradients.lemma_c12.late_from = {c12['late_from']} leaves fewer than 3 layers of "
            f"gradients.lemma_c12.depth = {c12['depth']} for the late slope"
        )
    c14 = grad.get("lemma_c14_c15")
    if c14 is not None and c14["step_states"] > c14["runs"]:
        raise ConfigError(
            f"gradients.lemma_c14_c15.step_states = {c14['step_states']} exceeds "
            f"gradients.lemma_c14_c15.runs = {c14['runs']} (one state per chain at its hitting "
            "time)"
        )


_IMAGE_DIMENSION = {"mnist": 784, "fashion_mnist": 784, "cifar10": 3072, "cifar100": 3072}
"""D of the flattened images of each dataset (Table C.1 stops at n = 512 < 784, app. C.4)."""


def _check_gradients_table_c1(gradients: Mapping) -> None:
    """Thesis Table C.1: batch sizes within every dataset's dimension; controls within batches."""
    item = gradients["table_c1"]
    for dataset in item["datasets"]:
        dim = _IMAGE_DIMENSION[dataset]
        if max(item["batch_sizes"]) > dim:
            raise ConfigError(
                f"gradients.table_c1.batch_sizes {item['batch_sizes']} exceed D = {dim} of "
                f"{dataset} (gradients.table_c1.datasets): such a batch cannot have rank n"
            )
    if item["control_batches"] > item["batches"]:
        raise ConfigError(
            f"gradients.table_c1.control_batches = {item['control_batches']} exceeds "
            f"gradients.table_c1.batches = {item['batches']}"
        )


def _check_gradients_gain(grad: Mapping) -> None:
    """Thesis Figs. 6.5, C.1, C.2 (activation shaping): windows, fit range and baselines."""
    if "gain_depth" in grad:
        gd = grad["gain_depth"]
        if 0.0 not in gd["exponents"]:
            raise ConfigError(
                "gradients.gain_depth.exponents must include 0 (the 'Without gain' panel)"
            )
        if gd["layer"] > min(gd["depths"]):
            raise ConfigError(
                f"gradients.gain_depth.layer = {gd['layer']} exceeds the smallest depth "
                f"{min(gd['depths'])} in gradients.gain_depth.depths"
            )
    if "constant_gain" in grad:
        cg = grad["constant_gain"]
        if any(not cg["gap"] <= k <= cg["depth"] for k in cg["layers"]):
            raise ConfigError(
                f"gradients.constant_gain.layers {cg['layers']} must lie in gap..depth = "
                f"{cg['gap']}..{cg['depth']}"
            )
        if list(cg["gains"]) != sorted(set(cg["gains"])):
            raise ConfigError("gradients.constant_gain.gains must be strictly increasing")
        if "fig_c1" in grad and sum(g >= grad["fig_c1"]["fit_min_gain"] for g in cg["gains"]) < 3:
            raise ConfigError(
                "gradients.fig_c1.fit_min_gain leaves fewer than 3 of gradients.constant_gain.gains"
            )
    if "exponent_rate" in grad:
        er = grad["exponent_rate"]
        if "linear" not in er["activations"] or len(er["activations"]) < 2:
            raise ConfigError(
                "gradients.exponent_rate.activations must include linear (the Fig. C.2 reference) "
                "and a shaped activation"
            )
        if er["from_layer"] + er["gap"] > min(er["depths"]):
            raise ConfigError(
                "gradients.exponent_rate.from_layer + gap exceeds the smallest of "
                "gradients.exponent_rate.depths"
            )
        if list(er["exponents"]) != sorted(set(er["exponents"])):
            raise ConfigError("gradients.exponent_rate.exponents must be strictly increasing")
        if "fig_c2" in grad and grad["fig_c2"]["used_exponent"] not in er["exponents"]:
            raise ConfigError(
                f"gradients.fig_c2.used_exponent = {grad['fig_c2']['used_exponent']} must be one "
                f"of gradients.exponent_rate.exponents {er['exponents']}"
            )
        if "fig_c2" in grad and grad["fig_c2"]["flat_from"] > max(er["exponents"]):
            raise ConfigError(
                "gradients.fig_c2.flat_from exceeds every gradients.exponent_rate.exponents"
            )


def _check_gradients_isometry(config: Mapping) -> None:
    """Thesis Fig. 6.1 and the ch. 6 isometry lemma checks (items of ``gradients``).

    Fig. 6.1's fit window lies in the simulated layers; its width and exponent claims need two
    widths and two runs; Lemma 6.2's d range is ordered; Lemma C.9's Monte Carlo inputs (seeded,
    computed here without the Haar draws) lie on both sides of psi = 1/(16 d).
    """
    grads = config.get("gradients", {})
    chain, fig = grads.get("isometry_chain"), grads.get("fig6_1")
    if chain is not None and fig is not None:
        _window(fig, "fit_window", chain["depth"], "gradients.isometry_chain.depth")
        if len(set(chain["widths"])) < 2 or chain["n_runs"] < 2:
            raise ConfigError(
                f"gradients.isometry_chain.widths {chain['widths']} / n_runs = {chain['n_runs']}: "
                "gradients.fig6_1's width comparison and k-exponent fit need >= 2 widths and "
                ">= 2 runs"
            )
    lemma = grads.get("lemma6_2")
    if lemma is not None and lemma["d_range"][0] > lemma["d_range"][1]:
        raise ConfigError(f"gradients.lemma6_2.d_range {lemma['d_range']} is not ordered")
    c89 = grads.get("lemma_c8_c9")
    if c89 is not None:
        from .theorems.gradients_isometry import input_gaps  # torch only when the item exists

        gaps = input_gaps("lemma_c8_c9", c89["widths"], c89["spreads"])
        low = [psi <= 1 / (16 * d) for (d, _), psi in gaps.items()]
        if all(low) or not any(low):
            side = "<=" if all(low) else ">"
            raise ConfigError(
                f"gradients.lemma_c8_c9.spreads {c89['spreads']}: every input has psi {side} "
                f"1/(16 d) at gradients.lemma_c8_c9.widths {c89['widths']}; Lemma C.9's two "
                "regimes need inputs on both sides (add a smaller and a larger spread)"
            )
