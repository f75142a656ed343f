"""Verdict records: what a seed claims, what we measured with its interval, and the verdict.

A ``Claim`` is evaluated, never asserted: its verdict is computed from the measured value's
confidence interval (``stats.Measurement``), the relation, the bound and the tolerance, so a
verdict cannot be set by hand and cannot become easier to reach with less data.

Kinds (every claim declares one; the ledger leads with ``paper``):
    paper     a statement the seed makes
    erratum   a printed formula, number or label we find wrong; ``pair`` names the corrected
              ``paper`` claim, and both are reported
    control   a negative or positive control: it fails by construction of its counterfactual
              when the code or the setup is wrong
    identity  an exact identity to round-off: it tests our code, not the paper
    setup     a precondition of our own experiment (e.g. an optimizer did what it maximizes)

Verdicts, with ``[low, high]`` the interval at the run's confidence level and the limit
``bound + tolerance`` (``<=``), ``bound - tolerance`` (``>=``) or ``bound +- tolerance``
(``within``):
    holds      the whole interval satisfies the relation
    fails      the whole interval violates it
    undecided  the interval straddles a limit; the note says about how many runs (or points,
               trials) would decide it at the observed value and spread
    invalid    the measured value, bound or tolerance is not a finite number (an overflow, an
               empty average): neither a hold nor a fail

A ``within`` claim's tolerance is a declared margin of the seed's statement (an equivalence
margin), never a multiple of the measured SE: a wider interval can only make it undecided.

Every claim says why its tolerance (or the margin its bound carries) is what it is:
``tolerance_reason`` is ``"<reason>: <words>"`` with ``<reason>`` one of ``TOLERANCE_REASONS``.

A claim may ``require`` other claims (a setup claim, a control, the chosen step size): when a
required claim does not hold, the claim is ``invalid`` and its note names the requirement
(``apply_requirements``; across items when the ledger is assembled).

An undecided claim says which way it leans (``lean``: the side of the limit its point estimate
lies on, or ``centred`` when deciding it would take more than ``CENTRED_FACTOR`` times its
units) and how many units (runs, points, trials) would decide it at the observed spread
(``to_decide``, counted in ``units``).

A claim's definition (``DEFINITION_COLUMNS``: statement, relation, bound, tolerance, its reason,
interval method, n, printed value, source, requirements) is reviewed data: ``definitions``
tabulates it, ``ledgers/claim_definitions.csv`` records it, and ``compare_definitions`` names
every field that moved.

Judges build claims either one by one (``evaluate``) or as declarative ``Record`` lists run by
``judge_records`` on a context of derived numbers.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from ..base.store import atomic_path, write_json
from ..engine.stats import DEFAULT_CONFIDENCE, Measurement

__all__ = [
    "DEFAULT_CONFIDENCE",
    "KINDS",
    "OUTCOME_COLUMNS",
    "RELATIONS",
    "VERDICTS",
    "Claim",
    "Record",
    "confidence",
    "confidence_level",
    "control_reason",
    "decide",
    "evaluate",
    "judge_records",
    "apply_requirements",
    "compare_definitions",
    "definitions",
    "read_definitions",
    "write_definitions",
    "headline",
    "kind_counts",
    "lean",
    "lean_text",
    "limits",
    "ledger_headline",
    "ledger",
    "read",
    "summarize",
    "verdict_caption",
    "verdict_counts",
    "worst_case",
    "write",
    "write_ledger",
]

RELATIONS = ("<=", ">=", "within")

TOLERANCE_REASONS = {
    "none": "no margin: the relation and bound as the seed states them",
    "printed": "the seed's printed precision (half a unit of its last printed digit, or its "
    "plot's resolution)",
    "theorem": "a constant of the theorem (its hidden constant, order term or stated slack)",
    "finite_size": "a finite-size effect, measured at a stated larger size",
    "wording": "a stated rule for the seed's qualitative words ('close to', 'much', 'largely')",
    "round_off": "a round-off budget of an exact identity in floating point",
}
"""Where a tolerance comes from: the first word of every claim's ``tolerance_reason``."""

DEFAULT_REASONS = {
    "none": "none: the relation and bound as stated, no margin",
    "round_off": "round_off: an exact identity evaluated in floating point; the bound is its "
    "round-off budget",
}
"""The reason a claim gets when its record gives none: ``none`` for a zero tolerance, and
``round_off`` for an identity (whose bound is its round-off budget)."""

LEANS = ("holds", "fails", "centred", "vacuous")
"""Which way an undecided claim leans (``lean``)."""

CENTRED_FACTOR = 100
"""An undecided claim leans ``centred`` when deciding it would take more than this many times
its units: its point estimate lies within a tenth of its half-width of the limit."""
KINDS = ("paper", "erratum", "control", "identity", "setup")
VERDICTS = ("holds", "fails", "undecided", "invalid")

UNITS = {"t": "runs", "bootstrap": "runs", "se": "points", "fisher_z": "points", "wilson": "trials"}
"""What ``Measurement.n`` counts, per interval method (for the undecided note)."""

