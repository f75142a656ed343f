"""Claims of Thesis Thm. 4.3 and Cors. 4.4, 4.5 (normalizing samples never lowers the isometry of
the Gram) from the tables ``normalization_gain`` measures.

Errors are counted in units of the table's ``roundoff`` column, n eps (kappa(G) + kappa(G~)).
Torch-free: a judge job imports only this module.
"""

from __future__ import annotations

import pandas as pd

from ...engine.stats import exact
from ...verdicts.claims import Claim, Record, judge_records

__all__ = [
    "COROLLARY_RECORDS",
    "SOURCE_BN",
    "SOURCE_LN",
    "SOURCE_THM",
    "THEOREM_RECORDS",
    "corollary4_4_claims",
    "corollary4_5_claims",
    "gain_context",
    "theorem4_3_claims",
]

SOURCE_THM = "Thesis Thm. 4.3, Eq. (4.3)-(4.7)"
SOURCE_LN = "Thesis Cor. 4.4 (LN)"
SOURCE_BN = "Thesis Cor. 4.5 (BN); Thesis Eq. (6.4)"

SAMPLE = "exact: the extreme over all {cases} sampled cases (a property of the sample)"

ROUNDOFF = (
    "round_off: log I(G) and log I(G~) each carry a first-order eigenvalue error of ~ n eps "
    "kappa (an eigensolver with backward error ~ n eps ||G||), so their difference ~ n eps "
    "(kappa(G) + kappa(G~)); {roundoff_units:g} such units cover the solver's constant"
)
COUNT_ROUNDOFF = (
    "round_off: a case counts only when it lies beyond {roundoff_units:g} round-off units n eps "
    "(kappa(G) + kappa(G~)), the budget of the scaling claims"
)

BOUND = (
    "{what}: I(G~) >= I(G)(1 + var(a)/abar^2) on {cases} random cases; measured is min over "
    "cases of [log I(G~) - log I(G) - log(1 + var(a)/abar^2)] in units of n eps (kappa(G) + "
    "kappa(G~)), >= 0 within {roundoff_units:g} unit(s)"
)
BOUND_NOTE = (
    SAMPLE + "; min log I(G~)/I(G) = {min_log_gain:.3g} (isometry never decreases); min "
    "absolute margin {min_margin:.3g}; {variant_note}"
)
IDENTITY = (
    "{what}: I(G~)/I(G) = AM(a^2)/GM(a^2) = (1 + var(a)/abar^2)(AM(a)/GM(a))^2 on {cases} "
    "random cases; measured is the largest |log-ratio error| in units of n eps (kappa(G) + "
    "kappa(G~)), within {roundoff_units:g}"
)
IDENTITY_NOTE = SAMPLE + "; largest absolute log error {max_identity_error:.3g}"
CENTRED_NOTE = (
    "exact: a count over the {centred_cases} sampled cases. A counter-example control (it was "
    "'EXPECTED TO FAIL' as 'never decreases'): the corollary is stated for the scaling operator "
    "(LN as the projection onto the sqrt(d)-sphere, Sec. 4.3); with mean centring it fails in "
    "some cases (worst log I(G~)/I(G) = {centred_worst:.3g}). It fails when the operator does "
    "not centre or the search cannot detect a decrease, so it shows the scaling claims can fail."
)

THEOREM_RECORDS = (
    Record("bound", BOUND, "{source}", "paper", "bound_units", ">=", 0.0, "roundoff_units",
           tolerance_reason=ROUNDOFF, note=BOUND_NOTE),
    Record("exact_identity", IDENTITY, "{source} (exact form of Eq. (4.6))", "paper",
           "identity_units", "<=", 0.0, "roundoff_units", tolerance_reason=ROUNDOFF,
           note=IDENTITY_NOTE + "; the proof's Eq. (4.6) with (1/n) sum a_i^2 (printed 1/d: typo),"
           " the corrected form of the printed equality (4.7)"),
    Record(
        "printed_equality_4_7",
        "the proof's last step (4.6) -> (4.7): I(G~)/I(G) = 1 + var(a)/abar^2 exactly; measured "
        "is the largest |log I(G~)/I(G) - log(1 + var(a)/abar^2)| = 2 log(AM(a)/GM(a)) over "
        "{cases} cases in units of n eps (kappa(G) + kappa(G~)), 0 within {roundoff_units:g} "
        "unit(s)",
        "{source} (printed equality (4.7); erratum)",
        "erratum",
        "printed_units",
        "<=",
        0.0,
        "roundoff_units",
        tolerance_reason=ROUNDOFF,
        pair="isometry.theorem4_3.exact_identity",
        note=SAMPLE + "; largest absolute log gap {max_printed_gap:.3g}. (4.6) = (AM(a)/GM(a))^2 "
        "(1 + var(a)/abar^2) >= (4.7): the inequality (4.3) holds, the printed '=' does not "
        "(equality only for equal norms). (4.6) also prints (1/d) sum a_i^2 where (1/n) sum "
        "a_i^2 is meant.",
    ),
)  # fmt: skip

