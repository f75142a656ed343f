"""Helpers of the rank_collapse judges around ``claims.Record`` (candidates for the core).

``judge`` runs records whose ids are ``str.format`` templates over the context (one record list
serves every gamma, activation or case); ``per_run`` and ``paired`` pull the per-run values a
claim's Student-t interval is computed from (runs are the unit of independence), and
``largest_gaps`` the per-run largest distance of two training curves.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from ...engine.stats import Measurement
from ...verdicts.claims import Claim, Record, judge_records

__all__ = ["gamma_label", "judge", "largest_gaps", "over_runs", "paired", "per_run", "ratio"]


def judge(records: Sequence[Record], context: Mapping, prefix: str) -> list[Claim]:
    """``claims.judge_records`` with each record's id formatted over the context."""
    return judge_records([replace(r, id=r.id.format(**context)) for r in records], context, prefix)


def gamma_label(gamma: float) -> str:
    """gamma as an id fragment, of claims and of the chains' random streams
    (``chain_simulations``): 0.1 -> '0.1', inf -> 'inf'."""
    return "inf" if math.isinf(gamma) else f"{gamma:g}"


def per_run(rows: pd.DataFrame, value: str, **where) -> pd.Series:
    """``value`` per run (indexed by run, sorted) on the rows matching ``where``."""
    for key, level in where.items():
        rows = rows[rows[key] == level]
    return rows.set_index("run")[value].sort_index().astype(float)


def paired(a: pd.Series, b: pd.Series) -> np.ndarray:
    """a - b run by run, on the runs both have (runs with the same index are paired)."""
    common = a.index.intersection(b.index)
    return (a.loc[common] - b.loc[common]).to_numpy(float)


def largest_gaps(wide: pd.DataFrame, a: str, b: str) -> pd.Series:
    """Per run, the largest |a - b| of two curves over the log points after initialization (NaN
    if any is NaN); ``wide`` is indexed by (run, point) with a column per curve."""
    gap = (wide[a] - wide[b]).abs()
    gap = gap[gap.index.get_level_values("point") > 0]
    return gap.groupby("run").agg(lambda v: v.max(skipna=False))


def ratio(a: pd.Series, b: pd.Series) -> np.ndarray:
    """a / b run by run, on the runs both have; NaN where b is 0."""
    common = a.index.intersection(b.index)
    den = b.loc[common].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, a.loc[common].to_numpy(float) / den, np.nan)


def over_runs(mean: float, se: float, n_runs: int) -> Measurement:
    """The mean of ``n_runs`` i.i.d. per-run values given as (mean, sd / sqrt(n)), as
    ``stats.t_mean`` would give it from the values themselves (Student t, n - 1 df); for tables
    that store the mean and SE over runs instead of the runs."""
    return Measurement(float(mean), "t", n=int(n_runs), se=float(se), df=float(n_runs - 1))
