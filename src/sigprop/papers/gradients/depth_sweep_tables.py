"""The curves of Thesis Figs. 6.2, 6.3, C.9 and C.10: which depth-sweep variants each figure
draws, under which labels, and which gradient column it plots.

Shared by the figure scripts (``workflow/scripts/gradients/log_grad_vs_depth.py``, ``fig_c9.py``)
and the registry items (each figure reads the simulations of its own variants).
"""

from __future__ import annotations

import pandas as pd

__all__ = ["CURVES", "palette", "tidy", "variants"]

CURVES: dict[str, tuple[str, dict[str, str], str]] = {
    "fig6_3": ("init", {"orthogonal": "orthogonal", "gaussian": "Gaussian"}, "log_grad_fc1"),
    "fig6_2": (
        "batch",
        {"orthogonal": "non-degenerate", "degenerate": "degenerate"},
        "log_grad_fc1",
    ),
    "fig_c9": (
        "activation",
        {"orthogonal": "identity", "sin": "sin", "tanh": "tanh"},
        "log_grad_fc1",
    ),
    "fig_c10": (
        "mean_reduction",
        {"mean_reduction": "with", "no_mean_reduction": "without"},
        "log_grad_fc0",
    ),
}
"""Figure -> (hue column, {sweep variant: curve label}, plotted gradient column)."""


def palette(figure: str) -> dict[str, str]:
    """Curve label -> colour in the seed's order (first blue, second orange, ...)."""
    return {label: f"C{i}" for i, label in enumerate(CURVES[figure][1].values())}


def tidy(sweep: pd.DataFrame, figure: str) -> pd.DataFrame:
    """The rows of ``figure``'s curves: columns <hue>, depth, run, log_grad, gap_last."""
    hue, labels, column = CURVES[figure]
    rows = sweep[sweep["variant"].isin(list(labels))]
    return pd.DataFrame(
        {
            hue: rows["variant"].map(labels),
            "depth": rows["depth"],
            "run": rows["run"],
            "log_grad": rows[column],
            "gap_last": rows["gap_last"],
        }
    ).reset_index(drop=True)


def variants(figure: str) -> list[str]:
    """The depth-sweep variants drawn by ``figure``, in curve order."""
    return list(CURVES[figure][1])
