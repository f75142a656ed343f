"""Curves of trained networks as the figures read them (torch-free: pandas on the plotted
numbers): the grid search over step sizes, the rows at initialization, per-point means.

A table has one row per (network, depth, lr, run, point) with the logged metrics
(``training.experiment.network_training``, loaded with ``store.load_frame``).
"""

from __future__ import annotations

import pandas as pd

from ..engine.stats import mean_se

__all__ = [
    "LOWER_IS_BETTER",
    "chosen_learning_rates",
    "curves_at_chosen_rates",
    "initial_rows",
    "mean_se_at",
    "per_point_means",
    "slowdown",
]

LOWER_IS_BETTER = ("train_loss", "test_loss")


def chosen_learning_rates(final: pd.DataFrame, metric: str = "train_accuracy") -> pd.DataFrame:
    """The grid search: per (network, depth) the learning rate with the best mean ``metric``
    over runs at the last log point (lowest for a loss, highest otherwise; grid points with a
    diverged run have a NaN mean and are skipped). Returns network, depth, lr."""
    means = final.groupby(["network", "depth", "lr"], as_index=False)[metric].mean(skipna=False)
    groups = means.groupby(["network", "depth"])[metric]
    lost = groups.count() == 0
    if lost.any():
        raise ValueError(
            f"every learning rate diverged for (network, depth) {lost[lost].index.tolist()}"
        )
    best = groups.idxmin() if metric in LOWER_IS_BETTER else groups.idxmax()
    return means.loc[best, ["network", "depth", "lr"]].reset_index(drop=True)


def curves_at_chosen_rates(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Every log point of each (network, depth) at the learning rate chosen by ``metric`` at
    the last point: the rows a curves-over-epochs figure plots."""
    final = table[table["point"] == table["point"].max()]
    return table.merge(chosen_learning_rates(final, metric), on=["network", "depth", "lr"])


def per_point_means(curves: pd.DataFrame, network: str, metric: str) -> pd.Series:
    """Mean over runs of ``metric`` at each log point (indexed by point), for one network; NaN
    where a run is NaN (a diverged or dead run is never averaged away)."""
    rows = curves[curves["network"] == network]
    if rows.empty:
        raise ValueError(f"no curve named {network!r}")
    return rows.groupby("point")[metric].mean(skipna=False)


def initial_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Point 0 (after initialization and any pre-training) at one learning rate: the grid
    points of a run share their initial network."""
    return table[(table["point"] == 0) & (table["lr"] == table["lr"].min())]


def mean_se_at(rows: pd.DataFrame, value: str, **where) -> tuple[float, float]:
    """Mean and SE over runs of ``value`` on the rows matching ``where`` (column == value)."""
    for key, level in where.items():
        rows = rows[rows[key] == level]
    if rows.empty:
        raise ValueError(f"no rows with {where}")
    return mean_se(rows[value].to_numpy())


def slowdown(final: pd.DataFrame, network: str, metric: str) -> float:
    """How much worse ``metric`` gets from the shallowest to the deepest depth (positive =
    slower with depth; a loss rises, an accuracy falls)."""
    shallow, deep = final["depth"].min(), final["depth"].max()
    a, _ = mean_se_at(final, metric, network=network, depth=shallow)
    b, _ = mean_se_at(final, metric, network=network, depth=deep)
    return b - a if metric in LOWER_IS_BETTER else a - b