OUTCOME_COLUMNS = ["id", "kind", "verdict", "measured", "low", "high", "interval"]
"""Which claim, its verdict and the measured interval: the first columns of the ledger
(``COLUMNS``) and of the golden file, and what ``sigprop compare`` sets side by side."""

COLUMNS = [
    *OUTCOME_COLUMNS,
    "n",
    "relation",
    "bound",
    "tolerance",
    "tolerance_reason",
    "printed",
    "pair",
    "requires",
    "lean",
    "to_decide",
    "units",
    "statement",
    "source",
    "figure",
    "scale",
    "note",
    "finding",
    "analysis",
    "statement_template",
    "reason_template",
]

DEFINITION_COLUMNS = [
    "id",
    "kind",
    "relation",
    "bound",
    "tolerance",
    "tolerance_reason",
    "interval",
    "n",
    "printed",
    "pair",
    "requires",
    "statement",
    "source",
]
"""What a claim is, apart from what was measured: ``ledgers/claim_definitions.csv``."""

_LEVEL = [DEFAULT_CONFIDENCE]


def confidence_level() -> float:
    """The two-sided confidence level of the intervals evaluated now."""
    return _LEVEL[-1]


@contextlib.contextmanager
def confidence(level: float) -> Iterator[float]:
    """Evaluate claims at this confidence level inside the block (config ``claims.confidence``)."""
    if not 0 < level < 1:
        raise ValueError(f"claims.confidence must be in (0, 1), got {level}")
    _LEVEL.append(float(level))
    try:
        yield level
    finally:
        _LEVEL.pop()


@dataclass(frozen=True)
class Claim:
    """One verdict. Build it with ``evaluate``; the verdict is derived, never given.

    Attributes:
        id: ``<family>.<item>.<what>``, e.g. ``orthogonality.fig2b.gap_slope``.
        statement: the claim in words, with the quantity and the bound.
        source: its place in the seed, e.g. ``DJB21 Fig. 2b; Thesis Fig. 2.2b``.
        kind: one of ``KINDS``.
        measured: the point estimate; ``low``, ``high``: its interval at ``level``.
        interval: how the interval was computed (``stats.INTERVAL_METHODS``); ``n`` its units.
        relation, bound, tolerance: see the module docstring.
        verdict: ``holds``, ``fails``, ``undecided`` or ``invalid``.
        printed: the number the seed prints for this quantity (NaN if none).
        pair: an erratum's corrected ``paper`` claim (and vice versa, optionally).
        figure: the figure file whose plotted numbers it was computed from (or "").
        scale: the scale of the item's config slice (``quick``, ``paper`` or ``custom``).
        note: choices and errata that matter for reading the verdict.
        tolerance_reason: ``"<reason>: <words>"``, ``<reason>`` one of ``TOLERANCE_REASONS``.
        requires: the ids of the claims this one presumes, space-separated.
        lean: an undecided claim's side (``holds``, ``fails``, ``centred``; ``vacuous`` when
            it cannot fail at these settings); "" otherwise.
        to_decide: about how many ``units`` would decide an undecided claim (NaN otherwise).
        df: the degrees of freedom of its ``t`` or ``se`` interval (inf: a normal or other
            interval; NaN in records written before it was recorded).
        statement_template, reason_template: the statement and tolerance reason as their
            record writes them, before the judge's numbers fill them in (the definition).
    """

    id: str
    statement: str
    source: str
    kind: str
    measured: float
    low: float
    high: float
    interval: str
    n: int
    relation: str
    bound: float
    tolerance: float
    verdict: str
    level: float = DEFAULT_CONFIDENCE
    printed: float = math.nan
    pair: str = ""
    figure: str = ""
    scale: str = ""
    note: str = ""
    tolerance_reason: str = ""
    requires: str = ""
    lean: str = ""
    to_decide: float = math.nan
    units: str = ""
    df: float = math.nan
    statement_template: str = ""
    reason_template: str = ""
    details: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool | None:
        """True (holds), False (fails), None (undecided or invalid)."""
        return {"holds": True, "fails": False}.get(self.verdict)


def limits(relation: str, bound: float, tolerance: float) -> tuple[float, float]:
    """The accepted range of the measured quantity."""
    if relation == "<=":
        return -math.inf, bound + tolerance
    if relation == ">=":
        return bound - tolerance, math.inf
    return bound - tolerance, bound + tolerance


def decide(low: float, high: float, relation: str, bound: float, tolerance: float = 0.0) -> str:
    """The verdict of an interval [low, high] against ``relation bound (+- tolerance)``."""
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    numbers = (low, high, bound, tolerance)
    if any(math.isnan(x) for x in numbers) or not (
        math.isfinite(bound) and math.isfinite(tolerance)
    ):
        return "invalid"
    lo_limit, hi_limit = limits(relation, bound, tolerance)
    if lo_limit <= low and high <= hi_limit:
        return "holds"
    if high < lo_limit or low > hi_limit:
        return "fails"
    return "undecided"


