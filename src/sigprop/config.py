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
    bn_chain = config["rank_collapse"]["bn_chain"]
    if 0.5 not in bn_chain["taus"]:
        raise ConfigError(
            f"rank_collapse.bn_chain.taus {bn_chain['taus']} must include 0.5: Fig. 3a plots "
            "rank_1/2"
        )
    if bn_chain["burn_in"] > bn_chain["depth"]:
        raise ConfigError(
            f"rank_collapse.bn_chain.burn_in = {bn_chain['burn_in']} exceeds "
            f"rank_collapse.bn_chain.depth = {bn_chain['depth']}"
        )
    if "mean_field" in config:
        _check_mean_field(config["mean_field"])
    if "isometry" in config:
        _check_isometry_fig5(config["isometry"])
    if "gradients" in config:
        _check_gradients_depth(config["gradients"])
        _check_gradients_jac(config["gradients"])
        _check_gradients_table_c1(config["gradients"])
        _check_gradients_gain(config["gradients"])
        _check_gradients_isometry(config)


def _check_mean_field(mf: Mapping) -> None:
    """Figures 3.1-3.4 read batch sizes and layers that the gram_chain simulation must hold."""
    chain = mf["gram_chain"]
    for fig in ("fig3_1", "fig3_2", "fig3_3"):
        if mf[fig]["batch_size"] not in chain["batch_sizes"]:
            raise ConfigError(
                f"mean_field.{fig}.batch_size = {mf[fig]['batch_size']} is not simulated: add it "
                f"to mean_field.gram_chain.batch_sizes {chain['batch_sizes']}"
            )
    for fig, key in (("fig3_2", "last_layer"), ("fig3_3", "layer"), ("fig3_4", "layer")):
        if mf[fig][key] > chain["depth"]:
            raise ConfigError(
                f"mean_field.{fig}.{key} = {mf[fig][key]} exceeds mean_field.gram_chain.depth = "
                f"{chain['depth']}"
            )
    if not mf["fig3_2"]["plateau_from"] < mf["fig3_2"]["last_layer"] - 1:
        raise ConfigError(
            "mean_field.fig3_2.plateau_from must be below mean_field.fig3_2.last_layer - 1 "
            "(the plateau slope needs >= 3 layers)"
        )
    if "no_bn_linear" not in chain["networks"] or len(chain["networks"]) < 2:
        raise ConfigError(
            "mean_field.gram_chain.networks must contain no_bn_linear and a bn_ network "
            "(Fig. 3.1 compares them)"
        )
    fp = mf["fixed_point"]
    if fp["map_average"] > fp["map_iterations"]:
        raise ConfigError("mean_field.fixed_point.map_average exceeds map_iterations")
    if fp["chain_burn_in"] >= fp["chain_depth"]:
        raise ConfigError("mean_field.fixed_point.chain_burn_in must be below chain_depth")
    if "mixing" in mf and mf["mixing"]["merged_from"] > mf["mixing"]["depth"]:
        raise ConfigError("mean_field.mixing.merged_from must not exceed mean_field.mixing.depth")


def _check_isometry_fig5(iso: Mapping) -> None:
    """Thesis Figs. 5.1 / 5.2: one rho_0 per plotted activation."""
    for item in ("fig5_1", "fig5_2"):
        if item not in iso:
            continue
        cfg = iso[item]
        if len(cfg["rho0"]) != len(cfg["activations"]):
            raise ConfigError(
                f"isometry.{item}.rho0 has {len(cfg['rho0'])} entries but "
                f"isometry.{item}.activations has {len(cfg['activations'])}: one rho_0 per row"
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
