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
    _check_drift_items(orth)


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