COROLLARY_RECORDS = (
    Record("scaling_bound", BOUND, "{source}", "paper", "bound_units", ">=", 0.0,
           "roundoff_units", tolerance_reason=ROUNDOFF, note=BOUND_NOTE,
           requires=("centered_bound_violated",)),
    Record("scaling_exact_identity", IDENTITY, "{source} (exact form of Eq. (4.6))", "identity",
           "identity_units", "<=", 0.0, "roundoff_units", tolerance_reason=ROUNDOFF,
           note=IDENTITY_NOTE + "; Thm. 4.3's identity applied to our operator: it tests the code"),
    Record(
        "centered_decreases",
        "counter-example control: {centred_what} with mean centring lowers the isometry, "
        "I(G~) < I(G) beyond round-off, in at least one of {centred_cases} random cases "
        "(measured: the number of such cases)",
        "{source} (centred variant)",
        "control",
        "decreases",
        ">=",
        1.0,
        tolerance_reason=COUNT_ROUNDOFF,
        note=CENTRED_NOTE,
    ),
    Record(
        "centered_bound_violated",
        "counter-example control: {centred_what} with mean centring violates I(G~) >= I(G)(1 + "
        "var(a)/abar^2), a = norms before, in at least one of {centred_cases} random cases "
        "(measured: the number of violations)",
        "{source} (centred variant)",
        "control",
        "violations",
        ">=",
        1.0,
        tolerance_reason=COUNT_ROUNDOFF,
        note=CENTRED_NOTE,
    ),
)  # fmt: skip


def gain_context(
    table: pd.DataFrame, what: str, source: str, roundoff_units: float, variant_note: str = ""
) -> dict:
    """The derived numbers of a scaling normalization's claims: the bound (4.3) in round-off
    units, the exact AM/GM identity and the printed equality (4.7)."""
    printed_gap = (table["log_gain"] - table["log_norm_variation"]).abs()
    return {
        "what": what,
        "source": source,
        "cases": len(table),
        "roundoff_units": float(roundoff_units),
        "variant_note": variant_note,
        "bound_units": exact((table["bound_margin"] / table["roundoff"]).min()),
        "min_log_gain": table["log_gain"].min(),
        "min_margin": table["bound_margin"].min(),
        "identity_units": exact((table["identity_error"] / table["roundoff"]).max()),
        "max_identity_error": table["identity_error"].max(),
        "printed_units": exact((printed_gap / table["roundoff"]).max()),
        "max_printed_gap": printed_gap.max(),
    }


def centred_context(table: pd.DataFrame, what: str, roundoff_units: float) -> dict:
    """Counts of counter-examples of the corollary with mean centring."""
    tol = roundoff_units * table["roundoff"]
    return {
        "centred_what": what,
        "centred_cases": len(table),
        "centred_worst": table["log_gain"].min(),
        "decreases": exact(float((table["log_gain"] < -tol).sum())),
        "violations": exact(float((table["bound_margin"] < -tol).sum())),
        "details": {
            "centered_decreases": {"cases": len(table)},
            "centered_bound_violated": {"cases": len(table)},
        },
    }


def theorem4_3_claims(table: pd.DataFrame, *, roundoff_units: float, **_settings) -> list[Claim]:
    """Thm. 4.3: the bound (4.3), the exact identity I(G~)/I(G) = AM(a^2)/GM(a^2) (the corrected
    Eq. (4.6)), and the printed equality (4.7) I(G~)/I(G) = 1 + var(a)/abar^2, an erratum (the
    step (4.6) -> (4.7) drops the factor (AM(a)/GM(a))^2 >= 1).

    Args:
        table: ``theorem4_3``'s table.
        roundoff_units: allowed error in units of n eps (kappa(G) + kappa(G~)).
    """
    context = gain_context(
        table, "unit-norm projection x_i / ||x_i||", SOURCE_THM, roundoff_units,
        "population variance (1/n), as Eq. (4.3).",
    )  # fmt: skip
    return judge_records(THEOREM_RECORDS, context, "isometry.theorem4_3.")


def _corollary(table, item, scaling, centred, what, centred_what, source, units, note):
    context = gain_context(table[table["operator"] == scaling], what, source, units, note)
    context |= centred_context(table[table["operator"] == centred], centred_what, units)
    return judge_records(COROLLARY_RECORDS, context, f"isometry.{item}.")


def corollary4_4_claims(table: pd.DataFrame, *, roundoff_units: float, **_settings) -> list[Claim]:
    """Cor. 4.4: ``ln_rms`` obeys the bound and the exact identity to round-off; ``ln_centered``
    gives counter-examples (controls: Cor. 4.4 holds for the projection onto the sqrt(d)-sphere,
    Sec. 4.3, not with centring)."""
    return _corollary(
        table, "corollary4_4", "ln_rms", "ln_centered", "LN = RMSNorm (ops.ln_rms)",
        "LN (ops.ln_centered)", SOURCE_LN, roundoff_units,
        "LN as the projection onto the sqrt(d)-sphere.",
    )  # fmt: skip


def corollary4_5_claims(table: pd.DataFrame, *, roundoff_units: float, **_settings) -> list[Claim]:
    """Cor. 4.5: ``bn_rms`` obeys the bound and identity to round-off; ``bn_centered`` gives
    counter-examples (controls). abar is printed with 1/n; we use 1/d (the mean of the d row
    norms), the evident intent."""
    return _corollary(
        table, "corollary4_5", "bn_rms", "bn_centered",
        "BN = row scaling diag(X X^T)^{-1/2} X (ops.bn_rms), C = X X^T", "BN (ops.bn_centered)",
        SOURCE_BN, roundoff_units, "abar = (1/d) sum_i a_i (printed with 1/n: typo).",
    )  # fmt: skip
