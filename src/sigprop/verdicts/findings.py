"""Findings: what a failing or fails-leaning paper claim means, in the reviewer's words.

A paper claim that fails, or is undecided and leans to the failing side, is one of three things,
and its finding says which (``READINGS``), with the seed's own words and section, what we
measured and why we read it so:
    finding      a finding about the paper: the seed's statement does not hold at its settings
    finite_size  a finite-size effect: the statement is asymptotic and our sizes are not yet
                 there (``size`` says where it goes away, where that was measured)
    too_strong   the claim reads the seed more strongly than the seed says; where that was the
                 case the claim was fixed under a new id, and the finding stays with a reading
                 the seed also states

Findings are data, one file per family (``papers/<family>/findings.yaml``, keyed by claim id);
``attach`` joins them to the ledger (columns ``finding`` and ``analysis``) and ``sigprop
findings`` prints them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import yaml

__all__ = ["READINGS", "attach", "load", "needing_analysis", "text"]

READINGS = ("finding", "finite_size", "too_strong")
FIELDS = ("section", "quote", "measured", "reading", "analysis")
"""Required fields of a finding; ``size`` (where a finite-size effect goes away) is optional."""

ROOT = Path(__file__).resolve().parents[1] / "papers"


def files(root: Path = ROOT) -> list[Path]:
    """Every family's findings file, sorted by family."""
    return sorted(root.glob("*/findings.yaml"))


def load(root: Path = ROOT) -> dict[str, dict]:
    """Every finding by claim id.

    Raises:
        ValueError: a finding outside its family's file, a missing field or an unknown reading,
            each naming the file and the claim.
    """
    found: dict[str, dict] = {}
    for path in files(root):
        entries = yaml.safe_load(path.read_text()) or {}
        family = path.parent.name
        for claim, entry in entries.items():
            where = f"{path}: {claim}"
            if not claim.startswith(f"{family}."):
                raise ValueError(f"{where}: a finding belongs in its own family's file")
            missing = [k for k in FIELDS if not str((entry or {}).get(k, "")).strip()]
            if missing:
                raise ValueError(f"{where}: missing {', '.join(missing)}")
            if entry["reading"] not in READINGS:
                raise ValueError(f"{where}: reading must be one of {READINGS}")
            found[claim] = dict(entry, text=_analysis(entry))
    return found


def needing_analysis(table: pd.DataFrame) -> pd.DataFrame:
    """The paper claims that fail or lean to failing."""
    lean = table["lean"] if "lean" in table else pd.Series("", index=table.index)
    failing = (table["verdict"] == "fails") | (
        (table["verdict"] == "undecided") & (lean.fillna("") == "fails")
    )
    return table[(table["kind"] == "paper") & failing]


def attach(table: pd.DataFrame, found: Mapping[str, Mapping] | None = None) -> pd.DataFrame:
    """The ledger with each claim's finding (its reading) and analysis ("" where none)."""
    found = load() if found is None else found
    out = table.copy()
    out["finding"] = [found.get(c, {}).get("reading", "") for c in out["id"]]
    out["analysis"] = [_analysis(found[c]) if c in found else "" for c in out["id"]]
    return out


def _analysis(entry: Mapping) -> str:
    size = f" Goes away at: {entry['size']}." if entry.get("size") else ""
    return (
        f'{entry["section"]}: "{str(entry["quote"]).strip()}" Measured: '
        f"{str(entry['measured']).strip()} {str(entry['analysis']).strip()}{size}"
    )


def text(table: pd.DataFrame, found: Mapping[str, Mapping] | None = None) -> tuple[str, int]:
    """``sigprop findings``: each failing or fails-leaning paper claim with its finding, and
    the number of such claims without one."""
    found = load() if found is None else found
    rows = needing_analysis(table)
    lines, missing = [], 0
    for r in rows.to_dict("records"):
        lean = " (leans fails)" if r["verdict"] == "undecided" else ""
        interval = (
            ""
            if r["interval"] == "exact" or not math.isfinite(float(r["low"]))
            else f" [{float(r['low']):.4g}, {float(r['high']):.4g}]"
        )
        lines.append(
            f"{r['verdict'].upper()}{lean} {r['id']}: {float(r['measured']):.4g}{interval} "
            f"{r['relation']} {float(r['bound']):.4g} (tol {float(r['tolerance']):.3g})"
        )
        entry = found.get(r["id"])
        if entry is None:
            missing += 1
            lines += ["  NO ANALYSIS: this claim has no finding yet", ""]
            continue
        lines += [
            f"  reading: {entry['reading']}",
            f'  seed ({entry["section"]}): "{str(entry["quote"]).strip()}"',
            f"  measured: {str(entry['measured']).strip()}",
            f"  analysis: {str(entry['analysis']).strip()}",
        ]
        if entry.get("size"):
            lines.append(f"  goes away at: {entry['size']}")
        lines.append("")
    counts = {k: sum(found.get(c, {}).get("reading") == k for c in rows["id"]) for k in READINGS}
    lines.append(
        f"{len(rows)} paper claims fail or lean to failing: "
        + ", ".join(f"{n} {k}" for k, n in counts.items())
        + f", {missing} without an analysis"
    )
    return "\n".join(lines), missing
