"""One figure style for every family: seaborn, mean with 95% CI bands, deterministic files.

PDF and PNG are written without timestamps or producer strings, so rerunning a figure rule on the
same inputs gives byte-identical files (spec snakemake_ecosystem §1, figure determinism).
"""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from .stats import BOOTSTRAP_SEED  # noqa: E402
from .store import atomic_path  # noqa: E402

__all__ = ["figure", "mean_ci", "save", "PALETTE"]

PALETTE = {"BN": "#1f77b4", "vanilla": "#ff7f0e"}
"""Dan+20 Fig. 2 colours: blue for BN, orange for vanilla; reused across families."""


def figure(ncols: int = 1, nrows: int = 1, width: float = 4.0, height: float = 3.2, **kwargs):
    """A new figure in the sigprop style; returns (fig, axes) like ``plt.subplots``."""
    sns.set_theme(context="paper", style="whitegrid", font_scale=1.1)
    plt.rcParams.update({"svg.hashsalt": "sigprop", "figure.dpi": 100})
    return plt.subplots(
        nrows, ncols, figsize=(width * ncols, height * nrows), constrained_layout=True, **kwargs
    )


def mean_ci(ax, table: pd.DataFrame, x: str, y: str, hue: str | None = None, **kwargs):
    """Mean over runs with a 95% bootstrap CI band (fixed seed), seaborn ``lineplot``."""
    return sns.lineplot(
        data=table,
        x=x,
        y=y,
        hue=hue,
        errorbar=("ci", 95),
        n_boot=1000,
        seed=BOOTSTRAP_SEED,
        ax=ax,
        **kwargs,
    )


def save(fig, pdf: str | os.PathLike, png: str | os.PathLike, dpi: int = 200) -> None:
    """Write PDF and PNG atomically with no timestamps, then close the figure."""
    with atomic_path(pdf) as tmp:
        fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "Producer": None})
    with atomic_path(png) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": None})
    plt.close(fig)
