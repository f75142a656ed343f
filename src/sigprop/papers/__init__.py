"""The paper families, one package each: ``sigprop.papers.<family>``.

A family package holds its item table (``items.py``: ``ITEMS``, its simulations, figures, tables
and theorem checks; optionally ``CHECK_CONFIG``, the cross-key check of its config; its
docstring names the seed it reproduces), its simulations, judges and theorem measurements, and
the mathematics only it uses. It imports the core library
(``sigprop.engine.ops``, ``metrics``, ``chains``, ...) and itself, never another family.

May import: ``base``, ``engine``, ``datasets``, ``nets``, ``training``,
``verdicts``; a family imports these and itself, never another family."""

from __future__ import annotations

import importlib

from ..base.registry import Registry

__all__ = ["FAMILIES", "load_registry"]

FAMILIES = ("rank_collapse", "orthogonality", "mean_field", "isometry", "gradients")
"""Paper families in seed order; their names prefix rule outputs and claim ids."""


def load_registry() -> Registry:
    """Import every family's ``items.py`` into one ``Registry``."""
    registry = Registry()
    for family in FAMILIES:
        items = importlib.import_module(f"{__name__}.{family}.items")
        registry.add_family(
            family, list(items.ITEMS), check_config=getattr(items, "CHECK_CONFIG", None)
        )
    return registry
