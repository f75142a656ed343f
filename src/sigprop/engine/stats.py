"""Estimates with uncertainty over independent runs, shared by figures and claims.

Runs are the unit of independence: confidence intervals and standard errors always treat the
per-run values as the sample, never the layers of one chain (which are correlated).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

EPS = float(np.finfo(np.float64).eps)
"""float64 machine epsilon, the round-off unit (the value of ``torch.finfo(torch.float64).eps``)."""

__all__ = [
    "DEFAULT_CONFIDENCE",
    "EPS",
    "INTERVAL_METHODS",
    "Estimate",
    "Measurement",
    "bootstrap",
    "correlation",
    "exact",
    "fisher_z",
    "from_se",
    "proportion",
    "slope_measurement",
    "t_mean",
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
    as_measurement: bool = False,
) -> Estimate:
    """Slope of (log) mean_run(y) against (log) x; standard error by resampling runs.

    With ``inverse_correction`` the fit is (log) y = a + slope (log) x + c / x, so that the
    slope is the leading power of x with the first finite-size correction absorbed by c.
    Each bootstrap replicate draws runs with replacement independently for every x, averages y
    over the drawn runs, and refits. This measures the run-to-run spread of the fitted slope.

    Args:
        table: one row per (x, run) with the run's value y (e.g. a layer-averaged gap).
        as_measurement: return a ``Measurement`` holding the replicates (percentile interval)
            instead of (slope, bootstrap SE).
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
    if as_measurement:
        return bootstrap(slope, reps, n=min(g.size for g in groups))
    return Estimate(slope, reps.std(ddof=1))


def per_run_slopes(table: pd.DataFrame, x: str, y: str, window: tuple[int, int]) -> np.ndarray:
    """OLS slope of y on x within the closed window, one per run."""
    lo, hi = window
    inside = table[(table[x] >= lo) & (table[x] <= hi)]
    return np.array([ols_slope(g[x], g[y]).value for _, g in inside.groupby("run")])


# --- Measurements: a number with the data its confidence interval is computed from -----------

INTERVAL_METHODS = ("exact", "t", "se", "bootstrap", "fisher_z", "wilson")
"""How a claim's interval is computed (``Measurement.interval``):

- ``exact``: a deterministic number (closed form, quadrature, a property of the sample itself);
  the interval is the point.
- ``t``: the mean of i.i.d. per-run values; Student-t interval with n - 1 df (no interval, so
  undecided, for a single run).
- ``se``: an estimate with a standard error and its degrees of freedom (an OLS slope: n - 2;
  inf: normal).
- ``bootstrap``: the percentile interval of bootstrap replicates (resampling runs).
- ``fisher_z``: a Pearson correlation of n points, through z = atanh(r) with SE 1/sqrt(n - 3).
- ``wilson``: a proportion k / n of independent trials (Wilson score interval).
"""

DEFAULT_CONFIDENCE = 0.95
"""Two-sided confidence level of every interval unless the config's ``claims.confidence`` says."""


