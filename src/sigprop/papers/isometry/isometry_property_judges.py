"""Claims of Thesis Lemma 4.2 (the isometry I(M) = det(M)^{1/n} / (tr(M)/n), Def. 4.1, Eq. (4.2))
from the table ``isometry_properties.lemma4_2`` measures.

Round-off is counted in units of n eps kappa(M) (see ``isometry_properties``). Torch-free: a
judge job imports only this module.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...claims import Claim, evaluate

__all__ = ["EPS", "FAMILIES", "SOURCE", "lemma4_2_claims"]

EPS = float(np.finfo(np.float64).eps)
"""float64 machine epsilon, the round-off unit (the value of ``torch.finfo(torch.float64).eps``)."""

FAMILIES = ("wishart", "spectrum", "identity", "near_identity", "singular")
"""The random matrix families of Lemma 4.2's cases (see ``lemma4_2``)."""

SOURCE = "Thesis Lemma 4.2, Def. 4.1, Eq. (4.2)"


def _delta_range(log10_delta_range: Sequence[float]) -> tuple[float, float]:
    lo, hi = (float(v) for v in log10_delta_range)
    return lo, hi


def lemma4_2_claims(
    table: pd.DataFrame,
    *,
    max_log10_condition: float,
    log10_delta_range: Sequence[float],
    roundoff_units: float,
    deficit_rtol: float,
    **_settings,
) -> list[Claim]:
    """The seven claims of Lemma 4.2 from ``lemma4_2``'s table.

    Args:
        table: the measured table (one row per matrix).
        max_log10_condition, log10_delta_range: the measurement's settings (for the statements).
        roundoff_units: allowed gap error in units of n eps kappa(M).
        deficit_rtol: relative error allowed on the near-identity gap.
    """
    lo, hi = _delta_range(log10_delta_range)
    fam = {f: table[table["family"] == f] for f in FAMILIES}
    scale_units = (fam["wishart"]["gap_error"] / fam["wishart"]["roundoff"]).max()
    closed_units = (fam["spectrum"]["gap_error"] / fam["spectrum"]["roundoff"]).max()
    nonsingular = table[table["family"] != "singular"]
    ident = fam["identity"]
    near = fam["near_identity"]
    near_rel = (near["gap_error"] / near["reference_gap"]).max()
    unit = roundoff_units * EPS * float(table["n"].max())
    return [
        evaluate(
            id="isometry.lemma4_2.scale_invariance",
            statement=(
                f"I(cM) = I(M) for {len(fam['wishart'])} random Wishart M and c = 10^U(-6, 6): the "
                f"largest |gap(cM) - gap(M)| is within {roundoff_units:g} round-off unit(s) "
                "n eps kappa(M)"
            ),
            source=SOURCE + " part 1",
            measured=scale_units,
            relation="<=",
            bound=0.0,
            tolerance=roundoff_units,
            note=f"max absolute gap difference {fam['wishart']['gap_error'].max():.3g}",
        ),
        evaluate(
            id="isometry.lemma4_2.gm_over_am",
            statement=(
                f"I(M) = GM/AM of M's eigenvalues (Eq. (4.2) in eigenvalues) for "
                f"{len(fam['spectrum'])} M = Q diag(lambda) Q^T with kappa up to "
                f"1e{max_log10_condition:g}, within {roundoff_units:g} round-off unit(s)"
            ),
            source=SOURCE + " (proof)",
            measured=closed_units,
            relation="<=",
            bound=0.0,
            tolerance=roundoff_units,
            note=f"max absolute gap error {fam['spectrum']['gap_error'].max():.3g}",
        ),
        evaluate(
            id="isometry.lemma4_2.unit_range",
            statement=(
                f"I(M) <= 1 on all {len(table)} cases (I >= 0 holds by construction, I = "
                f"exp(-gap)), within {roundoff_units:g} x n_max eps"
            ),
            source=SOURCE + " part 2",
            measured=table["isometry"].max(),
            relation="<=",
            bound=1.0,
            tolerance=unit,
            note=f"min I = {table['isometry'].min():.3g}",
        ),
        evaluate(
            id="isometry.lemma4_2.one_at_identity",
            statement=(
                f"I(c Q I_n Q^T) = 1 for {len(ident)} random c, Q: the largest |1 - I| is within "
                f"{roundoff_units:g} x n_max eps"
            ),
            source=SOURCE + " part 3 (M = c I_n; the thesis says M = I_n)",
            measured=(1.0 - ident["isometry"]).abs().max(),
            relation="<=",
            bound=0.0,
            tolerance=unit,
        ),
        evaluate(
            id="isometry.lemma4_2.below_one_off_identity",
            statement=(
                f"off c I_n, I < 1: for {len(near)} M = c Q diag(1 + delta, 1, .., 1) Q^T, "
                "delta in "
                f"[1e{lo:g}, 1e{hi:g}], the gap equals log(1 + delta/n) - log(1 + delta)/n > 0 "
                f"within relative {deficit_rtol:g}"
            ),
            source=SOURCE + " part 3 (only if)",
            measured=near_rel,
            relation="<=",
            bound=0.0,
            tolerance=deficit_rtol,
            note=(
                f"smallest closed-form gap {near['reference_gap'].min():.3g}, largest measured I "
                f"{near['isometry'].max():.12f}; tolerance: 100 x n eps / min gap"
            ),
        ),
        evaluate(
            id="isometry.lemma4_2.zero_iff_singular",
            statement=(
                f"I(M) = 0 for all {len(fam['singular'])} singular M (rank < n): measured is the "
                "number with I > 0"
            ),
            source=SOURCE + " part 4",
            measured=float((fam["singular"]["isometry"] > 0).sum()),
            relation="<=",
            bound=0.0,
            note="singular = smallest eigenvalue <= n eps lambda_max (isometry.isometry_gap)",
        ),
        evaluate(
            id="isometry.lemma4_2.positive_if_nonsingular",
            statement=(
                f"I(M) > 0 for all {len(nonsingular)} nonsingular M (kappa up to "
                f"1e{max_log10_condition:g}): measured is the number with I = 0"
            ),
            source=SOURCE + " part 4 (only if)",
            measured=float((nonsingular["isometry"] <= 0).sum()),
            relation="<=",
            bound=0.0,
            note=f"min I over nonsingular cases {nonsingular['isometry'].min():.3g}",
        ),
    ]
