"""The reviewer's entry points: ``sigprop list``, ``show ITEM``, ``compare``, ``golden``,
``findings``, ``check-config``.

``sigprop list`` leads with the paper claims holding / failing / undecided of the last run (other
kinds counted apart), then prints every paper item (family, name, kind, seed reference, outputs
and its verdicts per claim kind); ``sigprop show`` prints one item: its seed reference,
functions, config slice, inputs with their sha256 and provenance, and its claims with kinds,
intervals and verdicts. Items are named ``family.item`` or by any of their files
(``figures/orthogonality/fig2b.pdf``). ``sigprop compare A B`` sets two ledgers side by side (two
machines, quick vs paper, CPU vs CUDA). ``sigprop golden`` compares the claims ledger of a quick
run with the recorded golden verdicts and intervals and every claim's definition with the
recorded definitions (``--write`` records both anew). ``sigprop findings`` prints every failing or
fails-leaning paper claim with its analysis (``sigprop.verdicts.findings``).
``sigprop summary [LEDGER]`` prints a Markdown table of a ledger's claims per kind, family and
verdict (paper claims first; ``--readme FILE``, repeatable, rewrites the generated blocks a file
holds: the README's headline, ``docs/items.md``'s summary and table of items).
``sigprop check-config FILE...`` validates config files as the workflow does, naming the file
and line of a YAML error and the full path of a bad key.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import yaml

from .base.config import merge_configs
from .base.registry import Item, Registry, resolve, simulation_setup
from .papers import load_registry
from .pipeline.run_info import item_scale, reference_configs
from .verdicts import findings
from .verdicts.claims import (
    DEFINITION_COLUMNS,
    KINDS,
    OUTCOME_COLUMNS,
    VERDICTS,
    compare_definitions,
    headline,
    kind_counts,
    lean_text,
    limits,
    read_definitions,
    verdict_counts,
    write_definitions,
)

__all__ = [
    "compare_golden",
    "compare_ledgers",
    "item_files",
    "main",
    "parse_target",
    "replace_block",
    "summary_table",
]

GOLDEN = Path(".test/golden/quick_claims.csv")
DECIDED = Path("ledgers/quick_decided.csv")
"""The quick ledger with undecided claims decided by more runs (``sigprop decide``)."""
GOLDEN_COLUMNS = [*OUTCOME_COLUMNS, "bound", "tolerance", "lean", "to_decide", "units", "slack"]
"""What the golden file pins: ids and kinds exactly, verdicts (``_same_verdict``), measured values
to their slack (``_reproduced``; ``slack`` the rounding motion measured under another kernel
path, ``measured_slack``); an undecided claim's lean and runs to decide it are recorded, not
compared."""

SLACK_FACTOR = 2.0
"""A claim's recorded ``slack`` is this many times how far its measured value moved under
another kernel path (``tests/test_workflow.KERNEL_PATH``): one sample of a chaotic quantity's
rounding motion, doubled for a CPU that rounds otherwise again."""

DEFINITIONS = Path("ledgers/claim_definitions.csv")
"""Every claim's definition at quick scale (``claims.DEFINITION_COLUMNS``), written with the
golden file: the golden check fails on any definition that moved without it."""


def item_files(family: str, item: Item) -> list[str]:
    """The files an item writes, relative to the working directory."""
    stem = f"{family}/{item.name}"
    if item.kind == "simulation":
        return [f"results/{stem}.safetensors", f"results/{stem}.json"]
    claims = [f"results/claims/{stem}.json", f"results/captions/{stem}.rst"]
    if item.kind == "figure":
        return [f"figures/{stem}.pdf", f"figures/{stem}.png", f"results/{stem}.csv", *claims]
    if item.kind == "table":
        return [f"results/{stem}.csv", f"results/{stem}.md", *claims]
    return [f"results/{stem}.csv", f"results/{stem}.json", *claims]


def parse_target(registry: Registry, target: str) -> tuple[str, Item]:
    """``family.item`` or one of the item's files -> (family, item); a clear error otherwise."""
    path = Path(target)
    if len(path.parts) > 1:
        for family, item in registry.items():
            if str(path) in item_files(family, item):
                return family, item
        raise SystemExit(f"sigprop: no item writes {target}; `sigprop list` shows every item")
    family, _, name = target.partition(".")
    found = [(f, i) for f, i in registry.items() if f == family and i.name == name]
    if not found:
        raise SystemExit(f"sigprop: no item {target!r}; `sigprop list` shows every item")
    judged = [(f, i) for f, i in found if i.kind != "simulation"]
    return (judged or found)[0]


def _load_config(paths: Sequence[str]) -> dict:
    config: dict = {}
    for path in paths:
        config = merge_configs(config, _read_yaml(Path(path)))
    return config


def _claims(path: Path) -> list[dict]:
    return json.loads(path.read_text())["claims"] if path.exists() else []


