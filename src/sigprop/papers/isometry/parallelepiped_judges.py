"""Claims of Thesis Fig. 4.1 (isometry as parallelepiped volume), from the plotted CSV.

The annotated I(G) (``sigprop.engine.gram_isometry``: eigenvalues of the Gram) is compared with
closed forms computed here from the plotted vectors by another route: n = 2, I = 2 a b sin(theta) /
(a^2 + b^2) from the example's (a, b, theta); n = 3, I = 3 |det[x_1 x_2 x_3]|^{2/3} / sum_i
||x_i||^2 (det G = volume^2, the volume a triple product).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...engine.stats import exact
from ...verdicts.claims import Claim, Record, judge_records

__all__ = ["RECORDS", "fig4_1_claims", "fig4_1_context"]

SOURCE = "Thesis Fig. 4.1 and Sec. 4.1 (n = 2 ratio), Def. 4.1"

EXACT = "exact: a deterministic float64 computation from the plotted vectors"

ROUNDOFF = (
    "round_off: I in [0, 1] of a 2 x 2 or 3 x 3 Gram from its eigenvalues, and the closed forms "
    "from a few float64 flops, err by ~10 eps (2e-15); {tolerance:g} allows some 500 times that"
)

RECORDS = (
    Record(
        "parallelogram_closed_form",
        "n = 2: the annotated I of the {n_two} parallelograms equals 2 a b sin(theta) / "
        "(a^2 + b^2) within {tolerance:g} (largest absolute difference)",
        SOURCE,
        "identity",
        "err2",
        "<=",
        0.0,
        "tolerance",
        tolerance_reason=ROUNDOFF,
        note=EXACT + "; two routes to I (eigenvalues of G, the closed form)",
    ),
    Record(
        "printed_ratio_is_half",
        "n = 2: the thesis's ratio a b sin(theta) / (a^2 + b^2) is I / 2 (same maximizer a = b, "
        "theta = pi/2, maximum 1/2 not 1); measured is max |printed / I - 1/2|, 0 within "
        "{tolerance:g}",
        SOURCE + " (printed ratio)",
        "identity",
        "half",
        "<=",
        0.0,
        "tolerance",
        tolerance_reason=ROUNDOFF,
        note=EXACT + "; the printed ratio is volume / (a^2 + b^2), I = det(G)^(1/2) / ((a^2 + "
        "b^2) / 2): proportional, so the figure's point (same maximizer) stands",
    ),
    Record(
        "parallelepiped_closed_form",
        "n = 3: the annotated I of the {n_three} parallelepipeds equals 3 volume^(2/3) / "
        "(a^2 + b^2 + c^2) within {tolerance:g}",
        SOURCE + "; det G = volume^2",
        "identity",
        "err3",
        "<=",
        0.0,
        "tolerance",
        tolerance_reason=ROUNDOFF,
        note=EXACT + "; volume = |(x_1 x x_2) . x_3| (numpy), independent of the eigenvalue route",
    ),
    Record(
        "orthogonal_equal_norms_maximal",
        "the example with the largest I (for n = 2 and 3) has I = 1 within {tolerance:g} "
        "(orthogonal, equal norms: the maximum of Lemma 4.2)",
        SOURCE + "; Lemma 4.2",
        "paper",
        "best_isometry",
        "within",
        1.0,
        "tolerance",
        printed=1.0,
        tolerance_reason=ROUNDOFF,
        note=EXACT + "; example: {best}",
    ),
)


def fig4_1_context(table: pd.DataFrame, tolerance: float) -> dict:
    """The derived numbers of Fig. 4.1's claims (``RECORDS``) from its plotted table."""
    two = table[table["n"] == 2].groupby("label").first(skipna=False)
    theta = np.radians(two["theta_deg"])
    closed2 = 2 * two["a"] * two["b"] * np.sin(theta) / (two["a"] ** 2 + two["b"] ** 2)
    printed = two["a"] * two["b"] * np.sin(theta) / (two["a"] ** 2 + two["b"] ** 2)
    closed3, annotated3 = [], []
    for _, rows in table[table["n"] == 3].groupby("label"):
        v = rows.sort_values("vector")[["x", "y", "z"]].to_numpy()
        volume = abs(np.dot(np.cross(v[0], v[1]), v[2]))
        closed3.append(3 * volume ** (2 / 3) / (v**2).sum())
        annotated3.append(rows["isometry"].iloc[0])
    best = table.groupby("label")["isometry"].min().idxmax()
    return {
        "tolerance": float(tolerance),
        "n_two": len(two),
        "n_three": len(closed3),
        "best": best,
        "err2": exact((two["isometry"] - closed2).abs().max(skipna=False)),
        "half": exact((printed / two["isometry"] - 0.5).abs().max(skipna=False)),
        "err3": exact(np.abs(np.array(annotated3) - np.array(closed3)).max()),
        "best_isometry": exact(table.loc[table["label"] == best, "isometry"].min()),
    }


def fig4_1_claims(table: pd.DataFrame, tolerance: float) -> list[Claim]:
    """Annotated I equal the closed forms; the printed n = 2 ratio is I / 2; the maximum is 1.

    Args:
        table: ``gram_isometry.example_table`` (label, n, vector, x, y, z, isometry, a, b,
            theta_deg).
        tolerance: absolute float64 tolerance on I (values in [0, 1], a handful of flops).
    """
    return judge_records(RECORDS, fig4_1_context(table, tolerance), "isometry.fig4_1.")