def _not_finite(measured: float, bound: float, tolerance: float) -> str:
    """Why a claim is invalid ('' when its numbers are finite)."""
    named = {"measured value": measured, "bound": bound, "tolerance": tolerance}
    return ", ".join(f"the {k} is {v}" for k, v in named.items() if not math.isfinite(v))


def _straddled_limit(m: Measurement, low, high, relation, bound, tolerance) -> float:
    """The limit an undecided interval contains that lies nearest its point estimate."""
    lo_limit, hi_limit = limits(relation, bound, tolerance)
    straddled = [x for x in (lo_limit, hi_limit) if math.isfinite(x) and low <= x <= high]
    return min(straddled, key=lambda x: abs(m.value - x)) if straddled else bound


def lean(m: Measurement, low, high, relation, bound, tolerance, level) -> tuple[str, float]:
    """An undecided claim's lean and about how many units would decide it.

    The lean is the side of the straddled limit its point estimate lies on (``holds``: the
    estimate satisfies the relation; ``fails``: it does not), or ``centred`` when deciding it
    would take more than ``CENTRED_FACTOR`` times its units (or cannot be extrapolated)."""
    limit = _straddled_limit(m, low, high, relation, bound, tolerance)
    need = m.units_to_decide(limit, level)
    if m.n >= 1 and math.isfinite(need) and need <= CENTRED_FACTOR * max(m.n, 1):
        lo_limit, hi_limit = limits(relation, bound, tolerance)
        side = "holds" if lo_limit <= m.value <= hi_limit else "fails"
    else:
        side = "centred"
    return side, need


def _undecided_note(m: Measurement, low, high, relation, bound, tolerance, level) -> str:
    limit = _straddled_limit(m, low, high, relation, bound, tolerance)
    units = UNITS.get(m.method, "units")
    side, need = lean(m, low, high, relation, bound, tolerance, level)
    if m.n == 1 and m.method in ("t", "bootstrap"):
        how = f"one {units[:-1]} gives no interval: at least 2 {units} are needed"
    elif m.n < 2:
        how = f"the measurement names no count of {units} to extrapolate from"
    elif math.isfinite(need):
        how = f"about {int(need)} {units} (now {m.n}) would decide it at the observed spread"
    else:
        how = "more data would not decide it: the value sits on the limit"
    return (
        f"UNDECIDED (leans {side}): the {level:.0%} interval [{low:.4g}, {high:.4g}] contains "
        f"the limit {limit:.4g}; {how}"
    )


def stated_reason(reason: str, kind: str, tolerance: float, id: str = "") -> str:
    """A claim's stated tolerance reason, or its default (``DEFAULT_REASONS``).

    Raises:
        ValueError: a reason whose first word is not one of ``TOLERANCE_REASONS``, or a
            ``none`` reason for a non-zero tolerance.
    """
    if not reason:
        if tolerance == 0:
            return DEFAULT_REASONS["none"]
        return DEFAULT_REASONS["round_off"] if kind == "identity" else ""
    category, sep, words = reason.partition(":")
    if not sep or category not in TOLERANCE_REASONS or not words.strip():
        raise ValueError(
            f"{id}: tolerance_reason must read '<reason>: <words>' with <reason> one of "
            f"{tuple(TOLERANCE_REASONS)}, got {reason!r}"
        )
    if category == "none" and tolerance != 0:
        raise ValueError(f"{id}: tolerance_reason 'none' for a tolerance of {tolerance}")
    return reason


def control_reason(reason: str, bound: str) -> str:
    """The tolerance reason of a control whose bound is ``bound``, another claim's margin: that
    claim's ``reason`` (``"<reason>: <words>"``) with "the control's bound is <bound>; " put
    before its words."""
    category, _, words = reason.partition(": ")
    return f"{category}: the control's bound is {bound}; {words}"


