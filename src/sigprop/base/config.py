"""Checks of the config that a JSON schema cannot express (relations between keys).

The schema (workflow/schemas/config.schema.yaml) checks each key alone. Each paper family checks
the relations between its own keys (``sigprop.papers.<family>.config_checks``, run through the
registry before any job) with the helpers here; every message names the full key paths.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = [
    "SCHEMA",
    "load_schema",
    "ConfigError",
    "check_positive",
    "check_positive_integers",
    "check_widths",
    "check_window",
    "merge_configs",
]


SCHEMA = Path("workflow/schemas/config.schema.yaml")
"""The config schema (JSON Schema 2020-12), relative to the repository root. Each family's slice
is its own file beside it (``<family>.schema.yaml``), referenced by ``$ref``; Snakemake's
``validate`` resolves the references itself."""


def load_schema(path: str | os.PathLike = SCHEMA) -> dict:
    """The config schema at ``path`` as one document: each family's file inlined where the top
    file references it, and its references to the top file's ``$defs`` made local again."""
    import yaml

    path = Path(path)
    schema = yaml.safe_load(path.read_text())
    for name, node in schema.get("properties", {}).items():
        if set(node) == {"$ref"} and not node["$ref"].startswith("#"):
            part = yaml.safe_load((path.parent / node["$ref"]).read_text())
            part.pop("$schema", None)
            schema["properties"][name] = _local_refs(part, f"{path.name}#")
    return schema


def _local_refs(node, prefix: str):
    """``node`` with each ``$ref`` that starts with ``prefix`` (``config.schema.yaml#``) local."""
    if isinstance(node, dict):
        return {
            k: "#" + v.removeprefix(prefix) if k == "$ref" and v.startswith(prefix)
            else _local_refs(v, prefix)
            for k, v in node.items()
        }  # fmt: skip
    if isinstance(node, list):
        return [_local_refs(v, prefix) for v in node]
    return node


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
