"""Verdict records: what a seed claims, what we measured, and whether the claim holds.

A ``Claim`` is evaluated, never asserted: its ``verdict`` is computed from the measured
value, the prediction or bound, the relation and the tolerance, so a verdict cannot be set by
hand. Judge rules write one JSON file per checked item holding a list of claims; ``rule all``
collects them into ``results/claims.csv`` and a readable ``results/claims.md``.

Verdicts: ``pass``, ``fail``, and ``invalid`` when the measured value, the bound or the tolerance
is not a finite number (NaN, inf: an overflow, an empty average): such a claim is neither a pass
nor a fail, its ``passed`` is None and its note says why.

Relations:
    "<="      passed iff measured <= bound + tolerance
    ">="      passed iff measured >= bound - tolerance
    "within"  passed iff |measured - bound| <= tolerance (bound is the predicted value)
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import pandas as pd

from .store import atomic_path, write_json

__all__ = [
    "RELATIONS",
    "Claim",
    "evaluate",
    "ledger",
    "read",
    "summarize",
    "verdict_counts",
    "verdict_of",
    "verdict_caption",
    "write",
    "write_ledger",
]

RELATIONS = ("<=", ">=", "within")

VERDICTS = ("pass", "fail", "invalid")

COLUMNS = [
    "id",
    "verdict",
    "passed",
    "measured",
    "measured_se",
    "relation",
    "bound",
    "tolerance",
    "statement",
    "source",
    "figure",
    "scale",
    "note",
]


@dataclass(frozen=True)
class Claim:
    """One verdict. Build it with ``evaluate``; ``passed`` is derived, not given.

    Attributes:
        id: ``<family>.<item>.<what>``, e.g. ``orthogonality.fig2b.gap_slope``.
        statement: the claim in words, with the quantity and the bound.
        source: its place in the seed, e.g. ``DJB21 Fig. 2b; Thesis Fig. 2.2b``.
        measured, measured_se: the number and its standard error over runs (NaN if none).
        relation, bound, tolerance: see the module docstring.
        passed: True (pass), False (fail) or None (invalid: a number was not finite).
        verdict: ``pass``, ``fail`` or ``invalid``.
        figure: the figure file whose plotted numbers it was computed from (or "").
        scale: the config scale (``quick`` or ``paper``).
        note: choices and errata that matter for reading the verdict.
    """

    id: str
    statement: str
    source: str
    measured: float
    relation: str
    bound: float
    tolerance: float
    passed: bool | None
    measured_se: float = math.nan
    figure: str = ""
    scale: str = ""
    note: str = ""
    details: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        return verdict_of(self.passed)


def verdict_of(passed: bool | None) -> str:
    """``pass``, ``fail`` or ``invalid`` (``passed`` is None)."""
    if passed is None or (isinstance(passed, float) and math.isnan(passed)):
        return "invalid"
    return "pass" if passed else "fail"


def _not_finite(measured: float, bound: float, tolerance: float) -> str:
    """Why a claim is invalid ('' when its numbers are finite)."""
    named = {"measured value": measured, "bound": bound, "tolerance": tolerance}
    return ", ".join(f"the {k} is {v}" for k, v in named.items() if not math.isfinite(v))


def _holds(measured: float, relation: str, bound: float, tolerance: float) -> bool | None:
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    if _not_finite(measured, bound, tolerance):
        return None
    if relation == "<=":
        return measured <= bound + tolerance
    if relation == ">=":
        return measured >= bound - tolerance
    return abs(measured - bound) <= tolerance


def evaluate(
    id: str,
    statement: str,
    source: str,
    measured: float,
    relation: str,
    bound: float,
    tolerance: float = 0.0,
    measured_se: float = math.nan,
    **context,
) -> Claim:
    """Build a ``Claim`` whose verdict is computed from the numbers.

    A non-finite measured value, bound or tolerance gives the verdict ``invalid`` (``passed``
    None), with the reason prepended to the note.

    Raises:
        ValueError: for an unknown relation or a negative tolerance.
    """
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    passed = _holds(float(measured), relation, float(bound), float(tolerance))
    if passed is None:
        reason = f"INVALID: {_not_finite(float(measured), float(bound), float(tolerance))}"
        context["note"] = "; ".join(x for x in (reason, context.get("note", "")) if x)
    return Claim(
        id=id,
        statement=statement,
        source=source,
        measured=float(measured),
        relation=relation,
        bound=float(bound),
        tolerance=float(tolerance),
        passed=passed,
        measured_se=float(measured_se),
        **context,
    )


def write(path: str | os.PathLike, claims: Sequence[Claim], **context) -> None:
    """Write claims as a JSON list, atomically; ``context`` (figure, scale) fills empty fields."""
    records = []
    for c in claims:
        record = asdict(c)
        record["verdict"] = c.verdict
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
    """All claims of the given files as one table, sorted by id, one row per claim."""
    rows = [record for p in paths for record in read(p)]
    for row in rows:
        row["verdict"] = verdict_of(row["passed"])
    table = pd.DataFrame(rows, columns=COLUMNS + ["details"])[COLUMNS]
    if table["id"].duplicated().any():
        raise ValueError(
            f"duplicate claim ids: {sorted(table.loc[table['id'].duplicated(), 'id'])}"
        )
    return table.sort_values("id", ignore_index=True)


def verdict_counts(verdicts: Iterable[str]) -> str:
    """``"420 hold, 27 fail, 1 invalid"`` (invalid only when there are any)."""
    verdicts = list(verdicts)
    text = f"{verdicts.count('pass')} hold, {verdicts.count('fail')} fail"
    invalid = verdicts.count("invalid")
    return text + (f", {invalid} invalid" if invalid else "")


_LABEL = {"pass": "PASS", "fail": "**FAIL**", "invalid": "**INVALID**"}


def _run_lines(run: Mapping | None) -> list[str]:
    if not run:
        return []
    revision = run.get("git_revision") or "not a git checkout"
    return [
        f"Run: scale **{run['scale']}** (derived from the merged config), config files "
        f"{', '.join(f'`{f}`' for f in run['configfiles']) or 'none'}"
        f"{' with --config overrides' if run.get('config_overrides') else ''}, config sha256 "
        f"`{run['config_sha256'][:16]}`, git `{revision}`"
        f"{' (uncommitted changes)' if run.get('git_dirty') else ''}.",
        "",
    ]


def _markdown(table: pd.DataFrame, run: Mapping | None = None) -> str:
    lines = [
        "# sigprop claims ledger",
        "",
        *_run_lines(run),
        f"{len(table)} claims: {verdict_counts(table['verdict'])}. "
        f"Scale: {', '.join(sorted(set(table['scale'])))}.",
        "",
        "| verdict | id | measured | relation | bound | tol. | statement |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        se = f" ± {r.measured_se:.2g}" if math.isfinite(r.measured_se) else ""
        lines.append(
            f"| {_LABEL[r.verdict]} | `{r.id}` | {r.measured:.4g}{se} | "
            f"{r.relation} | {r.bound:.4g} | {r.tolerance:.3g} | {r.statement} ({r.source}) |"
        )
    return "\n".join(lines) + "\n"


def write_ledger(
    paths: Iterable[str | os.PathLike],
    csv_path: str | os.PathLike,
    md_path: str | os.PathLike,
    run: Mapping | None = None,
) -> pd.DataFrame:
    """Write the ledger as CSV (machine-readable) and Markdown (for readers), atomically.

    ``run`` (``sigprop.run_info.run_record``) heads the Markdown: scale, config files, config
    sha256, git revision and whether the tree was dirty.
    """
    table = ledger(paths)
    with atomic_path(csv_path) as tmp:
        table.to_csv(tmp, index=False)
    with atomic_path(md_path) as tmp:
        tmp.write_text(_markdown(table, run))
    return table


def summarize(records: Iterable[Mapping]) -> str:
    """One line per claim, for rule logs: ``PASS id: measured rel bound``."""
    return "\n".join(
        f"{verdict_of(r['passed']).upper()} {r['id']}: {r['measured']:.4g} {r['relation']} "
        f"{r['bound']:.4g} (tol {r['tolerance']:.3g})"
        for r in records
    )


def _rst_text(text: str) -> str:
    """Plain text safe inside reStructuredText: markup characters backslash-escaped."""
    return re.sub(r"([\\|*`_])", r"\\\1", text)


def verdict_caption(description: str, records: Iterable[Mapping]) -> str:
    """A report caption: the figure's description, then one line per verdict (reStructuredText).

    The description may hold Jinja placeholders (``{{ snakemake.params.* }}``); Snakemake
    renders them when it builds the report. Statements are plain text: characters that
    reStructuredText reads as markup (``|x|`` substitutions, ``*``, backquotes) are escaped.
    """
    lines = [description.rstrip(), "", "**Verdicts:**", ""]
    for r in records:
        se = f" +- {r['measured_se']:.2g}" if math.isfinite(r["measured_se"]) else ""
        tol = f", tolerance {r['tolerance']:.3g}" if r["tolerance"] else ""
        lines.append(
            f"- {_LABEL[verdict_of(r['passed'])]} ``{r['id']}``: measured "
            f"{r['measured']:.4g}{se} {r['relation']} {r['bound']:.4g}{tol}. "
            f"{_rst_text(r['statement'])}"
            f" ({r['source']}, {r['scale']} scale)"
        )
    return "\n".join(lines) + "\n"
