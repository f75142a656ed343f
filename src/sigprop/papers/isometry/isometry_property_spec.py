"""What Lemma 4.2's measurement (``isometry_properties``) and its judges
(``isometry_property_judges``) share, torch-free: the matrix families and the delta range."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["FAMILIES", "delta_range"]

FAMILIES = ("wishart", "spectrum", "identity", "near_identity", "singular")
"""The random matrix families of Lemma 4.2's cases (see ``lemma4_2``)."""


def delta_range(log10_delta_range: Sequence[float]) -> tuple[float, float]:
    """(lo, hi) of ``log10_delta_range`` as floats: the log10 range of the perturbation delta."""
    lo, hi = (float(v) for v in log10_delta_range)
    return lo, hi
