"""Measurement helpers of the gradients judges (candidates for ``sigprop.engine.stats`` /
``sigprop.verdicts.claims``).

- ``welch``: the difference of the means of two independent samples of runs (Welch's t).
- ``least_favourable``: of several measurements of one claim ("every network", "every width"),
  the one whose interval is least favourable to the relation at the current confidence level,
  so that "measured is the worst case" keeps an interval of its own data.
- ``roundoff``: a deterministic round-off residual in units (``stats.exact``).
- ``measured_part``: the rows of one ``kind`` of a measured table that stacks several parts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...engine import stats
from ...engine.stats import Measurement
from ...verdicts import claims

__all__ = [
    "welch_from_summaries",
    "least_favourable",
    "measured_part",
    "most_favourable",
    "welch",
    "per_run",
    "roundoff",
]


def measured_part(table: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The rows of one ``kind`` of a measured table (the parts a measurement stacks with a
    ``kind`` column), without that column and renumbered from 0 as when measured."""
    return table[table["kind"] == kind].drop(columns="kind").reset_index(drop=True)


def per_run(values) -> Measurement:
    """``stats.t_mean`` of per-run values (NaN propagates: a diverged run makes it invalid)."""
    v = np.asarray(values, dtype=float).ravel()
    if v.size and not np.isfinite(v).all():
        return Measurement(math.nan, "t", n=int(v.size))
    return stats.t_mean(v)


def welch(a, b) -> Measurement:
    """mean(a) - mean(b) of two independent samples of runs, with Welch's standard error and
    Welch-Satterthwaite degrees of freedom (``stats.from_se``)."""
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    diff = float(a.mean() - b.mean()) if a.size and b.size else math.nan
    if a.size < 2 or b.size < 2 or not math.isfinite(diff):
        return stats.from_se(diff, math.nan, df=0, n=int(a.size + b.size))
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    denominator = va**2 / (a.size - 1) + vb**2 / (b.size - 1)
    df = (va + vb) ** 2 / denominator if denominator > 0 else float(a.size + b.size - 2)
    return stats.from_se(diff, se, df=df, n=int(a.size + b.size))


def welch_from_summaries(mean_a, sd_a, n_a, mean_b, sd_b, n_b) -> Measurement:
    """``welch`` from two samples' means, standard deviations and sizes."""
    va, vb = sd_a**2 / n_a, sd_b**2 / n_b
    se = math.sqrt(va + vb)
    denominator = va**2 / max(n_a - 1, 1) + vb**2 / max(n_b - 1, 1)
    df = (va + vb) ** 2 / denominator if denominator > 0 else float(n_a + n_b - 2)
    if se == 0:
        return stats.exact(mean_a - mean_b)
    return stats.from_se(mean_a - mean_b, se, df=df, n=int(n_a + n_b))


def least_favourable(measurements: Mapping, relation: str):
    """(key, measurement) of the least favourable interval at the current confidence level:
    the lowest lower limit for ``>=``, the highest upper limit for ``<=``, the farthest limit
    from 0 for ``within`` (a NaN one first: it makes the claim invalid)."""
    level = claims.confidence_level()

    def badness(item):
        m = item[1]
        low, high = m.interval(level)
        if not (math.isfinite(m.value) and not math.isnan(low) and not math.isnan(high)):
            return math.inf
        if relation == ">=":
            return -low
        if relation == "<=":
            return high
        return max(abs(low), abs(high))

    return max(measurements.items(), key=badness)


def most_favourable(measurements: Mapping, relation: str):
    """(key, measurement) of the most favourable interval (for "in some case" claims): the
    highest lower limit for ``>=``, the lowest upper limit for ``<=``."""
    level = claims.confidence_level()

    def goodness(item):
        low, high = item[1].interval(level)
        if math.isnan(low) or math.isnan(high):
            return -math.inf
        return low if relation == ">=" else -high

    return max(measurements.items(), key=goodness)


def roundoff(value: float) -> Measurement:
    """A deterministic residual (round-off, a count, a maximum over cases): ``stats.exact``."""
    return stats.exact(float(value))
