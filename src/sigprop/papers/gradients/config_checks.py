"""Cross-key checks of the ``gradients`` config (Thesis ch. 6 / app. C), before any job runs.

``check_config`` takes the whole config and raises ``sigprop.base.config.ConfigError`` naming the
keys (full paths) when related values disagree; the schema checks each key alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...base.config import ConfigError, check_window

__all__ = ["check_config"]


def check_config(config: Mapping) -> None:
    """Raise ``ConfigError`` naming the keys if related ``gradients`` values disagree."""
    if "gradients" not in config:
        return
    grad = config["gradients"]
    _check_depth(grad)
    _check_jac(grad)
    _check_table_c1(grad)
    _check_gain(grad)
    _check_isometry(config)
    _check_training(grad)


def _check_depth(grad: Mapping) -> None:
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


def _check_jac(grad: Mapping) -> None:
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


def _check_table_c1(gradients: Mapping) -> None:
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


def _check_gain(grad: Mapping) -> None:
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


def _check_isometry(config: Mapping) -> None:
    """Thesis Fig. 6.1 and the ch. 6 isometry lemma checks (items of ``gradients``).

    Fig. 6.1's fit window lies in the simulated layers; its width and exponent claims need two
    widths and two runs; Lemma 6.2's d range is ordered. (That Lemma C.9's Monte Carlo inputs
    straddle psi = 1/(16 d) needs their draws: ``measure_lemma_c8_c9`` checks it before its
    compute, so that checking a config draws nothing.)
    """
    grads = config.get("gradients", {})
    chain, fig = grads.get("isometry_chain"), grads.get("fig6_1")
    if chain is not None and fig is not None:
        check_window(fig["fit_window"], "gradients.fig6_1.fit_window", chain["depth"],
                "gradients.isometry_chain.depth")  # fmt: skip
        if len(set(chain["widths"])) < 2 or chain["n_runs"] < 2:
            raise ConfigError(
                f"gradients.isometry_chain.widths {chain['widths']} / n_runs = {chain['n_runs']}: "
                "gradients.fig6_1's width comparison and k-exponent fit need >= 2 widths and "
                ">= 2 runs"
            )
    lemma = grads.get("lemma6_2")
    if lemma is not None and lemma["d_range"][0] > lemma["d_range"][1]:
        raise ConfigError(f"gradients.lemma6_2.d_range {lemma['d_range']} is not ordered")


TRAINING_SIMULATIONS = (
    "shaped_cifar10", "shaped_mnist", "shaped_fmnist", "shaped_cifar100", "weight_orthogonality",
)  # fmt: skip
"""The training simulations (Figs. 6.4, 6.6, C.3-C.8), each reading ``gradients.training``."""


def _check_training(grad: Mapping) -> None:
    """Training figures: every subset holds the probe batch and a minibatch; Fig. C.3's depth
    claim compares at least two depths."""
    shared = grad.get("training")
    if shared is None:
        return
    for name in TRAINING_SIMULATIONS:
        item = grad.get(name)
        if item is None:
            continue
        size = item["train_size"]
        for key in ("batch_size", "probe_size"):
            if size and shared[key] > size:
                raise ConfigError(
                    f"gradients.training.{key} = {shared[key]} exceeds "
                    f"gradients.{name}.train_size = {size}"
                )
    if "shaped_cifar10" in grad and "fig6_4" in grad:
        depths = grad["shaped_cifar10"]["depths"]
        if len(set(depths)) < 2:
            raise ConfigError(
                f"gradients.shaped_cifar10.depths {depths} must hold >= 2 depths "
                "(gradients.fig6_4 compares the accuracy at the shallowest and the deepest)"
            )
    if "weight_orthogonality" in grad and "fig_c3" in grad:
        depths = grad["weight_orthogonality"]["depths"]
        if len(set(depths)) < 2 or list(depths) != sorted(depths):
            raise ConfigError(
                f"gradients.weight_orthogonality.depths {depths} must be >= 2 increasing depths "
                "(gradients.fig_c3 compares the middle layers' gap from each depth to the next)"
            )
