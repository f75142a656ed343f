"""Worst case of a claim made for every case (activation, width, ...), each with its interval.

A claim "for every case, X <= bound" holds when every case's interval satisfies it, fails when
some case's interval violates it entirely, and is undecided otherwise. ``worst_case`` returns the
one case whose interval decides that verdict, so a judge can report it as the claim's measured
value (candidate for ``sigprop.claims``: the lead may hoist it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...claims import confidence_level, decide
from ...stats import Measurement

__all__ = ["worst_case"]

_RANK = {"fails": 0, "invalid": 1, "undecided": 2, "holds": 3}


def _distance(low: float, high: float, relation: str, bound: float, tolerance: float) -> float:
    """How far the interval's worst end lies past the accepted range (larger is worse)."""
    if relation == "<=":
        return high - (bound + tolerance)
    if relation == ">=":
        return (bound - tolerance) - low
    return max(high - (bound + tolerance), (bound - tolerance) - low)


def worst_case(
    cases: Mapping[str, Measurement], relation: str, bound: float, tolerance: float = 0.0
) -> tuple[str, Measurement]:
    """The case that decides "for every case: measured relation bound (+- tolerance)".

    A failing case if there is one (the one whose interval lies farthest past the limit),
    else an invalid one, else an undecided one, else the holding case nearest its limit.

    Raises:
        ValueError: no cases.
    """
    if not cases:
        raise ValueError("worst_case needs at least one case")
    level = confidence_level()

    def key(item):
        low, high = item[1].interval(level)
        verdict = decide(low, high, relation, bound, tolerance)
        if not math.isfinite(item[1].value):
            verdict = "invalid"
        dist = _distance(low, high, relation, bound, tolerance)
        return (_RANK[verdict], -dist if math.isfinite(dist) else -math.inf)

    return min(cases.items(), key=key)
