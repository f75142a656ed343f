"""Claims of Thesis Thm. 5.8, Cor. 5.10, Thm. 5.11 and Remarks 5.12-5.14 from the table
``kernel_bound_theorems.kernel_bounds`` measures (one row per activation and bound): each bound
holds along the exact kernel iterations, the controls show its hypotheses are needed, and the
printed Eq. (5.7) rate 1 / kappa'(1) is violated (an erratum).
"""

from __future__ import annotations

import pandas as pd

from ...engine.stats import exact
from ...verdicts.claims import Claim, Record, judge_records

__all__ = ["RECORDS", "kernel_bounds_claims", "kernel_bounds_context"]


def _names(frame: pd.DataFrame) -> str:
    return ", ".join(frame["activation"])


EXACT = "exact: exact kernel maps iterated in float64, the extreme over {grid}"

ITERATED = (
    "round_off: each kernel evaluation errs by ~1e-15 (table5_2's Stein and series checks); the "
    "iterates approach fixed points where |kappa'| <= 1, so the iterations add up to ~1e-13 at "
    "most; {tol:g} allows some 1000 times that"
)
STRICT = (
    "round_off: the strict '< 1' read as below 1 by more than the {tol:g} round-off budget of "
    "the iterated kernels"
)

_BOUNDS = (
    ("thm5_8", "paper", "",
     "Thm. 5.8 (Eq. (5.6)): Psi(rho_l) <= Psi(rho_0) alpha^l, alpha = 1 / (2 - kappa'(0)), "
     "Psi(rho) = |rho| / (1 - |rho|), for kappa(0) = 0",
     "Thesis Thm. 5.8 Eq. (5.6); Thm. 5.11 case 1 (corrected rate)", ""),
    ("cor5_10", "paper", "",
     "Cor. 5.10: |rho_l| <= |rho_0| / (1 - |rho_0|) alpha^l, alpha = 1 / (2 - kappa'(0))",
     "Thesis Cor. 5.10", ""),
    ("printed_eq5_7", "erratum", "isometry.kernel_bounds.thm5_8",
     "Thm. 5.11 case 1 as printed (Eq. (5.7)): Psi(rho_l) <= Psi(rho_0) (1 / kappa'(1))^l",
     "Thesis Thm. 5.11 Eq. (5.7)",
     "; an erratum: the AISTATS'25 version and Thm. 5.8 (Eq. (5.6)) have alpha = 1 / (2 - "
     "kappa'(0))"),
    ("case2", "paper", "",
     "Thm. 5.11 case 2 (Eq. (5.8)): kappa(0) > 0, kappa'(1) < 1: |rho_l - 1| <= |rho_0 - 1| "
     "kappa'(1)^l", "Thesis Thm. 5.11 Eq. (5.8)", ""),
    ("case3", "paper", "",
     "Thm. 5.11 case 3 (Eq. (5.9)): kappa'(1) = 1: |rho_l - 1| <= |rho_0 - 1| / (l alpha "
     "|rho_0 - 1| + 1), alpha = 1 - kappa(0) - kappa'(0)", "Thesis Thm. 5.11 Eq. (5.9)",
     "; ReLU and leaky ReLU are case 3 exactly (the thesis labels ReLU case 2)"),
    ("case4", "paper", "",
     "Thm. 5.11 case 4 (Eq. (5.10)): kappa'(1) > 1: |rho_l - rho*| <= |rho_0 - rho*| / (1 - "
     "|rho_0|) alpha^l, alpha = max{{1 - kappa(0), kappa'(rho*), (1 - rho*) / (2 - "
     "kappa'(rho*))}}", "Thesis Thm. 5.11 Eq. (5.10)",
     "; denominator 2 - kappa'(rho*) (the proof's 1 - kappa'(rho*) is a typo)"),
)  # fmt: skip

