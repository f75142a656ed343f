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

from .stats import DEFAULT_CONFIDENCE, Measurement
from .store import atomic_path, write_json

__all__ = [
    "DEFAULT_CONFIDENCE",
    "KINDS",
    "RELATIONS",
    "VERDICTS",
    "Claim",
    "Record",
    "confidence",
    "confidence_level",
    "decide",
    "evaluate",
    "judge_records",
    "headline",
    "kind_counts",
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
KINDS = ("paper", "erratum", "control", "identity", "setup")
VERDICTS = ("holds", "fails", "undecided", "invalid")

UNITS = {"t": "runs", "bootstrap": "runs", "se": "points", "fisher_z": "points", "wilson": "trials"}
"""What ``Measurement.n`` counts, per interval method (for the undecided note)."""

COLUMNS = [
    "id",
    "kind",
    "verdict",
    "measured",
    "low",
    "high",
    "interval",
    "n",
    "relation",
    "bound",
    "tolerance",
    "printed",
    "pair",
    "statement",
    "source",
    "figure",
    "scale",
    "note",
]

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
    details: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool | None:
        """True (holds), False (fails), None (undecided or invalid)."""
        return {"holds": True, "fails": False}.get(self.verdict)


def _limits(relation: str, bound: float, tolerance: float) -> tuple[float, float]:
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
    lo_limit, hi_limit = _limits(relation, bound, tolerance)
    if lo_limit <= low and high <= hi_limit:
        return "holds"
    if high < lo_limit or low > hi_limit:
        return "fails"
    return "undecided"


def _not_finite(measured: float, bound: float, tolerance: float) -> str:
    """Why a claim is invalid ('' when its numbers are finite)."""
    named = {"measured value": measured, "bound": bound, "tolerance": tolerance}
    return ", ".join(f"the {k} is {v}" for k, v in named.items() if not math.isfinite(v))


def _undecided_note(m: Measurement, low, high, relation, bound, tolerance, level) -> str:
    lo_limit, hi_limit = _limits(relation, bound, tolerance)
    straddled = [x for x in (lo_limit, hi_limit) if math.isfinite(x) and low <= x <= high]
    limit = min(straddled, key=lambda x: abs(m.value - x)) if straddled else bound
    units = UNITS.get(m.method, "units")
    need = m.units_to_decide(limit, level)
    if m.n == 1 and m.method in ("t", "bootstrap"):
        how = f"one {units[:-1]} gives no interval: at least 2 {units} are needed"
    elif m.n < 2:
        how = f"the measurement names no count of {units} to extrapolate from"
    elif math.isfinite(need):
        how = f"about {int(need)} {units} (now {m.n}) would decide it at the observed spread"
    else:
        how = "more data would not decide it: the value sits on the limit"
    return (
        f"UNDECIDED: the {level:.0%} interval [{low:.4g}, {high:.4g}] contains the limit "
        f"{limit:.4g}; {how}"
    )


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
    **context,
) -> Claim:
    """Build a ``Claim`` whose verdict is computed from the measured interval.

    ``possible``: the range the quantity can take at all (e.g. (0, 1) for a share, or the
    largest value a gap can have at this width). When every possible value satisfies the
    relation, the claim cannot fail: it is ``undecided`` with a ``VACUOUS`` note, never a hold.

    Raises:
        ValueError: an unknown kind or relation, a negative tolerance, an erratum without its
            corrected claim, or a measured value that is not a ``stats.Measurement``.
    """
    _check_claim(id, kind, measured, relation, tolerance, pair)
    level = confidence_level()
    bound, tolerance = float(bound), float(tolerance)
    low, high = measured.interval(level)
    verdict, reason = _verdict(measured, low, high, relation, bound, tolerance, possible, level)
    if reason:
        context["note"] = "; ".join(x for x in (reason, context.get("note", "")) if x)
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
                figure=r.figure,
                details=details,
            )
        )
    return claims


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
    write_json(path, {"claims": records})


def read(path: str | os.PathLike) -> list[dict]:
    """The claim records of one file."""
    with open(path) as f:
        return json.load(f)["claims"]


def ledger(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """All claims of the given files as one table, sorted by id, one row per claim.

    Raises:
        ValueError: duplicate ids, or an erratum whose paired claim is not in the ledger.
    """
    rows = [record for p in paths for record in read(p)]
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


def headline(table: pd.DataFrame) -> list[str]:
    """The ledger's first lines: paper claims holding / failing / undecided, then the others."""
    counts = kind_counts(table)
    others = "; ".join(f"{k}: {_count_text(counts.loc[k])}" for k in KINDS[1:])
    return [
        f"**Paper claims: {_count_text(counts.loc['paper'])}** (of {counts.loc['paper'].sum()}).",
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
            "| verdict | id | measured [interval] | rel. | bound | tol. | printed | statement |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows.itertuples():
            printed = f"{r.printed:.4g}" if math.isfinite(r.printed) else ""
            lines.append(
                f"| {_LABEL[r.verdict]} | `{r.id}` | {_interval_text(r)} | {r.relation} | "
                f"{r.bound:.4g} | {r.tolerance:.3g} | {printed} | "
                f"{_cell(r.statement)} ({_cell(r.source)}) |"
            )
        lines.append("")
    return "\n".join(lines)


def write_ledger(
    paths: Iterable[str | os.PathLike],
    csv_path: str | os.PathLike,
    md_path: str | os.PathLike,
    run: Mapping | None = None,
) -> pd.DataFrame:
    """Write the ledger as CSV (machine-readable) and Markdown (for readers), atomically.

    The Markdown leads with the paper claims' verdicts, then counts errata, controls,
    identities and setup checks apart; ``run`` (``sigprop.run_info.run_record``) names the
    config files, config sha256 and git revision.
    """
    table = ledger(paths)
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
