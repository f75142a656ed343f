"""Checks of the config that a JSON schema cannot express (relations between keys).

The schema (workflow/schemas/config.schema.yaml) checks each key alone. Each paper family checks
the relations between its own keys (``sigprop.papers.<family>.config_checks``, run through the
registry before any job) with the helpers here; every message names the full key paths.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

__all__ = [
    "ConfigError",
    "check_positive",
    "check_positive_integers",
    "check_widths",
    "check_window",
    "merge_configs",
]


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


def check_positive(**values: float) -> None:
    """A ValueError naming the first value that is not > 0."""
    for name, value in values.items():
        if not value > 0:
            raise ValueError(f"{name} must be > 0, got {value}")


def check_positive_integers(**values: int) -> None:
    """A ValueError naming the first value that is not a positive integer."""
    for name, value in values.items():
        if int(value) != value or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


def check_widths(widths: Sequence[int], lo: int = 2) -> list[int]:
    """``widths`` as ints; a ValueError unless it is non-empty and every width is >= ``lo``."""
    out = [int(d) for d in widths]
    if not out or min(out) < lo:
        raise ValueError(f"widths must be a non-empty list of integers >= {lo}, got {widths}")
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
