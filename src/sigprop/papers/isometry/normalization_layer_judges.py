"""Claims of Thesis Thm. 5.15 (normalization layers, Eq. (5.14)) from the table
``normalization_layer_theorems.theorem5_15`` measures: the printed rate (expected to fail), the
corrected rate alpha = 1 / (2 - kappa_psi'(0)) where the theorem's conditions hold, alpha < 1, and
the uncentred negative control.

Torch-free: a judge job imports only this module.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from ...engine.stats import exact
from ...verdicts.claims import Claim, Record, judge_records

__all__ = ["RECORDS", "conditions", "theorem5_15_claims", "theorem5_15_context"]

SOURCE = "Thesis Thm. 5.15 Eq. (5.14), Eqs. (5.11)-(5.13)"

EXACT = "exact: iterated float64 quadrature kernels, the extreme over {grid}"

ITERATED = (
    "round_off: each kernel evaluation errs by ~1e-15 (table5_2's Stein and series checks); the "
    "iterates approach fixed points where |kappa_psi'| <= 1, so the iterations add up to ~1e-13 at "
    "most; {tol:g} allows some 1000 times that"
)


def _cases(frame: pd.DataFrame) -> str:
    return ", ".join(f"{a}/{n}" for a, n in zip(frame["activation"], frame["norm"], strict=True))


def conditions(table: pd.DataFrame, case_tolerance: float) -> pd.DataFrame:
    """The table with Thm. 5.15's conditions per row: ``centred_ok`` (post-LN, or E phi = 0:
    kappa(0) <= ``case_tolerance``), ``nonlinear_ok`` (kappa_psi'(0) < 1 - ``case_tolerance``)
    and ``conditions_hold`` (both)."""
    centred = (table["norm"] == "post_ln") | (table["kappa0"] <= case_tolerance)
    nonlinear = table["dkappa_psi0"] < 1.0 - case_tolerance
    return table.assign(
        centred_ok=centred, nonlinear_ok=nonlinear, conditions_hold=centred & nonlinear
    )


RECORDS = (
    Record(
        "printed_eq5_14",
        "Thm. 5.15 as printed: Psi(rho_l) <= Psi(rho_0) alpha^l with alpha = (kappa(1) - "
        "kappa(0)) / kappa'(1), Psi(rho) = |rho| / (1 - |rho|), wherever the theorem's "
        "conditions hold; max excess over the bound ({grid})",
        SOURCE,
        "erratum",
        "printed_excess",
        "<=",
        0.0,
        "tol",
        tolerance_reason=ITERATED,
        pair="isometry.theorem5_15.corrected_rate",
        note=EXACT + "; post-LN ReLU: alpha 0.682 < the asymptotic rate kappa_psi'(0) = 0.733; "
        "violated cases: {printed_violated}",
    ),
    Record(
        "corrected_rate",
        "Thm. 5.15 with the rate of its reduction to Thm. 5.8: Psi(rho_l) <= Psi(rho_0) alpha^l, "
        "alpha = 1 / (2 - kappa_psi'(0)), wherever the conditions hold (phi non-linear; E phi = "
        "0 for no norm, pre-/post-RMS, pre-LN; none for post-LN); max excess over the bound "
        "({grid})",
        SOURCE + "; Thm. 5.8 Eq. (5.6)",
        "paper",
        "corrected_excess",
        "<=",
        0.0,
        "tol",
        tolerance_reason=ITERATED,
        requires=("control_uncentred",),
        note=EXACT + "; tolerance: float64 round-off of iterated quadrature; cases: {valid_cases}",
    ),
    Record(
        "alpha_below_one",
        "Thm. 5.15: alpha = 1 / (2 - kappa_psi'(0)) < 1, i.e. every configured (non-linear) phi "
        "satisfies the non-linearity condition kappa_psi'(0) < 1 under every norm whose centring "
        "condition holds (max alpha)",
        SOURCE,
        "paper",
        "alpha_max",
        "<=",
        "alpha_limit",
        tolerance_reason="round_off: 'alpha is strictly less than one' read as alpha <= 1 - "
        "{case_tolerance:g} (config case_tolerance, the gap that also classifies E phi = 0), "
        "far above the ~1e-15 error of the quadrature kernels",
        note="exact (quadrature). Taken over all rows whose centring condition holds, not only "
        "those already filtered by kappa_psi'(0) < 1 - case_tolerance (which would make it hold "
        "by construction); cases: {centred_cases}",
    ),
    Record(
        "control_uncentred",
        "negative control: with E phi != 0 and no centring layer (no norm, pre-/post-RMS, "
        "pre-LN) the bound with alpha = 1 / (2 - kappa'(0)) fails, since rho_l tends to rho* > "
        "0; min over those cases of the max excess",
        SOURCE + " (centring condition)",
        "control",
        "uncentred_excess",
        ">=",
        "tol",
        tolerance_reason="round_off: an excess counts only beyond the {tol:g} round-off budget of "
        "the iterated kernels (as in corrected_rate)",
        note=EXACT + "; cases: {uncentred_cases}",
    ),
)


def theorem5_15_context(
    table: pd.DataFrame, rho0: list[float], depth: int, case_tolerance: float, tol: float
) -> dict:
    """The derived numbers of Thm. 5.15's claims (``RECORDS``)."""
    table = conditions(table, case_tolerance)
    valid = table[table["conditions_hold"]]
    centred = table[table["centred_ok"]]
    invalid = table[~table["centred_ok"]]
    return {
        "grid": f"{len(rho0)} rho_0 in (-1, 1), layers 1..{depth}",
        "tol": float(tol),
        "alpha_limit": 1.0 - case_tolerance,
        "printed_excess": exact(valid["max_excess_printed"].max(skipna=False)),
        "printed_violated": _cases(valid[valid["max_excess_printed"] > tol]),
        "corrected_excess": exact(valid["max_excess_corrected"].max(skipna=False)),
        "valid_cases": _cases(valid),
        "alpha_max": exact(centred["alpha_corrected"].max(skipna=False)),
        "centred_cases": _cases(centred),
        "uncentred_excess": exact(invalid["max_excess_corrected"].min(skipna=False)),
        "uncentred_cases": _cases(invalid),
        "has_uncentred": len(invalid) > 0,
    }


def theorem5_15_claims(
    table: pd.DataFrame,
    *,
    rho0: list[float],
    depth: int,
    case_tolerance: float,
    float_tolerance: float,
    **_settings,
) -> list[Claim]:
    """Thm. 5.15 as printed (an erratum), with the corrected rate, alpha < 1, and the
    uncentred negative control, from ``theorem5_15``'s table.

    Args:
        table: ``theorem5_15``'s table.
        rho0, depth: the measurement's grid (for the statements).
        case_tolerance: tolerance of kappa(0) = 0 (E phi = 0) and of kappa_psi'(0) < 1.
        float_tolerance: allowed excess over a bound (round-off of iterated quadrature).
    """
    context = theorem5_15_context(table, rho0, depth, case_tolerance, float_tolerance)
    context["case_tolerance"] = float(case_tolerance)
    if context["has_uncentred"]:
        records = RECORDS
    else:  # no uncentred case: no control, and nothing for corrected_rate to require
        records = tuple(replace(r, requires=()) for r in RECORDS[:-1])
    return judge_records(records, context, "isometry.theorem5_15.")