def evaluate(
    id: str,
    statement: str,
    source: str,
    kind: str,
    measured: Measurement,
    relation: str,
    bound: float,
    tolerance: float = 0.0,
    printed: float = math.nan,
    pair: str = "",
    possible: tuple[float, float] | None = None,
    tolerance_reason: str = "",
    requires: Iterable[str] = (),
    **context,
) -> Claim:
    """Build a ``Claim`` whose verdict is computed from the measured interval.

    ``possible``: the range the quantity can take at all (e.g. (0, 1) for a share, or the
    largest value a gap can have at this width). When every possible value satisfies the
    relation, the claim cannot fail: it is ``undecided`` with a ``VACUOUS`` note, never a hold.
    ``tolerance_reason``: why the tolerance (or the bound's margin) is what it is
    (``TOLERANCE_REASONS``); ``requires``: the full ids of the claims this one presumes.

    Raises:
        ValueError: an unknown kind or relation, a negative tolerance, an erratum without its
            corrected claim, or a measured value that is not a ``stats.Measurement``.
    """
    _check_claim(id, kind, measured, relation, tolerance, pair)
    tolerance_reason = stated_reason(tolerance_reason, kind, float(tolerance), id)
    level = confidence_level()
    bound, tolerance = float(bound), float(tolerance)
    low, high = measured.interval(level)
    verdict, reason = _verdict(measured, low, high, relation, bound, tolerance, possible, level)
    if reason:
        context["note"] = "; ".join(x for x in (reason, context.get("note", "")) if x)
    side, need = "", math.nan
    if verdict == "undecided":
        side, need = (
            ("vacuous", math.nan)
            if reason.startswith("VACUOUS")
            else lean(measured, low, high, relation, bound, tolerance, level)
        )
    return Claim(
        id=id,
        statement=statement,
        source=source,
        kind=kind,
        measured=measured.value,
        low=float(low),
        high=float(high),
        interval=measured.method,
        n=measured.n,
        relation=relation,
        bound=bound,
        tolerance=tolerance,
        verdict=verdict,
        level=level,
        printed=float(printed),
        pair=pair,
        tolerance_reason=tolerance_reason,
        requires=" ".join(requires),
        lean=side,
        to_decide=float(need),
        units=UNITS.get(measured.method, "") if math.isfinite(need) else "",
        df=float(measured.df),
        **context,
    )


def _check_claim(
    id: str, kind: str, measured: Measurement, relation: str, tolerance: float, pair: str
) -> None:
    """The ValueErrors of ``evaluate``, each naming the claim."""
    if kind not in KINDS:
        raise ValueError(f"{id}: kind must be one of {KINDS}, got {kind!r}")
    if relation not in RELATIONS:
        raise ValueError(f"{id}: relation must be one of {RELATIONS}, got {relation!r}")
    if not isinstance(measured, Measurement):
        raise ValueError(
            f"{id}: measured must be a stats.Measurement (exact, t_mean, from_se, bootstrap, "
            f"fisher_z, proportion), got {type(measured).__name__}"
        )
    if tolerance < 0:
        raise ValueError(f"{id}: tolerance must be >= 0, got {tolerance}")
    if kind == "erratum" and not pair:
        raise ValueError(f"{id}: an erratum names its corrected paper claim (pair=...)")


def _verdict(
    m: Measurement, low, high, relation, bound, tolerance, possible, level
) -> tuple[str, str]:
    """``evaluate``'s verdict of the interval [low, high] and the reason that goes first in the
    claim's note ('' for a hold or a fail): ``invalid`` for a non-finite measured value,
    ``undecided`` with a VACUOUS note when every ``possible`` value holds."""
    verdict = decide(low, high, relation, bound, tolerance)
    if not math.isfinite(m.value):
        verdict = "invalid"
    vacuous = (
        possible is not None
        and verdict != "invalid"
        and decide(float(possible[0]), float(possible[1]), relation, bound, tolerance) == "holds"
    )
    reason = ""
    if vacuous:
        verdict = "undecided"
        reason = (
            f"VACUOUS: every possible value in [{possible[0]:.4g}, {possible[1]:.4g}] satisfies "
            "the relation, so the claim cannot fail at these settings"
        )
    if verdict == "invalid":
        reason = "INVALID: " + (
            _not_finite(m.value, bound, tolerance) or f"the interval is [{low}, {high}]"
        )
    elif verdict == "undecided" and not vacuous:
        reason = _undecided_note(m, low, high, relation, bound, tolerance, level)
    return verdict, reason


# --- A claim made for every case -------------------------------------------------------------

_RANK = {"fails": 0, "invalid": 1, "undecided": 2, "holds": 3}


def _distance(low: float, high: float, relation: str, bound: float, tolerance: float) -> float:
    """How far the interval's worst end lies past the accepted range (larger is worse)."""
    if relation == "<=":
        return high - (bound + tolerance)
    if relation == ">=":
        return (bound - tolerance) - low
    return max(high - (bound + tolerance), (bound - tolerance) - low)


def worst_case(
    cases: Mapping[str, Measurement], relation: str, bound: float, tolerance: float = 0.0
) -> tuple[str, Measurement]:
    """The case that decides "for every case: measured relation bound (+- tolerance)".

    A failing case if there is one (the one whose interval lies farthest past the limit),
    else an invalid one, else an undecided one, else the holding case nearest its limit.

    Raises:
        ValueError: no cases.
    """
    if not cases:
        raise ValueError("worst_case needs at least one case")
    level = confidence_level()

    def key(item):
        low, high = item[1].interval(level)
        verdict = decide(low, high, relation, bound, tolerance)
        if not math.isfinite(item[1].value):
            verdict = "invalid"
        dist = _distance(low, high, relation, bound, tolerance)
        return (_RANK[verdict], -dist if math.isfinite(dist) else -math.inf)

    return min(cases.items(), key=key)


# --- Declarative claim records --------------------------------------------------------------

