"""Estimates with uncertainty over independent runs, shared by figures and claims.

Runs are the unit of independence: confidence intervals and standard errors always treat the
per-run values as the sample, never the layers of one chain (which are correlated).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = [
    "Estimate",
    "bootstrap_slope",
    "mean_ci",
    "mean_se",
    "ols_slope",
    "per_run_slopes",
    "t_multiplier",
]

BOOTSTRAP_SEED = 20201122
"""Fixed seed of bootstrap resampling, so reruns give byte-identical claims."""


class Estimate(tuple):
    """(value, standard error) pair with names; behaves as a tuple."""

    __slots__ = ()

    def __new__(cls, value: float, se: float):
        return super().__new__(cls, (float(value), float(se)))

    @property
    def value(self) -> float:
        return self[0]

    @property
    def se(self) -> float:
        return self[1]


def mean_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t confidence interval of i.i.d. run values: (mean, low, high)."""
    values = np.asarray(values, dtype=float)
    mean = values.mean()
    if values.size < 2:
        return mean, np.nan, np.nan
    from scipy.special import stdtrit  # the Student-t quantile that scipy.stats.t.ppf calls

    half = stdtrit(values.size - 1, 0.5 + level / 2) * values.std(ddof=1) / np.sqrt(values.size)
    return mean, mean - half, mean + half


def t_multiplier(z: float, n: int) -> float:
    """SE multiplier of a two-sided test at the level of z normal SE with n - 1 df (Student t).

    With few runs the SE is itself noisy; t_{n-1} keeps the false-failure rate at the level of
    a z-SE normal test (z = 3: 0.27%), e.g. 4.53 SE for 8 runs, 3.30 for 28 values. NaN for n < 2.
    """
    from scipy.special import ndtr, stdtrit  # what scipy.stats.norm.cdf and t.ppf call

    return float(stdtrit(n - 1, ndtr(z))) if n > 1 else math.nan


def mean_se(values) -> tuple[float, float]:
    """Mean and standard error of i.i.d. per-run values (NaN SE for a single value)."""
    v = np.asarray(values.cpu() if hasattr(values, "cpu") else values, dtype=float).ravel()
    se = v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else np.nan
    return float(v.mean()), float(se)


def ols_slope(x: np.ndarray, y: np.ndarray) -> Estimate:
    """Least-squares slope of y on x with its classical standard error."""
    from scipy import stats as st

    fit = st.linregress(np.asarray(x, float), np.asarray(y, float))
    return Estimate(fit.slope, fit.stderr)


def bootstrap_slope(
    table: pd.DataFrame,
    x: str,
    y: str,
    run: str = "run",
    log_x: bool = True,
    log_y: bool = True,
    inverse_correction: bool = False,
    n_boot: int = 2000,
) -> Estimate:
    """Slope of (log) mean_run(y) against (log) x; standard error by resampling runs.

    With ``inverse_correction`` the fit is (log) y = a + slope (log) x + c / x, so that the
    slope is the leading power of x with the first finite-size correction absorbed by c.
    Each bootstrap replicate draws runs with replacement independently for every x, averages y
    over the drawn runs, and refits. This measures the run-to-run spread of the fitted slope.

    Args:
        table: one row per (x, run) with the run's value y (e.g. a layer-averaged gap).
    """
    xs = np.sort(table[x].unique())
    groups = [table.loc[table[x] == v, y].to_numpy(float) for v in xs]
    columns = [np.ones(xs.size), np.log(xs) if log_x else xs.astype(float)]
    if inverse_correction:
        columns.append(1.0 / xs)
    design = np.stack(columns, axis=1)
    if design.shape[0] <= design.shape[1] - 1:
        raise ValueError(f"need more than {design.shape[1] - 1} values of {x}, got {xs.size}")

    def fit(means: np.ndarray) -> float:
        fy = np.log(means) if log_y else means
        return np.linalg.lstsq(design, fy, rcond=None)[0][1]

    slope = fit(np.array([g.mean() for g in groups]))
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    reps = np.empty(n_boot)
    for b in range(n_boot):
        reps[b] = fit(np.array([rng.choice(g, g.size).mean() for g in groups]))
    return Estimate(slope, reps.std(ddof=1))


def per_run_slopes(table: pd.DataFrame, x: str, y: str, window: tuple[int, int]) -> np.ndarray:
    """OLS slope of y on x within the closed window, one per run."""
    lo, hi = window
    inside = table[(table[x] >= lo) & (table[x] <= hi)]
    return np.array([ols_slope(g[x], g[y]).value for _, g in inside.groupby("run")])
