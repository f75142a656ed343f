"""Tables of the BN chain (Dan+20 Sec. 4, App. E), torch-free: the ergodic averages of Eq. (49)
and Thm. 14's floor, which the figures plot, the judges read and Cor. 15's measurement uses."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...engine.stats import mean_se
from ...engine.trace_identities import frobenius_drift_from_traces

__all__ = ["cor15_table", "eq52_table", "ergodic_averages", "theorem14_floor"]


def ergodic_averages(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (gamma, width, run): averages over the recorded layers, Dan+20 Eq. (49).

    Every statistic is averaged; ``alpha_hat`` = sum_l Tr diag(M_l^2)^2 / sum_l Tr M_l^3 is a
    ratio of layer averages, not an average of ratios (Def. 3, Eq. (46), App. E).

    Args:
        frame: the BN chain in long form: gamma, width, run, layer, and the statistics of
            ``metrics.spectral_statistics``.
    """
    keys = ["gamma", "width", "run"]
    stats = [c for c in frame.columns if c not in keys + ["layer"]]
    out = frame.groupby(keys, as_index=False)[stats].mean()
    out["alpha_hat"] = out["trace_diag_m2_squared"] / out["trace_m_cubed"]
    return out


def theorem14_floor(alpha_hat, d):
    """sqrt((1 - alpha) d), Dan+20 Thm. 14 / Eq. (62)'s floor on r (times (1 - tau)^2 on
    rank_tau), with alpha_hat of Eq. (49); 0 where alpha_hat >= 1."""
    return np.sqrt(np.clip(1 - np.asarray(alpha_hat, float), 0, None) * d)


def cor15_table(frame: pd.DataFrame, taus: list[float]) -> pd.DataFrame:
    """Per (gamma, width, run, tau): ``min_rank`` (the smallest rank_tau over the recorded layers
    after burn-in), ``bound`` = (1 - tau)^2 sqrt((1 - alpha_hat) d), their ``ratio``, and
    ``increase_fraction``, the fraction of consecutive recorded layers where rank_tau rose.

    Args:
        frame: the ``bn_chain`` simulation in long form (gamma, width, run, layer, statistics).
        taus: the tau of each ``soft_rank_<tau>`` column.
    """
    keys = ["gamma", "width", "run"]
    alpha = ergodic_averages(frame).set_index(keys)["alpha_hat"]
    rows = []
    for (gamma, width, run), chain in frame.sort_values("layer").groupby(keys, sort=True):
        a = float(alpha.loc[(gamma, width, run)])
        for tau in taus:
            ranks = chain[f"soft_rank_{tau:g}"].to_numpy(float)
            bound = (1 - tau) ** 2 * float(theorem14_floor(a, width))
            rows.append(
                {
                    "gamma": gamma, "width": width, "run": run, "tau": tau,
                    "min_rank": ranks.min(), "bound": bound, "ratio": ranks.min() / bound,
                    "increase_fraction": float(np.mean(np.diff(ranks) > 0)),
                    "alpha_hat": a, "layers": len(ranks),
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


def eq52_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (gamma, width): the mean over runs of the per-run ergodic average of
    delta_F / (2 d^2) = 1 - (||M||_F^2 + 4 Tr M^3 - 4 Tr diag(M^2)^2) / d^2, with its SE over runs.

    Args:
        frame: the ``bn_chain`` simulation in long form (gamma, width, run, layer, statistics).
    """
    d = frame["width"].to_numpy(float)
    drift = frobenius_drift_from_traces(
        d, frame["frobenius_m_squared"], frame["trace_m_cubed"], frame["trace_diag_m2_squared"]
    ) / (2 * d**2)
    per_run = frame.assign(normalized_drift=drift).groupby(["gamma", "width", "run"])
    runs = per_run["normalized_drift"].mean().reset_index()
    rows = [
        (gamma, width, *mean_se(g["normalized_drift"].to_numpy()), len(g))
        for (gamma, width), g in runs.groupby(["gamma", "width"], sort=True)
    ]
    return pd.DataFrame(rows, columns=["gamma", "width", "mean_drift", "se", "runs"])