Field = Any
"""A record field: a value, a ``str.format`` template over the context (strings), or a
callable of the context."""


@dataclass(frozen=True)
class Record:
    """One claim as data: what ``judge_records`` evaluates on a judge's context.

    ``quantity`` names a ``Measurement`` in the context (or is a callable of the context that
    returns one); ``statement``, ``note`` and ``source`` are ``str.format`` templates over the
    context; ``bound``, ``tolerance`` and ``printed`` are numbers, context names or callables.
    ``tolerance_reason`` is a template (``TOLERANCE_REASONS``); ``requires`` names claims of the
    same judge by their record ids (templates too), which ``judge_records`` prefixes.
    """

    id: str
    statement: str
    source: str
    kind: str
    quantity: str | Callable[[Mapping], Measurement]
    relation: str
    bound: Field
    tolerance: Field = 0.0
    printed: Field = math.nan
    pair: str = ""
    note: Field = ""
    figure: str = ""
    possible: Field = None
    tolerance_reason: Field = ""
    requires: tuple[str, ...] = ()


def _field(value: Field, context: Mapping, text: bool = False):
    if callable(value):
        return value(context)
    if isinstance(value, str):
        return value.format(**context) if text else context[value]
    return value


def judge_records(records: Sequence[Record], context: Mapping, prefix: str = "") -> list[Claim]:
    """Evaluate claim records on a context (the judge's derived numbers and arguments).

    ``prefix`` is prepended to every record's id (``"<family>.<item>."``); an id may hold
    ``{name}`` fields of the context (one record for a claim repeated per width: ``decay_d{d}``).
    """
    claims = []
    for r in records:
        name = r.id.format(**context)
        all_details = context.get("details", {})
        details = all_details.get(name, all_details.get(r.id, {}))
        claims.append(
            evaluate(
                id=prefix + name,
                statement=_field(r.statement, context, text=True),
                source=_field(r.source, context, text=True),
                kind=r.kind,
                measured=_field(r.quantity, context),
                relation=r.relation,
                bound=_field(r.bound, context),
                tolerance=_field(r.tolerance, context),
                printed=_field(r.printed, context),
                pair=r.pair,
                note=_field(r.note, context, text=True),
                possible=_field(r.possible, context),
                tolerance_reason=_field(r.tolerance_reason, context, text=True),
                statement_template=r.statement if isinstance(r.statement, str) else "",
                reason_template=r.tolerance_reason if isinstance(r.tolerance_reason, str) else "",
                requires=[prefix + x.format(**context) for x in r.requires],
                figure=r.figure,
                details=details,
            )
        )
    return claims


# --- Requirements -----------------------------------------------------------------------------


def apply_requirements(records: list[dict], strict: bool = True) -> list[dict]:
    """Records with every claim whose requirement does not hold made ``invalid``.

    A claim that ``requires`` another (a setup claim, a control) presumes it: when a required
    claim's verdict is anything but ``holds``, the claim's verdict is ``invalid`` and its note
    names the requirement and its verdict (the claim's own interval verdict is kept in the note).
    Chains resolve in any order. ``strict``: a required id that is not among the records raises
    (the whole ledger); otherwise it is left for the ledger to resolve (one item's file).

    Raises:
        ValueError: (``strict``) a required claim that is not in the records.
    """
    verdicts = {r["id"]: r["verdict"] for r in records}
    missing = sorted(
        {x for r in records for x in str(r.get("requires") or "").split() if x not in verdicts}
    )
    if strict and missing:
        raise ValueError(f"claims require claims that are not in the ledger: {missing}")
    out = [dict(r) for r in records]
    changed = True
    while changed:
        changed = False
        for r in out:
            if r["verdict"] == "invalid":
                continue
            unmet = [
                x
                for x in str(r.get("requires") or "").split()
                if x in verdicts and verdicts[x] != "holds"
            ]
            if unmet:
                reason = "INVALID: requires " + ", ".join(
                    f"{x}, which {'is ' if verdicts[x] in ('undecided', 'invalid') else ''}"
                    f"{verdicts[x]}"
                    for x in unmet
                )
                r["note"] = "; ".join(
                    x for x in (reason, f"its own interval verdict: {r['verdict']}", r["note"]) if x
                )
                r.update(verdict="invalid", lean="", to_decide=math.nan, units="")
                verdicts[r["id"]] = "invalid"
                changed = True
    return out


# --- Definitions ------------------------------------------------------------------------------


def definitions(table: pd.DataFrame) -> pd.DataFrame:
    """Each claim's definition (``DEFINITION_COLUMNS``), sorted by id: the reviewed data.

    The statement and the tolerance reason are their record's templates where the ledger has
    them (``statement_template``, ``reason_template``): what the code defines, before the
    judge's measured numbers fill them in, so the definition is the same on every machine."""
    table = table.copy()
    for column, template in (
        ("statement", "statement_template"),
        ("tolerance_reason", "reason_template"),
    ):
        if template in table:
            templates = table[template].fillna("").astype(str)
            table[column] = templates.where(templates != "", table[column])
    return (
        table.reindex(columns=DEFINITION_COLUMNS)
        .fillna({"tolerance_reason": "", "requires": "", "pair": ""})
        .sort_values("id", ignore_index=True)
    )