def _verdicts(records: list[dict]) -> str:
    """``"paper 2 hold, 1 fail; control 1 hold, 0 fail"``: per claim kind, in ``KINDS`` order."""
    if not records:
        return "not run"
    return "; ".join(
        f"{kind} {verdict_counts(r['verdict'] for r in records if r['kind'] == kind)}"
        for kind in KINDS
        if any(r["kind"] == kind for r in records)
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _where(function) -> str:
    try:
        source = Path(inspect.getsourcefile(function)).resolve()
        line = inspect.getsourcelines(function)[1]
        root = Path(__file__).resolve().parents[2]
        return f"{function.__module__}.{function.__qualname__} ({source.relative_to(root)}:{line})"
    except (TypeError, ValueError, OSError):
        return f"{function.__module__}.{function.__qualname__}"


def cmd_list(registry: Registry, args) -> int:
    ledger = Path("results/claims.csv")
    if ledger.exists():
        for line in headline(pd.read_csv(ledger, keep_default_na=False, na_values=[""])):
            print(line.replace("**", ""))
        print()
    rows = []
    for family, item in registry.items():
        if args.family and family != args.family:
            continue
        verdicts = ""
        if item.kind != "simulation":
            verdicts = _verdicts(_claims(Path(f"results/claims/{family}/{item.name}.json")))
        rows.append(
            (family, item.name, item.kind, item.source, item_files(family, item)[0], verdicts)
        )
    widths = [max(len(r[k]) for r in rows) for k in range(6)] if rows else [0] * 6
    header = ("family", "item", "kind", "source", "output", "verdicts")
    widths = [max(w, len(h)) for w, h in zip(widths, header, strict=True)]
    for row in (header, *rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return 0


def _config_slice(family: str, item: Item, config: dict) -> dict:
    if item.kind == "simulation":
        return simulation_setup(family, item, config)
    if item.kind == "theorem":
        return resolve(None, config, default=f"{family}/{item.name}")
    return {
        "params": {**resolve(item.params, config), **item.constants},
        "judge": resolve(item.judge_args, config),
    }


class _NoAliases(yaml.SafeDumper):
    """Print a value shared by two keys twice, not as a YAML anchor and alias."""

    def ignore_aliases(self, data) -> bool:
        return True


def cmd_show(registry: Registry, args) -> int:
    family, item = parse_target(registry, args.target)
    config = _load_config(args.configfile)
    print(f"{family}.{item.name}  ({item.kind})")
    print(f"source:     {item.source}")
    for role in ("run", "measure", "judge"):
        if hasattr(item, role):
            print(f"{role + ':':12}{_where(getattr(item, role))}")
    if item.kind in ("figure", "table"):
        print(f"script:     workflow/scripts/{item.script_path}")
    print("outputs:    " + ", ".join(item_files(family, item)))
    scale = item_scale(registry, family, item, config, reference_configs(Path("config")))
    print(f"scale:      {scale} (this item's config slice and what it reads, vs quick and paper)")
    print(f"config ({', '.join(args.configfile)}):")
    print(
        yaml.dump(_config_slice(family, item, config), Dumper=_NoAliases, sort_keys=False).rstrip()
    )
    inputs = []
    if item.kind in ("figure", "table"):
        for name, ref in item.reads.items():
            inputs.append((name, Path(registry.read_path(family, ref))))
    elif item.kind == "theorem":
        inputs.append(("measured", Path(f"results/{family}/{item.name}.csv")))
    for name, path in inputs:
        if not path.exists():
            print(f"input {name}: {path} (not built yet)")
            continue
        print(f"input {name}: {path} sha256 {_sha256(path)[:16]}")
        meta = path.with_suffix(".json")
        if meta.exists():
            record = json.loads(meta.read_text())
            keys = ("git_revision", "device", "wall_time_s", "finished_utc")
            print("  provenance: " + ", ".join(f"{k}={record.get(k)}" for k in keys))
    records = _claims(Path(f"results/claims/{family}/{item.name}.json"))
    if item.kind != "simulation":
        print(f"claims: {_verdicts(records)}")
    found = findings.load()
    for r in records:
        interval = "" if r["interval"] == "exact" else f" [{r['low']:.4g}, {r['high']:.4g}]"
        print(
            f"  {r['verdict'].upper()} {r['kind']} {r['id']}: {r['measured']:.4g}{interval}"
            f" ({r['interval']}) {r['relation']} {r['bound']:.4g} (tol {r['tolerance']:.3g})"
            f" [{r['scale']}]"
        )
        print(f"    tolerance: {r.get('tolerance_reason') or 'NO REASON GIVEN'}")
        if r.get("requires"):
            print(f"    requires: {r['requires']}")
        if r.get("lean"):
            need = r.get("to_decide", math.nan)
            more = (
                f"; about {int(need)} {r['units']} would decide it" if math.isfinite(need) else ""
            )
            print(f"    undecided, leans {r['lean']}{more}")
        if r["id"] in found:
            print(f"    finding ({found[r['id']]['reading']}): {found[r['id']]['text']}")
    return 0


def cmd_findings(registry: Registry, args) -> int:
    """``sigprop findings``: every failing or fails-leaning paper claim with its analysis."""
    if not args.ledger.exists():
        print(f"sigprop: ledger {args.ledger} not found (run the workflow or name a ledger)")
        return 1
    body, missing = findings.text(read_ledger(args.ledger))
    print(body)
    return 1 if missing and args.strict else 0


EXACT_RTOL_ACROSS_MACHINES = 1e-3
"""The relative slack of an ``exact`` claim's value (a deterministic function of seeded draws)
between machines: every exact value of the quick ledger was bit for bit the same on an AMD EPYC
and an Intel Xeon (2026-11-28, bench/README "Golden agreement and kernel paths"); a code change
that moves an exact number by 0.1% shows. Where another kernel path moves a value more (Cor.
15's smallest rank by 0.9% under AVX2 and MKL's compatible path), its recorded ``slack`` is the
slack (``measured_slack``)."""

RUN_AGREEMENT = 0.5
"""How far a run or draw mean may move between machines, as a share of the two intervals'
facing half-widths combined, sqrt(h_then^2 + h_now^2). Rounding changes SGD trajectories, so
another machine's training runs are partly new draws: between an AMD EPYC and an Intel Xeon the
largest move was 0.33 of it (rank_collapse.fig6.sgd_keeps_rank_order; 332 of 351 run and draw
means were bit for bit the same); a kernel path that moved more is covered by its recorded
``slack``. A code change that moves a training claim's mean by half its combined interval
(Dan+20 Fig. 12's deep speed-up by +0.8 against 0.9) shows."""


def _half_width_towards(row: pd.Series, value: float) -> float:
    """The half of ``row``'s interval that faces ``value`` (0 where it has none)."""
    y = float(row["measured"])
    edge = float(row.get("high", y)) if value >= y else float(row.get("low", y))
    return 0.0 if math.isnan(edge) else abs(edge - y)


def measured_slack(ledger: pd.DataFrame, other: pd.DataFrame) -> pd.Series:
    """Per claim of ``ledger`` (by id): ``SLACK_FACTOR`` times how far its measured value moved
    in ``other``, the same run under another kernel path (0 where it did not move or is not in
    ``other``)."""
    moved = (
        ledger.set_index("id")["measured"]
        - other.set_index("id")["measured"].reindex(ledger["id"]).to_numpy()
    )
    return (SLACK_FACTOR * moved.abs()).fillna(0.0).rename("slack")


def _slack(then: pd.Series) -> float:
    value = float(then.get("slack", 0.0))
    return 0.0 if math.isnan(value) else value


def _reproduced(now: pd.Series, then: pd.Series, rtol: float, atol: float) -> bool:
    """Whether a measured value reproduces a golden row (on another machine):

    - a run or draw interval (t, se, bootstrap, Fisher z, Wilson): the two means agree within
      ``RUN_AGREEMENT`` of their intervals' facing half-widths combined,
      |x - y| <= RUN_AGREEMENT sqrt(h_then^2 + h_now^2) (another machine's SGD runs are partly
      new draws of the same runs);
    - an exact value: within ``rtol`` of it (``EXACT_RTOL_ACROSS_MACHINES``);
    - an identity: anywhere below its own round-off bound (its verdict is compared apart).

    Where the golden row records a ``slack`` (its value's measured motion under another kernel
    path, ``measured_slack``), that is the slack when larger. ``atol`` is a floor of every
    slack. NaN equals NaN."""
    x, y = float(now["measured"]), float(then["measured"])
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if then.get("kind") == "identity":
        return abs(x - y) <= max(atol, abs(float(then["bound"])) + float(then["tolerance"]))
    if then.get("interval", "exact") != "exact":
        combined = math.hypot(_half_width_towards(then, x), _half_width_towards(now, y))
        return abs(x - y) <= max(RUN_AGREEMENT * combined, 1e-9 * abs(y), _slack(then), atol)
    return abs(x - y) <= max(rtol * abs(y), _slack(then), atol)


def _within_rounding_of_a_limit(then: pd.Series, relation: str) -> bool:
    """Whether another machine's rounding can carry the recorded interval across a limit of the
    claim (``bound`` -+ ``tolerance`` by ``relation``): only a claim whose value was measured to
    move under another kernel path (a recorded ``slack``) can, and only across a limit within
    reach of the recorded interval's edge, the reach being the larger of the recorded half-width
    facing the limit (another machine's runs are new draws of the same runs: their interval
    moves and resizes by about that much) and the slack."""
    slack = _slack(then)
    if not slack:
        return False
    low, high = (float(then[k]) for k in ("low", "high"))
    for limit in limits(relation, float(then["bound"]), float(then["tolerance"])):
        if not math.isfinite(limit) or math.isnan(low) or math.isnan(high):
            continue
        distance = min(abs(limit - low), abs(limit - high))
        if max(_half_width_towards(then, limit), slack) >= distance:
            return True
    return False


def _same_verdict(now: pd.Series, then: pd.Series) -> bool:
    """Whether a verdict reproduces the golden one: equal; or one step to or from ``undecided``
    of a claim whose value moves with rounding, across a limit within its reach
    (``_within_rounding_of_a_limit``). SGD
    amplifies a 1e-6 relative change of a forward pass into another trajectory: on an Intel Xeon
    against the AMD-recorded file, Dan+20 Figs. 4 and 11's slowdown claims stepped from holds to
    undecided, their recorded intervals ending 0.12 and 0.035 short of the limit. ``holds``
    against ``fails`` is always a difference, and so is a step far from every limit (a widened
    interval, a loosened reading)."""
    if now["verdict"] == then["verdict"]:
        return True
    pair = {now["verdict"], then["verdict"]}
    if pair not in ({"holds", "undecided"}, {"fails", "undecided"}):
        return False
    relation = now.get("relation", then.get("relation"))
    if not isinstance(relation, str) or relation not in ("<=", ">=", "within"):
        return False
    return _within_rounding_of_a_limit(then, relation)


def _requirement_stepped(now: pd.Series, then: pd.Series, stepped: set[str]) -> bool:
    """Whether a claim's verdict moved to or from ``invalid`` because a claim it requires took a
    step that rounding explains (``_same_verdict``): the claim follows its requirement."""
    if "invalid" not in {now["verdict"], then["verdict"]}:
        return False
    return any(x in stepped for x in str(now.get("requires") or "").split())


def compare_golden(
    ledger, golden, rtol: float = EXACT_RTOL_ACROSS_MACHINES, atol: float = 1e-12
) -> list[str]:
    """Differences between a claims ledger and the golden file (empty when they agree).

    Claim ids and kinds must match exactly, and verdicts too but for a step to or from undecided
    that rounding explains (``_same_verdict``) and a step to or from invalid of a claim whose
    requirement took such a step (``_requirement_stepped``); a measured value must agree with
    the golden one within its slack (``_reproduced``), so the file holds on any CPU whose
    rounding differs from the recorder's.
    Bit-identity of two runs on one machine is a separate test.
    """
    problems = []
    now = ledger.set_index("id")
    then = golden.set_index("id")
    for claim in sorted(set(then.index) - set(now.index)):
        problems.append(f"missing claim {claim}")
    for claim in sorted(set(now.index) - set(then.index)):
        problems.append(f"new claim {claim} (not in the golden file)")
    both = sorted(set(now.index) & set(then.index))
    stepped = {
        c for c in both if now.loc[c, "verdict"] != then.loc[c, "verdict"]
        and _same_verdict(now.loc[c], then.loc[c])
    }  # fmt: skip
    for claim in both:
        a, b = now.loc[claim], then.loc[claim]
        if "kind" in b and a["kind"] != b["kind"]:
            problems.append(f"{claim}: kind {b['kind']} -> {a['kind']}")
        if not (_same_verdict(a, b) or _requirement_stepped(a, b, stepped)):
            problems.append(f"{claim}: verdict {b['verdict']} -> {a['verdict']}")
        if not _reproduced(a, b, rtol, atol):
            low, high = float(b.get("low", math.nan)), float(b.get("high", math.nan))
            where = "" if math.isnan(low) or low == high else f" [{low!r}, {high!r}]"
            problems.append(
                f"{claim}: measured {float(b['measured'])!r}{where} -> {float(a['measured'])!r}"
            )
    return problems


def compare_ledgers(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Two ledgers side by side, one row per claim id in either: both kinds, verdicts and
    intervals, and whether they agree (same verdict and overlapping intervals)."""
    cols = [*OUTCOME_COLUMNS, "scale"]
    a, b = (t.reindex(columns=cols) for t in (a, b))  # the golden file has no scale
    both = pd.merge(a, b, on="id", how="outer", suffixes=("_a", "_b")).set_index("id")
    overlap = (both["low_a"] <= both["high_b"]) & (both["low_b"] <= both["high_a"])
    both["agree"] = (both["verdict_a"] == both["verdict_b"]) & overlap
    both["kind"] = both["kind_a"].fillna(both["kind_b"])
    return both.reset_index()


_NA = {"printed": [""], "bound": [""], "measured": [""], "low": [""], "high": [""]}
"""Cells read as NaN in a ledger; every other empty cell (a note, a lean) reads as ""."""


def read_ledger(path: Path) -> pd.DataFrame:
    """A ledger CSV; the golden file joined with the recorded definitions (``DEFINITIONS``,
    beside the checkout's golden file) so that definitions compare too."""
    table = pd.read_csv(path, keep_default_na=False, na_values=_NA)
    for col in ("to_decide", "tolerance", "bound", "n"):
        if col in table:
            table[col] = pd.to_numeric(table[col], errors="coerce")
    if "statement" not in table and DEFINITIONS.exists() and path.resolve() == GOLDEN.resolve():
        recorded = read_definitions(DEFINITIONS)
        extra = [c for c in DEFINITION_COLUMNS if c not in table or c == "id"]
        table = table.merge(recorded[extra], on="id", how="left")
    return table


def cmd_compare(registry: Registry, args) -> int:
    """``sigprop compare A B``: per claim both verdicts and intervals, counts per kind."""
    tables = []
    for path in (args.a, args.b):
        if not path.exists():
            print(f"sigprop: ledger {path} not found")
            return 1
        tables.append(read_ledger(path))
    both = compare_ledgers(*tables)
    shown = both if args.all else both[~both["agree"]]

    def side(r, s):
        if pd.isna(r[f"verdict_{s}"]):
            return "absent"
        if r[f"interval_{s}"] == "exact":
            return f"{r[f'verdict_{s}']} {r[f'measured_{s}']:.4g}"
        low, high = r[f"low_{s}"], r[f"high_{s}"]
        return f"{r[f'verdict_{s}']} {r[f'measured_{s}']:.4g} [{low:.4g}, {high:.4g}]"

    for r in shown.to_dict("records"):
        mark = "=" if r["agree"] else "!"
        print(f"{mark} {r['kind']:8} {r['id']}: A {side(r, 'a')} | B {side(r, 'b')}")
    print(f"A = {args.a}, B = {args.b}")
    for kind in KINDS:
        rows = both[both["kind"] == kind]
        if len(rows):
            only = rows["verdict_a"].isna() | rows["verdict_b"].isna()
            print(
                f"{kind:8}: {int(rows['agree'].sum())} agree, "
                f"{int((~rows['agree'] & ~only).sum())} differ, "
                f"{int(only.sum())} in one ledger only"
            )
    defined = [t for t in tables if "statement" in t]
    if len(defined) == 2:
        changes = compare_definitions(tables[1], tables[0])
        for line in changes:
            print(f"~ definition {line}")
        print(f"definitions: {len(changes)} changes (A -> B)")
    else:
        print("definitions: not compared (a ledger without them; the golden file takes them from")
        print(f"  {DEFINITIONS} where it exists)")
    for name, table in (("A", tables[0]), ("B", tables[1])):
        counts = kind_counts(table).loc["paper"]
        print(
            f"{name} paper claims: {verdict_counts(v for v, n in counts.items() for _ in range(n))}"
        )
    return 0


def golden_problems(
    ledger: pd.DataFrame,
    golden: pd.DataFrame,
    recorded: pd.DataFrame,
    rtol: float = EXACT_RTOL_ACROSS_MACHINES,
    atol: float = 1e-12,
) -> list[str]:
    """The golden check: verdicts and measured values against the golden file
    (``compare_golden``), and every claim's definition against the recorded definitions
    (``claims.compare_definitions``): a loosened tolerance or a moved bound fails it unless the
    definitions file changes with it."""
    problems = compare_golden(ledger, golden, rtol, atol)
    return problems + [f"definition {p}" for p in compare_definitions(ledger, recorded)]


def cmd_golden(registry: Registry, args) -> int:
    ledger = pd.read_csv(args.ledger, keep_default_na=False, na_values=_NA)
    if args.write:
        args.golden.parent.mkdir(parents=True, exist_ok=True)
        golden = ledger.drop(columns="slack", errors="ignore")
        if args.kernel_path:
            slack = measured_slack(ledger, read_ledger(args.kernel_path))
            print(f"slack measured against {args.kernel_path}: {int((slack > 0).sum())} moved")
        elif args.golden.exists():  # a measured property: kept until measured again
            slack = pd.read_csv(args.golden).set_index("id").get("slack", pd.Series(dtype=float))
        else:
            slack = pd.Series(dtype=float)
        golden = golden.merge(
            slack.rename("slack").rename_axis("id").reset_index(), on="id", how="left"
        ).fillna({"slack": 0.0})
        golden = golden.reindex(columns=GOLDEN_COLUMNS).sort_values("id")
        golden.to_csv(args.golden, index=False)
        args.definitions.parent.mkdir(parents=True, exist_ok=True)
        write_definitions(ledger, args.definitions)
        print(
            f"wrote {len(ledger)} golden verdicts to {args.golden} and their definitions to "
            f"{args.definitions}"
        )
        return 0
    golden = pd.read_csv(args.golden)
    if not args.definitions.exists():
        print(f"sigprop: no recorded definitions at {args.definitions} (golden --write makes it)")
        return 1
    recorded = read_definitions(args.definitions)
    problems = golden_problems(ledger, golden, recorded, args.rtol, args.atol)
    for line in problems:
        print(line)
    print(
        f"{len(ledger)} claims; {len(problems)} differences from {args.golden} and "
        f"{args.definitions}"
    )
    return 1 if problems else 0


HEADLINE_START = "<!-- claims-headline:start -->"
HEADLINE_END = "<!-- claims-headline:end -->"
"""The markers of README.md's generated headline (``sigprop summary --readme README.md``)."""
DECIDED_START = "<!-- decided-headline:start -->"
DECIDED_END = "<!-- decided-headline:end -->"
"""The markers of README.md's line on the decided ledger (``DECIDED``), generated beside the
headline."""
SUMMARY_START = "<!-- claims-summary:start -->"
SUMMARY_END = "<!-- claims-summary:end -->"
"""The markers of ``docs/items.md``'s generated summary (``sigprop summary --readme FILE``)."""
DOCS = (Path("README.md"), Path("docs/items.md"))
"""The files whose generated blocks ``make golden`` rewrites from the golden ledger."""


def headline_table(table: pd.DataFrame) -> str:
    """The paper claims' headline (``summary_table``'s first line) and a ledger's claims per
    kind and verdict, every family together, as a Markdown table."""
    kind = table["kind"] if "kind" in table else pd.Series("(none)", index=table.index)
    verdicts = [*VERDICTS, *sorted(set(table["verdict"]) - set(VERDICTS))]
    kinds = [k for k in [*KINDS, *sorted(set(kind) - set(KINDS))] if (kind == k).any()]
    counts = pd.crosstab(kind, table["verdict"]).reindex(columns=verdicts, fill_value=0)
    lines = [
        summary_table(table).splitlines()[0],
        "",
        "| kind | " + " | ".join(verdicts) + " | claims |",
        "|---|" + "---:|" * (len(verdicts) + 1),
    ]
    for k in kinds:
        cells = " | ".join(str(int(counts.loc[k, v])) for v in verdicts)
        lines.append(f"| {k} | {cells} | {int(counts.loc[k].sum())} |")
    return "\n".join(lines) + "\n"


def decided_line(decided: pd.DataFrame) -> str:
    """The paper claims of the decided ledger (``DECIDED``) in one line, the undecided split by
    lean."""
    paper = decided[decided["kind"] == "paper"]
    lean = lean_text(paper)
    return (
        f"With more runs where a claim was undecided (`sigprop decide`, [{DECIDED}]({DECIDED})): "
        f"{verdict_counts(paper['verdict'])} (of {len(paper)}).{' ' + lean if lean else ''}\n"
    )


def summary_table(table: pd.DataFrame) -> str:
    """A ledger's claims per kind (paper first, ``KINDS`` order), family and verdict, as a
    Markdown table led by the paper claims' headline; each kind ends with its total row.

    Reads only the columns ``id`` (family = its first part), ``kind``, ``verdict`` and ``lean``
    (the headline splits the undecided paper claims by lean), so it works on a full ledger
    (``results/claims.csv``) and on the golden file alike."""
    table = table.assign(
        family=table["id"].str.split(".").str[0],
        kind=table["kind"] if "kind" in table else "(none)",
    )
    verdicts = [*VERDICTS, *sorted(set(table["verdict"]) - set(VERDICTS))]
    kinds = [*KINDS, *sorted(set(table["kind"]) - set(KINDS))]
    counts = pd.crosstab([table["kind"], table["family"]], table["verdict"]).reindex(
        columns=verdicts, fill_value=0
    )
    paper = table[table["kind"] == "paper"]
    leaning = ""
    if "lean" in paper and (paper["verdict"] == "undecided").any():
        leaning = " " + lean_text(paper)
    lines = [
        f"Paper claims: {verdict_counts(paper['verdict'])} (of {len(paper)}); {len(table)} "
        f"claims in all.{leaning}",
        "",
        "| kind | family | " + " | ".join(verdicts) + " | claims |",
        "|---|---|" + "---:|" * (len(verdicts) + 1),
    ]
    for kind in kinds:
        if kind not in counts.index.get_level_values(0):
            continue
        rows = counts.loc[kind]
        for family, row in rows.iterrows():
            cells = " | ".join(str(int(row[v])) for v in verdicts)
            lines.append(f"| {kind} | {family} | {cells} | {int(row.sum())} |")
        total = rows.sum()
        cells = " | ".join(f"**{int(total[v])}**" for v in verdicts)
        lines.append(f"| **{kind}** | **all** | {cells} | **{int(total.sum())}** |")
    return "\n".join(lines) + "\n" + undecided_table(table)


def undecided_table(table: pd.DataFrame) -> str:
    """The undecided paper claims with their lean and about how many runs (points, trials)
    would decide each at the observed spread, as a Markdown table ('' when none is undecided
    or the ledger has no leans)."""
    rows = table[(table["kind"] == "paper") & (table["verdict"] == "undecided")]
    if rows.empty or "lean" not in rows:
        return ""
    order = {side: i for i, side in enumerate(("fails", "holds", "centred", "vacuous"))}
    rows = rows.assign(order=rows["lean"].map(order)).sort_values(["order", "id"])
    lines = ["", "| undecided paper claim | lean | would be decided by about |", "|---|---|---|"]
    for r in rows.to_dict("records"):
        need = pd.to_numeric(r.get("to_decide"), errors="coerce")
        if r["lean"] == "vacuous":
            decide = "nothing: it cannot fail at these settings"
        elif pd.notna(need) and math.isfinite(need):
            decide = f"{int(need)} {r.get('units') or 'units'}"
        else:
            decide = "no amount: the estimate sits on the limit"
        lines.append(f"| `{r['id']}` | {r['lean']} | {decide} |")
    return "\n".join(lines) + "\n"


ITEMS_START = "<!-- items:start -->"
ITEMS_END = "<!-- items:end -->"
"""The markers of ``docs/items.md``'s generated table of items (``sigprop summary --readme``)."""


def item_title(family: str, item) -> str:
    """What an item shows, in one line: its script's first docstring line (a figure or table;
    a shared script's filled from the item's ``source`` and ``constants``), or its
    measurement's (a theorem), without the leading "<source>: "."""
    if item.kind == "theorem":
        function = getattr(item.measure, "resolve", lambda: item.measure)()
        text = inspect.getdoc(function) or ""
    else:
        from .pipeline.jobs import render_description, script_description

        script = Path("workflow/scripts") / item.script_path
        text = script_description(script).split("\n\n")[0] if script.exists() else ""
        params = {"source": item.source, **item.constants}
        text = render_description(text, params, {}, {"family": family, "item": item.name})
    first = " ".join(text.split("\n\n")[0].split())
    return first.split(": ", 1)[1] if ": " in first[:80] else first


def items_table(registry: Registry, table: pd.DataFrame) -> str:
    """Every figure, table and theorem item of the registry: source, output, what it shows (its
    script's or measurement's docstring) and its claims in the ledger (paper claims' verdicts
    first, the other kinds counted apart), as a Markdown table."""
    table = table.assign(item=table["id"].str.split(".").str[:2].str.join("."))
    lines = [
        "| item | source | output | what it shows | paper claims | other claims |",
        "|---|---|---|---|---|---|",
    ]
    for family, item in registry.items():
        if item.kind == "simulation":
            continue
        folder = "figures" if item.kind == "figure" else "results"
        output = f"`{folder}/{family}/{item.name}.{'pdf' if item.kind == 'figure' else 'csv'}`"
        claims = table[table["item"] == f"{family}.{item.name}"]
        paper = claims[claims["kind"] == "paper"]["verdict"]
        others = "; ".join(
            f"{kind}: {verdict_counts(claims[claims['kind'] == kind]['verdict'])}"
            for kind in KINDS[1:]
            if (claims["kind"] == kind).any()
        )
        title = item_title(family, item).replace("\\|", "|").replace("|", "\\|")
        lines.append(
            f"| `{family}.{item.name}` | {item.source} | {output} | {title} | "
            f"{verdict_counts(paper) if len(paper) else 'none'} | {others or 'none'} |"
        )
    return "\n".join(lines) + "\n"


def replace_block(text: str, block: str, start: str = SUMMARY_START, end: str = SUMMARY_END) -> str:
    """``text`` with what lies between the ``start`` and ``end`` marker lines replaced by
    ``block``; ValueError when the markers are missing or out of order."""
    head, found, rest = text.partition(start + "\n")
    body, found_end, tail = rest.partition(end)
    if not found or not found_end:
        raise ValueError(f"no block between {start} and {end}")
    return f"{head}{start}\n{block}{end}{tail}"


def cmd_summary(registry: Registry, args) -> int:
    """``sigprop summary [LEDGER]``: the ledger per kind, family and verdict (Markdown)."""
    if not args.ledger.exists():
        print(f"sigprop: ledger {args.ledger} not found")
        return 1
    ledger = pd.read_csv(args.ledger, keep_default_na=False, na_values=[""])
    block = summary_table(ledger)
    if args.readme is None:
        print(block, end="")
        return 0
    blocks = {
        (HEADLINE_START, HEADLINE_END): lambda: headline_table(ledger),
        (DECIDED_START, DECIDED_END): lambda: decided_line(
            pd.read_csv(DECIDED, keep_default_na=False, na_values=[""])
        ),
        (SUMMARY_START, SUMMARY_END): lambda: block,
        (ITEMS_START, ITEMS_END): lambda: items_table(registry, ledger),
    }
    for path in args.readme:
        text = updated = path.read_text()
        found = [markers for markers in blocks if markers[0] in text]
        if not found:
            starts = ", ".join(start for start, _ in blocks)
            raise SystemExit(f"sigprop: {path}: no generated block (none of {starts})")
        try:
            for start, end in found:
                updated = replace_block(updated, blocks[start, end](), start, end)
        except ValueError as error:
            raise SystemExit(f"sigprop: {path}: {error}") from None
        if updated != text:
            path.write_text(updated)
        state = "rewritten" if updated != text else "up to date"
        print(f"{path}: generated blocks from {args.ledger} {state}")
    return 0


def _read_yaml(path: Path) -> dict:
    """A config file, or SystemExit naming the file and the line of a syntax error."""
    if not path.is_file():
        raise SystemExit(f"sigprop: config file {path} does not exist")
    try:
        loaded = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = getattr(error, "problem", None) or str(error)
        raise SystemExit(f"sigprop: {where}: invalid YAML: {problem}") from None
    if loaded is not None and not isinstance(loaded, dict):
        raise SystemExit(f"sigprop: {path}: a config file must be a mapping of keys")
    return loaded or {}


def cmd_check_config(registry: Registry, args) -> int:
    """Validate config files as Snakemake would: YAML, schema, cross-key checks."""
    import jsonschema

    from .base.config import ConfigError, load_schema

    config = _load_config([Path("config/config.yaml"), *args.files])
    schema = load_schema()
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    for error in errors:
        key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        print(f"sigprop: config key {key}: {error.message}")
    if errors:
        return 1
    try:
        registry.check_config(config)
    except ConfigError as error:
        print(f"sigprop: {error}")
        return 1
    print(f"config OK: {', '.join(str(p) for p in ['config/config.yaml', *args.files])}")
    return 0


def cmd_benchmarks(registry, args) -> int:
    """Where the last run's time went (``results/benchmarks.csv``, see
    sigprop.pipeline.job_benchmarks)."""
    from .pipeline import job_benchmarks

    if not args.table.exists():
        print(f"sigprop: {args.table} not found: run the workflow first (snakemake all)")
        return 1
    jobs = pd.read_csv(args.table)
    print(job_benchmarks.describe(job_benchmarks.summarize(jobs, slowest=args.slowest)))
    return 0


def compute_items(registry: Registry, family: str, item) -> list[str]:
    """The simulations and theorem measurements (``family/name``) a judged item runs on."""
    if item.kind == "theorem":
        return [f"{family}/{item.name}"]
    found = []
    for ref in item.reads.values():
        fam, read = registry.read_of(family, ref)
        found.append(f"{fam}/{read.name}")
    return sorted(set(found))


def affordable_targets(
    registry: Registry, costs: dict, budget_s: float, gpu: bool = False
) -> tuple[list[str], dict[str, str]]:
    """Claims files (``results/claims/<family>/<item>.json``) of the judged items whose compute
    items all have a paper-scale cost of at most ``budget_s`` seconds each: one CPU core's
    projection (``cpu_paper_s``), or with ``gpu`` the H100's (``job_resources.gpu_seconds``:
    measured where measured); and, for the others, why not (``family.item`` -> reason)."""
    from .pipeline.job_resources import gpu_seconds, number

    chosen, left = [], {}
    for family, item in registry.judged():
        reasons = []
        for key in compute_items(registry, family, item):
            row = costs.get(key)
            seconds = gpu_seconds(row) if gpu else number(row, "cpu_paper_s")
            if not math.isfinite(seconds):
                reasons.append(
                    f"{key}: no projection ({costs.get(key, {}).get('status', 'not in the table')})"
                )
            elif seconds > budget_s:
                reasons.append(f"{key}: {seconds:.3g} s projected")
        if reasons:
            left[f"{family}.{item.name}"] = "; ".join(reasons)
        else:
            chosen.append(f"results/claims/{family}/{item.name}.json")
    return chosen, left


def cmd_targets(registry: Registry, args) -> int:
    """The claims targets whose paper-scale compute fits a budget (one line each, for
    ``snakemake --configfile config/paper.yaml $(sigprop targets)``)."""
    from .pipeline.job_resources import cost_table

    costs = cost_table(args.costs)
    if not costs:
        print(f"sigprop: no cost table at {args.costs} (bench/cost_table.py writes one)")
        return 1
    chosen, left = affordable_targets(registry, costs, args.max_seconds, args.gpu)
    print("\n".join(chosen))
    if args.why:
        for name, reason in left.items():
            print(f"# left out {name}: {reason}", file=sys.stderr)
    return 0


def cmd_decide(registry: Registry, args) -> int:
    """``sigprop decide``: more runs for the items holding undecided claims
    (sigprop.pipeline.decide)."""
    from .pipeline import decide

    try:
        return decide.main(registry, args)
    except decide.DecideError as error:
        print(f"sigprop decide: {error}", file=sys.stderr)
        return 2


def add_decide_parser(sub) -> None:
    """``sigprop decide``'s arguments."""
    dec = sub.add_parser(
        "decide",
        help="more runs for the items holding undecided claims, alpha spent over looks",
    )
    dec.add_argument("items", nargs="*", help="family.item (default: every undecided item)")
    dec.add_argument("--budget", type=float, required=True, help="CPU-hours for the looks")
    dec.add_argument("--dry-run", action="store_true", help="print the plan, run nothing")
    dec.add_argument("--max-looks", type=int, default=3, help="looks after look 0 (2^k runs)")
    dec.add_argument("--ledger", type=Path, default=Path("results/claims.csv"))
    dec.add_argument("--output", type=Path, default=Path("ledgers/quick_decided.csv"))
    dec.add_argument("--directory", type=Path, default=Path("decide"), help="where looks run")
    dec.add_argument("--cores", type=int, default=1, help="Snakemake cores of each look")
    dec.add_argument(
        "--jobs", type=int, default=1, help="groups looked at at once (cores in all: jobs x cores)"
    )
    dec.add_argument(
        "--jump",
        action="store_true",
        help="skip the looks no claim is projected to be decided at (each look reruns all runs)",
    )


def _parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per entry point."""
    parser = argparse.ArgumentParser(prog="sigprop", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="every paper item with its outputs and verdicts")
    listing.add_argument("family", nargs="?", help="only this family")
    show = sub.add_parser("show", help="one item: seed, code, config, inputs, claims")
    show.add_argument("target", help="family.item or a file it writes")
    show.add_argument(
        "--configfile",
        nargs="+",
        default=["config/config.yaml"],
        help="config files, later ones merged over earlier ones (as Snakemake does)",
    )
    golden = sub.add_parser("golden", help="compare the ledger with the golden quick verdicts")
    golden.add_argument("--ledger", type=Path, default=Path("results/claims.csv"))
    golden.add_argument("--golden", type=Path, default=GOLDEN)
    golden.add_argument(
        "--definitions", type=Path, default=DEFINITIONS, help="the recorded claim definitions"
    )
    golden.add_argument(
        "--rtol", type=float, default=EXACT_RTOL_ACROSS_MACHINES, help="an exact value's slack"
    )
    golden.add_argument("--atol", type=float, default=1e-12, help="absolute slack")
    compare = sub.add_parser(
        "compare", help="two ledgers side by side: verdicts, intervals, agreement per kind"
    )
    compare.add_argument("a", type=Path, help="a claims.csv (e.g. this machine's)")
    compare.add_argument("b", type=Path, help="another claims.csv (another machine, scale, device)")
    compare.add_argument("--all", action="store_true", help="print agreeing claims too")
    golden.add_argument("--write", action="store_true", help="record the ledger as golden")
    golden.add_argument(
        "--kernel-path",
        type=Path,
        help="with --write: the same run's ledger under another kernel path; each claim's "
        "recorded slack is twice how far it moved there",
    )
    found = sub.add_parser(
        "findings", help="every failing or fails-leaning paper claim with its analysis"
    )
    found.add_argument("ledger", nargs="?", type=Path, default=Path("results/claims.csv"))
    found.add_argument("--strict", action="store_true", help="exit 1 when a claim has no analysis")
    summary = sub.add_parser(
        "summary", help="a ledger's claims per kind, family and verdict, as a Markdown table"
    )
    summary.add_argument("ledger", nargs="?", type=Path, default=Path("results/claims.csv"))
    summary.add_argument(
        "--readme",
        type=Path,
        action="append",
        help="rewrite the generated blocks this file holds (headline, summary, items: the "
        "markers <!-- claims-headline|claims-summary|items:start -->); repeat for several files",
    )
    check = sub.add_parser(
        "check-config",
        help="validate config files (YAML syntax with file and line, schema, cross-key checks)",
    )
    check.add_argument("files", nargs="*", type=Path, help="files merged over config.yaml")
    bench = sub.add_parser(
        "benchmarks", help="where the last run's time went: wall, start-up, slowest jobs, memory"
    )
    bench.add_argument("--table", type=Path, default=Path("results/benchmarks.csv"))
    bench.add_argument("--slowest", type=int, default=10)
    targets = sub.add_parser(
        "targets",
        help="claims targets whose projected paper-scale compute fits a budget (cost table)",
    )
    targets.add_argument(
        "--max-seconds", type=float, default=600.0, help="largest projected cost of one job"
    )
    targets.add_argument(
        "--gpu", action="store_true", help="H100 seconds (measured where measured, else modelled)"
    )
    targets.add_argument(
        "--costs", type=Path, default=None, help="cost table (default: the one shipped)"
    )
    targets.add_argument("--why", action="store_true", help="list the items left out on stderr")
    add_decide_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if hasattr(signal, "SIGPIPE"):  # `sigprop list | head` ends quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    registry = load_registry()
    command = {
        "list": cmd_list,
        "show": cmd_show,
        "golden": cmd_golden,
        "compare": cmd_compare,
        "findings": cmd_findings,
        "summary": cmd_summary,
        "check-config": cmd_check_config,
        "benchmarks": cmd_benchmarks,
        "targets": cmd_targets,
        "decide": cmd_decide,
    }[args.command]
    return command(registry, args)


if __name__ == "__main__":
    sys.exit(main())
