"""Claims of Thesis Fig. 4.1 (isometry as parallelepiped volume), from the plotted CSV.

The annotated I(G) (``sigprop.isometry``: eigenvalues of the Gram) is compared with closed forms
computed here from the plotted vectors by another route: n = 2, I = 2 a b sin(theta) / (a^2 +
b^2) from the example's (a, b, theta); n = 3, I = 3 |det[x_1 x_2 x_3]|^{2/3} / sum_i ||x_i||^2
(det G = volume^2, the volume a triple product).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...claims import Claim, evaluate

__all__ = ["fig4_1_claims"]

SOURCE = "Thesis Fig. 4.1 and Sec. 4.1 (n = 2 ratio), Def. 4.1"


def fig4_1_claims(table: pd.DataFrame, tolerance: float) -> list[Claim]:
    """Annotated I equal the closed forms; the printed n = 2 ratio is I / 2; the maximum is 1.

    Args:
        table: ``isometry.example_table`` (label, n, vector, x, y, z, isometry, a, b, theta_deg).
        tolerance: absolute float64 tolerance on I (values in [0, 1], a handful of flops).
    """
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
    err2 = (two["isometry"] - closed2).abs().max(skipna=False)
    err3 = np.abs(np.array(annotated3) - np.array(closed3)).max()
    best = table.groupby("label")["isometry"].min().idxmax()
    return [
        evaluate(
            id="isometry.fig4_1.parallelogram_closed_form",
            statement=(
                f"n = 2: the annotated I of the {len(two)} parallelograms equals "
                f"2 a b sin(theta) / (a^2 + b^2) within {tolerance:g}"
            ),
            source=SOURCE,
            measured=err2,
            relation="<=",
            bound=0.0,
            tolerance=tolerance,
            note="measured: the largest absolute difference",
        ),
        evaluate(
            id="isometry.fig4_1.printed_ratio_is_half",
            statement=(
                "n = 2: the thesis's ratio a b sin(theta) / (a^2 + b^2) is I / 2 (same maximizer a "
                f"= b, theta = pi/2, maximum 1/2 not 1); measured is max |printed / I - 1/2|, "
                f"0 within {tolerance:g}"
            ),
            source=SOURCE + " (printed ratio)",
            measured=(printed / two["isometry"] - 0.5).abs().max(skipna=False),
            relation="<=",
            bound=0.0,
            tolerance=tolerance,
            note="The printed ratio is volume / (a^2 + b^2); I = det(G)^{1/2} / ((a^2 + b^2) / 2).",
        ),
        evaluate(
            id="isometry.fig4_1.parallelepiped_closed_form",
            statement=(
                f"n = 3: the annotated I of the {len(closed3)} parallelepipeds equals "
                f"3 volume^(2/3) / (a^2 + b^2 + c^2) within {tolerance:g}"
            ),
            source=SOURCE + "; det G = volume^2",
            measured=err3,
            relation="<=",
            bound=0.0,
            tolerance=tolerance,
            note="volume = |(x_1 x x_2) . x_3| (numpy), independent of the eigenvalue route",
        ),
        evaluate(
            id="isometry.fig4_1.orthogonal_equal_norms_maximal",
            statement=(
                "the example with the largest I (for n = 2 and 3) has I = 1 within "
                f"{tolerance:g} (orthogonal, equal norms: the maximum of Lemma 4.2)"
            ),
            source=SOURCE + "; Lemma 4.2",
            measured=table.loc[table["label"] == best, "isometry"].min(),
            relation="within",
            bound=1.0,
            tolerance=tolerance,
            note=f"example: {best}",
        ),
    ]
