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
    _check_orthogonality_init(orth)


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
