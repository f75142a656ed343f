"""Checks of the config that a JSON schema cannot express (relations between keys).

The schema (workflow/schemas/config.schema.yaml) checks each key alone. Each paper family checks
the relations between its own keys (``sigprop.papers.<family>.config_checks``, run through the
registry before any job) with the helpers here; every message names the full key paths.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

__all__ = ["ConfigError", "check_window", "merge_configs"]


def merge_configs(base: Mapping, over: Mapping | None) -> dict:
    """``over`` merged into a copy of ``base`` key by key, as Snakemake merges config files
    (``--configfile`` after ``configfile:``): nested mappings merge, anything else replaces."""
    out = copy.deepcopy(dict(base))
    for key, value in (over or {}).items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge_configs(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


class ConfigError(ValueError):
    """A config value is inconsistent with another; the message names both keys."""


def check_window(window: Sequence[int], key: str, depth: int, depth_key: str) -> None:
    """A closed layer window [first, last] is ordered and ends by ``depth``.

    Args:
        window: the value of ``key``.
        key, depth_key: full key paths for the message, e.g. ``orthogonality.fig2b.window``.
    Raises:
        ConfigError: naming both keys.
    """
    first, last = window
    if first > last:
        raise ConfigError(f"{key} = [{first}, {last}]: first layer {first} is after last layer")
    if last > depth:
        raise ConfigError(
            f"{key} = [{first}, {last}]: last layer {last} exceeds {depth_key} = {depth}"
        )
