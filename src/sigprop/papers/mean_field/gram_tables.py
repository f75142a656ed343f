"""Tables of Thesis ch. 3 (JDB23a) Figs. 3.1-3.4, torch-free: the bands the figures draw and
the decay-plateau shape of Thm. 3.2, Eq. (3.9), which the figures draw and the judges read."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...engine import stats

__all__ = ["band", "decay_plateau_shape", "fit_decay_plateau"]


def band(table: pd.DataFrame, x: str, y: str, by: str, level: float) -> pd.DataFrame:
    """Mean over runs of y per (by, x) with the Student-t ``level`` CI: by, x, mean, low, high."""
    rows = []
    for (b, xv), g in table.groupby([by, x], sort=False):
        rows.append((b, xv, *stats.mean_ci(g[y].to_numpy(float), level)))
    return pd.DataFrame(rows, columns=[by, x, "mean", "low", "high"])


def decay_plateau_shape(layers, c1: float, alpha: float, c2: float, n: int, d: int):
    """c1 (1 - alpha)^{l/2} + c2 n / sqrt(d): the shape of Thm. 3.2's bound, Eq. (3.9)."""
    return c1 * (1.0 - alpha) ** (np.asarray(layers, float) / 2.0) + c2 * n / math.sqrt(d)


def fit_decay_plateau(layers, means, n: int, d: int) -> tuple[float, float, float]:
    """Least-squares fit of c1 (1 - alpha)^{l/2} + c2 n / sqrt(d) to a mean curve (Eq. (3.9)).

    The thesis gives neither constants nor alpha; this is the shape of its bound, fitted.
    Returns (c1, alpha, c2).
    """
    layers, means = np.asarray(layers, float), np.asarray(means, float)
    scale = n / math.sqrt(d)

    def model(x, c1, alpha, c2):
        return decay_plateau_shape(x, c1, alpha, c2, n, d)

    p0 = (max(means[0] - means[-1], 1e-3), 0.3, means[-1] / scale)
    bounds = ([0.0, 1e-6, 0.0], [np.inf, 1.0 - 1e-9, np.inf])
    from scipy.optimize import curve_fit  # lazy: most jobs that import this module never fit

    popt, _ = curve_fit(model, layers, means, p0=p0, bounds=bounds, maxfev=20000)
    return tuple(float(v) for v in popt)