RECORDS = (
    *(
        Record(check, statement + "; max excess of the iterates over the bound ({grid})", source,
               kind, f"{check}_excess", "<=", 0.0, "tol", pair=pair, tolerance_reason=ITERATED,
               note=EXACT + note + "; activations: {" + check + "_names}")
        for check, kind, pair, statement, source, note in _BOUNDS
    ),
    Record(
        "unique_fixed_point",
        "Thm. 5.11: kappa(rho) = rho has exactly one solution in (-1, 1) (rho* = 0 in case 1, "
        "rho* in (0, 1) in case 4) and none in cases 2-3 (rho* = 1); count of activations "
        "violating this, from the sign changes of kappa(rho) - rho",
        "Thesis Thm. 5.8, Thm. 5.11", "paper", "not_unique", "<=", 0.0,
        note="exact: a count over the activations; activations: {fixed_names}",
    ),
    Record(
        "case4_attracting", "Thm. 5.11 case 4: kappa'(rho*) < 1 (the fixed point attracts)",
        "Thesis Thm. 5.11 case 4", "paper", "dkappa_star", "<=", "below_one",
        tolerance_reason=STRICT, note="exact (quadrature); activations: {case4_names}",
    ),
    Record(
        "rho_star_above_kappa0", "Remark 5.12: rho* >= kappa(0) >= 0 (min of rho* - kappa(0))",
        "Thesis Remark 5.12", "paper", "star_gap", ">=", 0.0, "tol",
        tolerance_reason="round_off: rho* is a root of kappa(rho) - rho and kappa(0) a quadrature, "
        "each to ~1e-15; {tol:g} allows far more",
        note="exact (quadrature); activations: {fixed_names}",
    ),
    Record(
        "control_identity",
        "negative control (Remark 5.13): the identity is linear, kappa(rho) = rho, and every "
        "rho_0 stays fixed: max |rho_L - rho_0|",
        "Thesis Remark 5.13", "control", "control_identity_excess", "<=", 0.0, "tol",
        tolerance_reason=ITERATED,
        note="exact; fails if the kernel of a linear phi is not the identity map (the "
        "non-linearity hypothesis of Thm. 5.8 is needed)",
    ),
    Record(
        "control_he3_pm1",
        "negative control (Remark 5.13): phi = he_3, kappa = rho^3, from rho_0 = +-1 stays at "
        "+-1 (Thm. 5.8 excludes the fixed points +-1): max ||rho_l| - 1|",
        "Thesis Remark 5.13", "control", "control_he3_pm1_excess", "<=", 0.0, "tol",
        tolerance_reason=ITERATED,
        note="exact; fails if the he_3 kernel or the iteration moves the fixed points +-1",
    ),
)  # fmt: skip


def kernel_bounds_context(
    table: pd.DataFrame, rho0: list[float], depth: int, float_tolerance: float
) -> dict:
    """The derived numbers of the kernel-bound claims (``RECORDS``) from ``kernel_bounds``."""
    context = {
        "grid": f"{len(rho0)} rho_0 in (-1, 1), layers 1..{depth}",
        "tol": float(float_tolerance),
        "below_one": 1.0 - float_tolerance,
    }
    for check in (*(b[0] for b in _BOUNDS), "control_identity", "control_he3_pm1"):
        rows = table[table["check"] == check]
        context[f"{check}_excess"] = exact(rows["max_excess"].max()) if len(rows) else None
        context[f"{check}_names"] = _names(rows)
    fixed = table[table["check"] == "fixed_points"]
    case4 = fixed[fixed["case"] == 4]
    context |= {
        "fixed_names": _names(fixed),
        "case4_names": _names(case4),
        "not_unique": exact(float((~fixed["unique_ok"].astype(bool)).sum())),
        "dkappa_star": exact(case4["dkappa_star"].max()) if len(case4) else None,
        "star_gap": exact((fixed["rho_star"] - fixed["kappa0"]).min()),
    }
    return context


def kernel_bounds_claims(
    table: pd.DataFrame, *, rho0: list[float], depth: int, float_tolerance: float, **_settings
) -> list[Claim]:
    """The claims of Thm. 5.8 / Cor. 5.10 / Thm. 5.11 and Remarks 5.12-5.13 from the table
    (a record whose rows are absent from the table is skipped).

    Args:
        table: ``kernel_bounds``'s table.
        rho0, depth: the measurement's grid (for the statements).
        float_tolerance: allowed excess over a bound (round-off of iterated quadrature).
    """
    context = kernel_bounds_context(table, rho0, depth, float_tolerance)
    records = [r for r in RECORDS if context.get(r.quantity, 0) is not None]
    return judge_records(records, context, "isometry.kernel_bounds.")
