"""One figure style for every family: seaborn's theme, mean with 95% CI bands, deterministic files.

The style is seaborn's ``set_theme(context="paper", style="whitegrid", font_scale=1.1)`` written
out as a matplotlib style file (``figure_style.mplstyle``), so a draw job does not import seaborn.

PDF and PNG are written without timestamps or producer strings, so rerunning a figure rule on the
same inputs gives byte-identical files (our reproducibility requirement, tested in
tests/test_plotting.py).
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..base.store import atomic_path  # noqa: E402
from ..engine import stats  # noqa: E402

__all__ = [
    "PALETTE",
    "RANGES",
    "STYLE",
    "colors",
    "figure",
    "mean_ci",
    "metric_grid",
    "metric_panels",
    "quantity_range",
    "run_summary",
    "save",
    "twin_mean_ci",
    "width_axis",
]

STYLE = Path(__file__).with_name("figure_style.mplstyle")
"""seaborn's paper/whitegrid theme at font scale 1.1 with the "deep" palette, as rcParams."""

PALETTE = {"BN": "#1f77b4", "vanilla": "#ff7f0e", "pre-trained": "#2ca02c"}
"""Dan+20 Fig. 2 colours: blue for BN, orange for vanilla; reused across families."""


def figure(ncols: int = 1, nrows: int = 1, width: float = 4.0, height: float = 3.2, **kwargs):
    """A new figure in the sigprop style; returns (fig, axes) like ``plt.subplots``."""
    plt.style.use(STYLE)
    plt.rcParams.update({"svg.hashsalt": "sigprop", "figure.dpi": 100})
    return plt.subplots(
        nrows, ncols, figsize=(width * ncols, height * nrows), constrained_layout=True, **kwargs
    )


def colors(n: int, colormap: str | None = None) -> list:
    """``n`` colours: the style's cycle ("deep", repeating past its ten), or a matplotlib
    colormap sampled at n interior points, as ``seaborn.color_palette(colormap, n)`` does."""
    if colormap is not None:
        return list(matplotlib.colormaps[colormap](np.linspace(0, 1, n + 2)[1:-1]))
    plt.style.use(STYLE)
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return list(itertools.islice(itertools.cycle(cycle), n))


def _mean_sd(values) -> tuple[float, float, float]:
    mean, sd = values.mean(), values.std(ddof=1)
    return mean, mean - sd, mean + sd


RANGES = {
    "accuracy": (0.0, 1.0),
    "fraction": (0.0, 1.0),
    "alignment": (0.0, 1.0),
    "rank": (0.0, None),
}
"""The possible range of common quantities, for ``clip="auto"`` (``quantity_range``)."""


def quantity_range(column: str) -> tuple[float | None, float | None] | None:
    """The possible range of ``column`` by its name, or None when unknown: an accuracy, a
    ``*_fraction`` or an alignment (mean |cos|) in [0, 1]; a rank (``rank``, ``soft_rank_*``,
    ``r_lower_bound``) >= 0; nothing for a logarithm (``log_*``), which may be negative."""
    if column.startswith("log"):
        return None
    for key in ("accuracy", "fraction", "alignment"):
        if key in column:
            return RANGES[key]
    if "rank" in column or column == "r_lower_bound":
        return RANGES["rank"]
    return None


def _clip_range(clip, y: str):
    if clip is None:
        return None
    if isinstance(clip, str):
        if clip != "auto":
            raise ValueError(f"clip must be None, 'auto' or (low, high), got {clip!r}")
        return quantity_range(y)
    return tuple(clip)


def run_summary(
    table: pd.DataFrame,
    x: str,
    y: str,
    by: list[str] | None = None,
    band: str = "ci",
    clip="auto",
    level: float = 0.95,
) -> pd.DataFrame:
    """Mean of y over runs at each x (and group) with a band: x, *by, mean, low, high.

    ``band="ci"``: Student-t confidence interval of the mean at ``level`` (the claims' interval
    over runs, ``stats.t_mean``); ``"sd"``: mean +- one standard deviation over runs (Dan+20
    Fig. 3: "mean and standard deviation"). ``clip``: ``"auto"`` (the default:
    ``quantity_range(y)``), ``(low, high)`` (either may be None) or None (no clipping): the band
    is cut to the range the quantity can take (a rank >= 0, an accuracy in [0, 1]), in every
    family's figures.
    """
    if band not in ("ci", "sd"):
        raise ValueError(f"band must be 'ci' or 'sd', got {band!r}")
    summarize = (lambda v: stats.mean_ci(v, level)) if band == "ci" else _mean_sd
    keys = [x, *(by or [])]
    rows = [
        (*(k if isinstance(k, tuple) else (k,)), *summarize(g.to_numpy()))
        for k, g in table.groupby(keys, sort=True)[y]
    ]
    out = pd.DataFrame(rows, columns=[*keys, "mean", "low", "high"])
    bounds = _clip_range(clip, y)
    if bounds is not None:
        low, high = bounds
        out[["low", "high"]] = out[["low", "high"]].clip(lower=low, upper=high)
    return out