def write_definitions(table: pd.DataFrame, path: str | os.PathLike) -> pd.DataFrame:
    """Write a ledger's definitions as CSV, atomically (numbers as their shortest exact text)."""
    defs = definitions(table)
    with atomic_path(path) as tmp:
        defs.to_csv(tmp, index=False)
    return defs


def read_definitions(path: str | os.PathLike) -> pd.DataFrame:
    """A definitions file written by ``write_definitions`` (empty cells read as "")."""
    table = pd.read_csv(path, keep_default_na=False, na_values={"printed": [""], "bound": [""]})
    table = table.reindex(columns=DEFINITION_COLUMNS)
    return table.astype({"bound": float, "tolerance": float, "printed": float, "n": int})


DEFINITION_RTOL = 1e-2
"""The relative slack of a definition's number computed from the measurements (a margin that is
a share of a measured level, Thm. 14's floor from alpha_hat): under another kernel path the
quick run's moved by at most 0.2% (2026-11-28). A number written by a person (at most
``WRITTEN_DIGITS`` significant digits: 0.05, 1.5e-3, -0.46) compares exactly."""

WRITTEN_DIGITS = 6


def _written(value: float) -> bool:
    """Whether a number reads as written by a person: at most ``WRITTEN_DIGITS`` significant
    digits in its shortest exact text (``repr``)."""
    if not math.isfinite(value):
        return True
    mantissa = repr(float(value)).lower().split("e")[0].lstrip("-").replace(".", "").strip("0")
    return len(mantissa) <= WRITTEN_DIGITS


def _numbers_agree(a: float, b: float, rtol: float) -> bool:
    """Equal; or, where the recorded number ``b`` was computed (not ``_written``), within
    ``rtol`` of it. NaN equals NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return True
    return not _written(b) and abs(a - b) <= rtol * max(abs(a), abs(b))


def _plain(value):
    """A table cell as a Python value (numpy scalars print as their numbers)."""
    return value.item() if hasattr(value, "item") else value


def compare_definitions(
    now: pd.DataFrame, then: pd.DataFrame, rtol: float = DEFINITION_RTOL
) -> list[str]:
    """Every field of every claim's definition that differs, as ``id: field old -> new``.

    Strings (kind, relation, statement and tolerance reason templates, interval method, pair,
    requirements, source) and n must be equal; bound, tolerance and printed value equal, or,
    where computed from the measurements, within ``rtol`` (``_numbers_agree``: another CPU
    rounds them otherwise). Claims present in one table only are named too.
    """
    a = definitions(now).set_index("id")
    b = definitions(then).set_index("id")
    problems = [
        f"{c}: not in the recorded definitions" for c in sorted(set(a.index) - set(b.index))
    ]
    problems += [f"{c}: recorded, but no longer made" for c in sorted(set(b.index) - set(a.index))]
    for claim in sorted(set(a.index) & set(b.index)):
        x, y = a.loc[claim], b.loc[claim]
        for col in DEFINITION_COLUMNS[1:]:
            new, old = x[col], y[col]
            if col in ("bound", "tolerance", "printed"):
                same = _numbers_agree(float(new), float(old), rtol)
            elif col == "n":
                same = int(new) == int(old)
            else:
                same = str(new) == str(old)
            if not same:
                problems.append(f"{claim}: {col} {_plain(old)!r} -> {_plain(new)!r}")
    return problems


# --- Files and the ledger --------------------------------------------------------------------


def write(path: str | os.PathLike, claims: Sequence[Claim], **context) -> None:
    """Write claims as a JSON list, atomically; ``context`` (figure, scale) fills empty fields."""
    records = []
    for c in claims:
        record = asdict(c)
        for key, value in context.items():
            if not record.get(key):
                record[key] = value
        records.append(record)
    write_json(path, {"claims": apply_requirements(records, strict=False)})


def read(path: str | os.PathLike) -> list[dict]:
    """The claim records of one file."""
    with open(path) as f:
        return json.load(f)["claims"]


def ledger(
    paths: Iterable[str | os.PathLike], findings: Mapping[str, Mapping] | None = None
) -> pd.DataFrame:
    """All claims of the given files as one table, sorted by id, one row per claim.

    ``findings`` (``sigprop.verdicts.findings.load``) fill the columns ``finding`` (its reading) and
    ``analysis`` of the claims they name.

    Requirements are applied across all files (``apply_requirements``).

    Raises:
        ValueError: duplicate ids, an erratum whose paired claim is not in the ledger, or a
            required claim that is not in it.
    """
    rows = apply_requirements([record for p in paths for record in read(p)])
    for r in rows:
        entry = (findings or {}).get(r["id"])
        r["finding"] = entry["reading"] if entry else ""
        r["analysis"] = entry.get("text", entry["analysis"]) if entry else ""
    table = pd.DataFrame(rows, columns=COLUMNS + ["details"])[COLUMNS]
    if table["id"].duplicated().any():
        raise ValueError(
            f"duplicate claim ids: {sorted(table.loc[table['id'].duplicated(), 'id'])}"
        )
    errata = table[table["kind"] == "erratum"]
    orphans = sorted(set(errata["id"][~errata["pair"].isin(table["id"])]))
    if orphans:
        raise ValueError(f"errata whose corrected claim is not in the ledger: {orphans}")
    return table.sort_values("id", ignore_index=True)


def verdict_counts(verdicts: Iterable[str]) -> str:
    """``"420 hold, 27 fail, 3 undecided"`` (undecided, invalid only when there are any)."""
    verdicts = list(verdicts)
    text = f"{verdicts.count('holds')} hold, {verdicts.count('fails')} fail"
    for name in ("undecided", "invalid"):
        if verdicts.count(name):
            text += f", {verdicts.count(name)} {name}"
    return text


def kind_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Claims per kind (rows, in ``KINDS`` order) and verdict (columns, ``VERDICTS``)."""
    counts = pd.crosstab(table["kind"], table["verdict"])
    return (
        counts.reindex(index=list(KINDS), columns=list(VERDICTS), fill_value=0)
        .fillna(0)
        .astype(int)
    )


