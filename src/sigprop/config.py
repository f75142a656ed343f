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