def mean_ci(
    ax,
    table: pd.DataFrame,
    x: str,
    y: str,
    hue: str | None = None,
    palette=None,
    band: str = "ci",
    clip="auto",
    **kwargs,
):
    """Plot the mean over runs with a shaded Student-t 95% CI band, one line per hue level.

    ``table`` holds one row per (x, hue, run); the band is the confidence interval of the mean
    over the runs (the seeds' usual band, e.g. DJB21 Fig. 3 and Thesis Fig. 6.3: mean and 95%
    confidence interval over independent runs), or with ``band="sd"``
    one standard deviation. ``clip`` (``run_summary``) cuts the band to the quantity's range.
    """
    summary = run_summary(table, x, y, [hue] if hue else None, band, clip)
    levels = list(dict.fromkeys(summary[hue])) if hue else [None]
    cycle = palette if isinstance(palette, list | dict) else colors(len(levels), palette)
    for i, level in enumerate(levels):
        part = summary if level is None else summary[summary[hue] == level]
        color = palette[level] if isinstance(palette, dict) else cycle[i]
        label = kwargs.pop("label", None) if level is None else str(level)
        ax.plot(part[x], part["mean"], color=color, label=label, **kwargs)
        ax.fill_between(part[x], part["low"], part["high"], color=color, alpha=0.25, lw=0)
    if hue:
        ax.legend(title=hue)
    return ax


def facet_mean_ci(axes, table: pd.DataFrame, facet: str, title: str, **kwargs) -> None:
    """``mean_ci`` once per level of ``facet`` (ascending), on ``axes`` in order; each panel
    titled ``title.format(level)``; ``kwargs`` go to ``mean_ci``."""
    levels = sorted(table[facet].unique())
    if len(levels) != len(axes):
        raise ValueError(f"{len(levels)} levels of {facet!r} for {len(axes)} axes")
    for ax, level in zip(axes, levels, strict=True):
        mean_ci(ax, table[table[facet] == level], **kwargs)
        ax.set_title(title.format(level))


def metric_grid(
    table: pd.DataFrame, rows: dict[str, str], facet: str, facet_title: str, x: str, **kwargs
):
    """A grid of ``mean_ci`` panels: one row per metric of ``rows`` (column -> y label), one
    column per level of ``facet``; accuracies on [0, 1]; ``kwargs`` (e.g. ``clip="auto"``) go to
    ``mean_ci``. Returns (fig, axes)."""
    n_cols = table[facet].nunique()
    fig, axes = figure(ncols=n_cols, nrows=len(rows), width=3.4, squeeze=False)
    for ax_row, (metric, label) in zip(axes, rows.items(), strict=True):
        facet_mean_ci(ax_row, table, facet, facet_title, x=x, y=metric, **kwargs)
        for ax in ax_row:
            ax.set(xlabel=x, ylabel=label)
            if "accuracy" in metric:
                ax.set_ylim(0, 1)
    return fig, axes


def metric_panels(table: pd.DataFrame, panels: dict[str, str], x: str, hue: str, clip=None):
    """One ``mean_ci`` panel per metric of ``panels`` (column -> y label), side by side, one
    line per ``hue`` level in order of appearance; accuracies on [0, 1]; ``clip`` goes to
    ``mean_ci`` (``"auto"``: each band within its quantity's range). Returns (fig, axes)."""
    fig, axes = figure(ncols=len(panels), width=4.2, squeeze=False)
    for ax, (metric, label) in zip(axes[0], panels.items(), strict=True):
        mean_ci(ax, table, x=x, y=metric, hue=hue, clip=clip)
        ax.set(xlabel=x, ylabel=label)
        if "accuracy" in metric:
            ax.set_ylim(0, 1)
    return fig, axes[0]


def twin_mean_ci(
    table: pd.DataFrame, x: str, left: tuple[str, str], right: tuple[str, str], hue: str,
    colors: tuple[str, str] = ("tab:red", "tab:blue"),
):  # fmt: skip
    """Two ``mean_ci`` curves on twin y axes (DJB21 Fig. 3's style): ``left`` and ``right`` are
    (column, y label), each axis label in its curve's colour. Returns (fig, left_ax, right_ax)."""
    fig, ax = figure(width=4.6)
    other = ax.twinx()
    for axis, (column, label), color in zip((ax, other), (left, right), colors, strict=True):
        mean_ci(axis, table, x=x, y=column, hue=hue, palette=[color])
        axis.get_legend().remove()
        axis.set_ylabel(label, color=color)
    ax.set_xlabel(x)
    return fig, ax, other


def width_axis(ax, widths, label: str = r"width $d$") -> None:
    """A log2 x-axis with one labelled tick per simulated width."""
    widths = sorted(float(w) for w in widths)
    ax.set_xscale("log", base=2)
    ax.set(xticks=widths, xticklabels=[f"{w:.0f}" for w in widths], xlabel=label)


def save(fig, pdf: str | os.PathLike, png: str | os.PathLike, dpi: int = 200) -> None:
    """Write PDF and PNG atomically with no timestamps, then close the figure."""
    with atomic_path(pdf) as tmp:
        fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "Producer": None})
    with atomic_path(png) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": None})
    plt.close(fig)