@dataclass(frozen=True)
class Measurement:
    """A claim's measured number and what its confidence interval is computed from.

    Build it with ``exact``, ``t_mean``, ``from_se``, ``bootstrap``, ``fisher_z`` or
    ``proportion``; the interval depends on the confidence level, chosen once per run.

    Attributes:
        value: the point estimate (what the figure plots, what the ledger's ``measured`` says).
        method: one of ``INTERVAL_METHODS``.
        n: independent units behind it (runs, points, trials; 0 for ``exact``).
        se: the standard error (``t``: sd / sqrt(n); ``se``: as given; else NaN).
        df: degrees of freedom of a ``t`` or ``se`` interval (inf: normal).
        replicates: the bootstrap replicates (``bootstrap`` only).
    """

    value: float
    method: str
    n: int = 0
    se: float = math.nan
    df: float = math.inf
    replicates: tuple = ()

    def __post_init__(self):
        if self.method not in INTERVAL_METHODS:
            raise ValueError(
                f"interval method must be one of {INTERVAL_METHODS}, got {self.method!r}"
            )

    def interval(self, level: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
        """(low, high) at the two-sided confidence ``level``; (-inf, inf) when there is none."""
        v = self.value
        if not math.isfinite(v):
            return (v, v) if self.method == "exact" else (math.nan, math.nan)
        if self.method == "exact":
            return v, v
        if self.method == "bootstrap":
            reps = np.asarray(self.replicates, dtype=float)
            reps = reps[np.isfinite(reps)]
            if reps.size < 2:
                return -math.inf, math.inf
            lo, hi = np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])
            return float(min(lo, v)), float(max(hi, v))
        if self.method == "fisher_z":
            if self.n <= 3 or abs(v) >= 1:
                return (-1.0, 1.0) if self.n <= 3 else (v, v)
            half = _normal_quantile(level) / math.sqrt(self.n - 3)
            z = math.atanh(v)
            return math.tanh(z - half), math.tanh(z + half)
        if self.method == "wilson":
            return _wilson(v, self.n, level)
        # t and se: no interval without a degree of freedom; a NaN SE is a non-finite number
        if not self.df >= 1:
            return -math.inf, math.inf
        if not math.isfinite(self.se):
            return math.nan, math.nan
        half = _t_quantile(level, self.df) * self.se
        return v - half, v + half

    def units_to_decide(self, limit: float, level: float = DEFAULT_CONFIDENCE) -> float:
        """About how many units (runs, points, trials) would put the interval on one side of
        ``limit`` at the observed value and spread (the half width shrinks as 1 / sqrt(n));
        inf when the value sits on the limit or there is no spread to extrapolate from."""
        low, high = self.interval(level)
        gap = abs(self.value - limit)
        if gap == 0 or self.method == "exact":
            return math.inf
        if self.method == "fisher_z":
            if abs(limit) >= 1 or abs(self.value) >= 1:
                return math.inf
            dz = abs(math.atanh(self.value) - math.atanh(limit))
            return math.ceil(3 + (_normal_quantile(level) / dz) ** 2)
        half = max(self.value - low, high - self.value)
        if not math.isfinite(half) or self.n < 2:
            return math.inf
        return float(math.ceil(self.n * (half / gap) ** 2))


def _normal_quantile(level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(0.5 + level / 2))


def _t_quantile(level: float, df: float) -> float:
    if math.isinf(df):
        return _normal_quantile(level)
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.5 + level / 2))


def _wilson(p: float, n: int, level: float) -> tuple[float, float]:
    if n < 1:
        return -math.inf, math.inf
    z = _normal_quantile(level)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def exact(value: float) -> Measurement:
    """A deterministic number: closed form, quadrature, round-off, a property of the sample."""
    return Measurement(float(value), "exact")


def t_mean(values) -> Measurement:
    """The mean of i.i.d. per-run values, with a Student-t interval over runs."""
    v = np.asarray(values.cpu() if hasattr(values, "cpu") else values, dtype=float).ravel()
    if v.size == 0:
        return Measurement(math.nan, "t")
    se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan
    return Measurement(float(v.mean()), "t", n=int(v.size), se=se, df=float(v.size - 1))


def from_se(value: float, se: float, df: float = math.inf, n: int = 0) -> Measurement:
    """An estimate with its standard error and degrees of freedom (e.g. an OLS slope: n - 2)."""
    return Measurement(float(value), "se", n=int(n), se=float(se), df=float(df))


def bootstrap(value: float, replicates, n: int = 0) -> Measurement:
    """An estimate with bootstrap replicates (percentile interval); ``n`` is the number of
    resampled units (runs), which the undecided note extrapolates from."""
    reps = tuple(float(x) for x in np.asarray(replicates, dtype=float).ravel())
    se = float(np.std(reps, ddof=1)) if len(reps) > 1 else math.nan
    return Measurement(float(value), "bootstrap", n=int(n), se=se, replicates=reps)


def fisher_z(r: float, n: int) -> Measurement:
    """A Pearson correlation of n points (interval through Fisher's z = atanh r)."""
    return Measurement(float(r), "fisher_z", n=int(n))


def proportion(successes: int, trials: int) -> Measurement:
    """A share of independent trials (Wilson score interval)."""
    p = successes / trials if trials else math.nan
    return Measurement(float(p), "wilson", n=int(trials))


def correlation(x, y) -> Measurement:
    """Pearson r of paired values with its Fisher-z interval."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    r = float(np.corrcoef(x, y)[0, 1]) if x.size > 1 else math.nan
    return fisher_z(r, x.size)


def slope_measurement(x, y) -> Measurement:
    """OLS slope of y on x with its classical SE and n - 2 degrees of freedom."""
    x = np.asarray(x, float)
    fit = ols_slope(x, y)
    return from_se(fit.value, fit.se, df=x.size - 2, n=x.size)