KIND_TITLES = {
    "paper": "Paper claims (statements the seeds make)",
    "erratum": "Errata (printed forms we find wrong; each paired with its corrected paper claim)",
    "control": "Controls (can fail by construction of their counterfactual)",
    "identity": "Identities (exact to round-off: they test our code)",
    "setup": "Setup checks (preconditions of our own experiments)",
}


def _count_text(row: pd.Series) -> str:
    words = {"holds": "hold", "fails": "fail", "undecided": "undecided", "invalid": "invalid"}
    shown = [v for v in VERDICTS if v != "invalid" or row[v]]
    return ", ".join(f"{row[v]} {words[v]}" for v in shown)


def lean_counts(table: pd.DataFrame) -> dict[str, int]:
    """Undecided claims per lean (``holds``, ``fails``, ``centred``, ``vacuous``)."""
    undecided = table[table["verdict"] == "undecided"]
    lean = undecided["lean"].fillna("") if "lean" in undecided else pd.Series("", undecided.index)
    return {side: int((lean == side).sum()) for side in LEANS}


def lean_text(table: pd.DataFrame) -> str:
    """``"Undecided: 30 leaning holds, 18 leaning fails, 2 centred, 4 vacuous."`` ('' when none
    is undecided; a lean with no claim is left out, but for holds and fails)."""
    counts = lean_counts(table)
    if not sum(counts.values()):
        return ""
    words = [f"{counts['holds']} leaning holds", f"{counts['fails']} leaning fails"]
    words += [f"{counts[k]} {k}" for k in ("centred", "vacuous") if counts[k]]
    return "Undecided: " + ", ".join(words) + "."


def headline(table: pd.DataFrame) -> list[str]:
    """The ledger's first lines: paper claims holding / failing / undecided (split by lean),
    then the others."""
    counts = kind_counts(table)
    others = "; ".join(f"{k}: {_count_text(counts.loc[k])}" for k in KINDS[1:])
    paper = table[table["kind"] == "paper"]
    return [
        f"**Paper claims: {_count_text(counts.loc['paper'])}** (of {counts.loc['paper'].sum()})."
        + (" " + lean_text(paper) if lean_text(paper) else ""),
        "",
        f"Counted apart: {others}. {len(table)} claims in all.",
    ]


def ledger_headline(csv_path: str | os.PathLike) -> str:
    """The headline of a written ledger as plain text ('' when there is none yet)."""
    if not os.path.exists(csv_path):
        return ""
    return " ".join(line for line in headline(pd.read_csv(csv_path)) if line)


_LABEL = {
    "holds": "holds",
    "fails": "**FAILS**",
    "undecided": "*undecided*",
    "invalid": "**INVALID**",
}


def _run_lines(run: Mapping | None) -> list[str]:
    if not run:
        return []
    revision = run.get("git_revision") or "not a git checkout"
    return [
        f"Run: config files "
        f"{', '.join(f'`{f}`' for f in run['configfiles']) or 'none'}"
        f"{' with --config overrides' if run.get('config_overrides') else ''}, config sha256 "
        f"`{run['config_sha256'][:16]}`, git `{revision}`"
        f"{' (uncommitted changes)' if run.get('git_dirty') else ''}; confidence level "
        f"{run.get('confidence', DEFAULT_CONFIDENCE):.0%}.",
        "",
    ]


def _interval_text(r) -> str:
    if r.interval == "exact":
        return f"{r.measured:.4g} (exact)"
    return f"{r.measured:.4g} [{r.low:.4g}, {r.high:.4g}] ({r.interval}, n={r.n})"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: a norm's bars ``|x|`` escaped."""
    return str(text).replace("|", "\\|")


