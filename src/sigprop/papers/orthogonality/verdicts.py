"""Small helpers of the orthogonality judges around ``claims.Record`` and ``stats.Measurement``
(candidates for the claims core).

- ``judge``: ``claims.judge_records`` whose record ids are ``str.format`` templates too (claims
  repeated per width, activation or network share one module-level record);
- ``mean_of``: the Measurement of a mean over ``n`` independent runs given as (mean, SE);
- ``worst``: among several Measurements of one relation, the one whose interval is least
  favourable to it (the state, cell or layer that decides a "for every ..." claim);
- ``paired``: per-run paired differences of two per-run series (runs share an initial draw);
- ``local_slopes``: the log-log slopes of a per-width mean between consecutive widths.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...engine.stats import Measurement, from_se
from ...verdicts.claims import Claim, Record, confidence_level, judge_records

__all__ = ["FAMILY", "judge", "local_slopes", "mean_of", "paired", "worst"]

FAMILY = "orthogonality."


def judge(records: Sequence[Record], context: Mapping, item: str) -> list[Claim]:
    """Evaluate ``records`` on ``context`` with ids ``orthogonality.<item>.<id>``, where a
    record's id may hold ``{name}`` fields of the context (e.g. ``decay_d{d}``)."""
    return judge_records(records, context, prefix=f"{FAMILY}{item}.")


def mean_of(mean: float, se: float, n: int) -> Measurement:
    """A mean over ``n`` independent runs given by its value and standard error: Student t with
    n - 1 degrees of freedom (no interval for one run)."""
    return from_se(mean, se, df=max(int(n) - 1, 0), n=int(n))


def worst(measurements: Sequence[Measurement], relation: str, bound: float = 0.0) -> int:
    """Index of the measurement whose interval is least favourable to ``relation bound``: the
    largest upper end (``<=``), the smallest lower end (``>=``), or the end farthest from the
    bound (``within``). A non-finite value wins (its claim is then invalid). -1 if empty."""
    if not measurements:
        return -1
    level = confidence_level()
    scores = []
    for m in measurements:
        if not math.isfinite(m.value):
            return measurements.index(m)
        low, high = m.interval(level)
        if relation == "<=":
            scores.append(high)
        elif relation == ">=":
            scores.append(-low)
        else:
            scores.append(max(abs(low - bound), abs(high - bound)))
    return int(np.argmax(np.nan_to_num(scores, nan=np.inf)))


def paired(a: pd.Series, b: pd.Series) -> np.ndarray:
    """a - b per run (indexes aligned by run; runs missing from either are dropped)."""
    both = pd.concat([a, b], axis=1, join="inner")
    return (both.iloc[:, 0] - both.iloc[:, 1]).to_numpy(float)


def local_slopes(means: pd.Series) -> np.ndarray:
    """Slopes of log mean against log width between consecutive widths, for a per-width mean
    indexed by width in increasing order (the exponent of a power law, piece by piece)."""
    return np.diff(np.log(means.to_numpy())) / np.diff(np.log(means.index.to_numpy(float)))