def _verdict_cell(r) -> str:
    if r.verdict != "undecided" or not isinstance(r.lean, str) or not r.lean:
        return _LABEL[r.verdict]
    need = r.to_decide
    more = f"; ~{int(need)} {r.units}" if math.isfinite(need) else ""
    return f"{_LABEL[r.verdict]} (leans {r.lean}{more})"


def _markdown(table: pd.DataFrame, run: Mapping | None = None) -> str:
    scales = ", ".join(f"{s} {n}" for s, n in table["scale"].value_counts().sort_index().items())
    lines = [
        "# sigprop claims ledger",
        "",
        *headline(table),
        "",
        *_run_lines(run),
        f"Scale of each claim's item (its config slice): {scales}.",
        "",
    ]
    for kind in KINDS:
        rows = table[table["kind"] == kind]
        if rows.empty:
            continue
        lines += [
            f"## {KIND_TITLES[kind]}: {verdict_counts(rows['verdict'])}",
            "",
            "| verdict | id | measured [interval] | rel. | bound | tol. | tolerance reason | "
            "printed | statement |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rows.itertuples():
            printed = f"{r.printed:.4g}" if math.isfinite(r.printed) else ""
            requires = (
                f" Requires: {r.requires}." if isinstance(r.requires, str) and r.requires else ""
            )
            lines.append(
                f"| {_verdict_cell(r)} | `{r.id}` | {_interval_text(r)} | {r.relation} | "
                f"{r.bound:.4g} | {r.tolerance:.3g} | {_cell(r.tolerance_reason)} | {printed} | "
                f"{_cell(r.statement)} ({_cell(r.source)}){_cell(requires)} |"
            )
        lines.append("")
    found = table[table["analysis"].fillna("") != ""] if "analysis" in table else table.iloc[:0]
    if len(found):
        lines += ["## Findings (`sigprop findings`)", ""]
        for r in found.itertuples():
            lines += [f"- `{r.id}` ({r.verdict}; {r.finding}): {r.analysis}", ""]
    return "\n".join(lines)


def write_ledger(
    paths: Iterable[str | os.PathLike],
    csv_path: str | os.PathLike,
    md_path: str | os.PathLike,
    run: Mapping | None = None,
    findings: Mapping[str, Mapping] | None = None,
) -> pd.DataFrame:
    """Write the ledger as CSV (machine-readable) and Markdown (for readers), atomically.

    The Markdown leads with the paper claims' verdicts, then counts errata, controls,
    identities and setup checks apart; ``run`` (``sigprop.pipeline.run_info.run_record``) names the
    config files, config sha256 and git revision.
    """
    table = ledger(paths, findings)
    with atomic_path(csv_path) as tmp:
        table.to_csv(tmp, index=False)
    with atomic_path(md_path) as tmp:
        tmp.write_text(_markdown(table, run))
    return table


def _short(r: Mapping) -> str:
    if r["interval"] == "exact":
        return f"{r['measured']:.4g}"
    return f"{r['measured']:.4g} [{r['low']:.4g}, {r['high']:.4g}]"


def summarize(records: Iterable[Mapping]) -> str:
    """One line per claim, for rule logs: ``HOLDS paper id: measured [low, high] rel bound``."""
    return "\n".join(
        f"{r['verdict'].upper()} {r['kind']} {r['id']}: {_short(r)} {r['relation']} "
        f"{r['bound']:.4g} (tol {r['tolerance']:.3g})"
        for r in records
    )


def _rst_text(text: str) -> str:
    """Plain text safe inside reStructuredText: markup characters backslash-escaped."""
    return re.sub(r"([\\|*`_])", r"\\\1", text)


_RST_LABEL = {
    "holds": "HOLDS",
    "fails": "**FAILS**",
    "undecided": "*UNDECIDED*",
    "invalid": "**INVALID**",
}


def verdict_caption(description: str, records: Iterable[Mapping]) -> str:
    """A report caption: the figure's description, then one line per verdict (reStructuredText).

    The description may hold Jinja placeholders (``{{ snakemake.params.* }}``); Snakemake
    renders them when it builds the report. Statements are plain text: characters that
    reStructuredText reads as markup (``|x|`` substitutions, ``*``, backquotes) are escaped.
    """
    lines = [description.rstrip(), "", "**Verdicts:**", ""]
    for r in records:
        tol = f", tolerance {r['tolerance']:.3g}" if r["tolerance"] else ""
        lines.append(
            f"- {_RST_LABEL[r['verdict']]} ({r['kind']}) ``{r['id']}``: measured "
            f"{_rst_text(_short(r))} {r['relation']} {r['bound']:.4g}{tol}. "
            f"{_rst_text(r['statement'])}"
            f" ({r['source']}, {r['scale']} scale)"
        )
    return "\n".join(lines) + "\n"
