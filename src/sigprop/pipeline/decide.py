"""``sigprop decide``: decide undecided claims with more runs, without inflating the error rate.

A claim is ``undecided`` when its interval straddles its limit (``sigprop.verdicts.claims``). More
runs (or Monte Carlo draws) narrow the interval, but looking again and again at a growing sample and
stopping as soon as the claim is decided inflates the chance of a wrong decision: a claim whose
true value sits on its limit is decided wrongly (any hold or fail: both intervals exclude the
true value) with probability 5% at one look at 95%, but in about 12% of sequences after three
such looks and 18% after five (normal runs, 3 to 48 of them; 400000 simulated sequences).

The method: a group-sequential design with Bonferroni alpha spending over a doubling schedule.
Look ``k`` (``k = 0, 1, 2, ...``) runs the item with ``2^k`` times its config's runs and judges it
at the two-sided level ``1 - alpha 2^-(k+1)`` (``alpha = 1 - claims.confidence``; 97.5%,
98.75%, 99.375%, ... for the default 95%). The levels spent over every look, however many, sum
to at most ``alpha``, so by the union bound the chance that *any* look's interval excludes the
true value is at most ``alpha`` whatever the stopping rule and however the looks' samples
overlap: repeated confidence intervals with error spending (Jennison & Turnbull, "Group
Sequential Methods with Applications to Clinical Trials", Chapman & Hall/CRC 2000, ch. 7 on
error spending, ch. 9 on repeated confidence intervals), here with Bonferroni's bound in place
of the joint normal law of the looks, so that it holds for any interval method. The stitched
confidence sequences of Howard, Ramdas, McAuliffe & Sekhon ("Time-uniform, nonparametric,
nonasymptotic confidence sequences", Ann. Statist. 49(2), 2021) split alpha the same way, by a
union bound over geometrically growing epochs. The schedule is open-ended: a later ``sigprop
decide`` may continue an item at its next look without spending more than ``alpha``; the
price of that, against a boundary fixed in advance for a known number of looks that uses their
correlation (Pocock, O'Brien-Fleming), is a somewhat wider interval at the later looks.

Why this design and not a confidence sequence:

- It composes with every interval method of ``stats.Measurement`` (t over runs, an OLS slope's
  SE, bootstrap over runs, Fisher z, Wilson) and with the existing ``claims.confidence``
  mechanism: a look is a run of the item's own judge at more runs and a stricter level, so each
  look's verdict is exactly the verdict the ledger would give at that level.
- ``confseq`` 0.0.11 (PyPI; Howard & Waudby-Smith) offers uniform boundaries (normal mixture,
  gamma-exponential, beta-binomial, polynomial stitching) that need a known bound on the
  variance process (sub-Gaussian or sub-exponential with a known scale), and betting,
  predictable-mixture and conjugate-mixture confidence sequences for observations bounded in a
  known range ([0, 1]). None fits a mean of 3 unbounded runs with unknown variance, an OLS
  slope's SE or a bootstrap interval; and its C++ extension (Boost, CMake) did not build here.
- ``expectation`` 0.6.1 (PyPI) needs Python >= 3.12 (sigprop runs on 3.11), brings pydantic,
  plotly and matplotlib, is GPL-3.0 with an added restriction, and its mean confidence sequence
  puts the running sample variance into a known-variance normal-mixture boundary (intrinsic
  time ``n s^2``): not anytime-valid at n = 3.
- An unknown-variance Gaussian confidence sequence (a t mixture; Lai 1976) is valid at every n
  but far wider than a t interval at n = 3, and covers only one of the interval methods.

So no library is added to the dependencies: the design needs only the existing intervals.

The first look counts: the config's runs are look 0, judged at ``1 - alpha / 2``, not at
``claims.confidence``. Were look 0 judged at 95% and only the claims left undecided continued,
a claim would have a 5% chance of a wrong decision at look 0 plus the later looks' share
(6.4% over four looks of 3 to 24 normal runs; ``tests/test_decide.py``). So ``decide`` first
re-judges *every* item at the look-0 level (only the judge jobs run; the simulations are the
default run's), selects the items whose paper claims are undecided there, and writes a ledger
whose every row is a look's verdict at that look's level: untouched items at look 0, touched
items at their last look.

Runs: a look sets the item's replication keys (``UNIT_KEYS``: ``n_runs``, ``runs``, draws,
Monte Carlo pairs) to ``2^k`` times their config values. The simulations seed each run from
``seeding.derive_seed(experiment_id, run, stream)``, so runs ``0 .. n_0 - 1`` of a look are the
default run's and the new runs get new, deterministic seeds. The union bound needs no such
nesting (any valid interval at each look will do); nesting only keeps the looks consistent.

Items that share a simulation or a replication key (e.g. every training simulation of ch. 6
reads ``gradients/training/n_runs``) are decided together: a *group* is a set of keys with every
judged item that reads one of them, and a look reruns the group's simulations and measurements
and every draw and judge of its items. A group stops when none of its paper claims that more
runs could decide (``lean`` not empty, projected to be decided within ``max_looks``) is still
undecided, when its next look would exceed the remaining budget, or at ``max_looks``.

Where it runs: ``snakemake --directory DECIDE_DIR`` with the checkout's Snakefile and a config
overlay (``--configfile config/config.yaml DECIDE_DIR/looks/<group>/look<k>.yaml``, typed YAML:
Snakemake's ``--config`` reads nested values as strings). The decide directory starts as a copy
of the default run's ``results/`` and ``figures/`` (its ``data/`` a link to the data root), so
``make all``'s ``results/`` stays the default run's and a look reruns only its group's jobs
(``--forcerun`` on them: the copy has no Snakemake metadata to trigger on). A copy of the whole
checkout would do the same at the price of a second source tree that could drift from this one.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from ..base.registry import Registry
from ..verdicts import claims

__all__ = [
    "UNIT_KEYS",
    "DecideError",
    "Group",
    "Plan",
    "compute_paths",
    "dependency_paths",
    "groups",
    "levels",
    "looks_needed",
    "plan",
    "projected_look0",
    "Decider",
    "sequential",
    "unit_keys",
]

UNIT_KEYS = (
    "n_runs",
    "runs",
    "chain_runs",
    "map_replicas",
    "n_draws",
    "draws",
    "step_draws",
    "n_pairs",
    "batches",
)
"""Config keys that count independent replications (runs, Monte Carlo draws or pairs, batches):
a look multiplies every one of them in its group's setups by ``2^k``."""

DECIDABLE_LEANS = ("holds", "fails", "centred")
"""The leans of an undecided claim that more runs may decide (``claims.LEANS`` less
``vacuous``: a claim that cannot fail at its settings whatever the data)."""

JUDGE_SECONDS = 2.0
"""Projected seconds of a draw, tabulate or judge job that has no benchmark file."""


class DecideError(ValueError):
    """Bad input to ``sigprop decide``, found before any compute."""


# --- The sequential design -------------------------------------------------------------------


def levels(confidence: float, looks: int) -> list[float]:
    """The two-sided levels of looks ``0 .. looks - 1``: ``1 - alpha 2^-(k+1)`` with
    ``alpha = 1 - confidence``; they spend ``alpha (1 - 2^-looks) < alpha`` in all."""
    if not 0 < confidence < 1:
        raise DecideError(f"claims.confidence must be in (0, 1), got {confidence}")
    if looks < 1:
        raise DecideError(f"the number of looks must be at least 1, got {looks}")
    alpha = 1.0 - confidence
    return [1.0 - alpha * 2.0 ** -(k + 1) for k in range(looks)]


def sequential(
    judge: Callable[[int, float], Sequence[str]],
    look_levels: Sequence[float],
    start: int = 0,
    next_look: Callable[[int], int] = lambda k: k + 1,
) -> tuple[int, list[str]]:
    """Run looks ``start, next_look(start), ...`` until the judged claims are decided.

    ``judge(k, level)`` runs look ``k`` (``2^k`` times the runs) and returns the verdicts, at
    ``level``, of the claims the looks are to decide; the first look with none ``undecided``
    stops (``invalid`` is not something more runs decide). Returns the last look and its
    verdicts. ``look_levels``: ``levels(confidence, max_looks)`` (the tests also pass a naive
    constant level to show the inflation it causes). ``next_look`` (> its argument) may skip
    looks: each look keeps its own level, so the looks taken spend at most what all would (the
    union bound), whatever the earlier looks chose to skip.
    """
    verdicts: list[str] = []
    k = last = start
    while k < len(look_levels):
        verdicts, last = list(judge(k, look_levels[k])), k
        if "undecided" not in verdicts:
            break
        k = max(next_look(k), k + 1)
    return last, verdicts


def _quantile(level: float, df: float = math.inf) -> float:
    from scipy.special import ndtri, stdtrit

    p = 0.5 + level / 2
    return float(ndtri(p) if not math.isfinite(df) else stdtrit(df, p))


def looks_needed(
    n: float,
    to_decide: float,
    level_now: float,
    look_now: int,
    look_levels: Sequence[float],
    df: float = math.inf,
    units: str = "runs",
) -> int | None:
    """The first look after ``look_now`` at which an undecided claim would be decided at its
    observed value and spread, or None (not within ``look_levels``, or not extrapolable).

    ``to_decide`` units (at ``level_now``) against the ``n`` it has: look ``k`` has ``2^(k -
    look_now)`` times the units, and needs ``to_decide (q_k / q_now)^2`` at its stricter level,
    q the interval's quantile: Student t with ``df`` degrees of freedom (inf or NaN: normal).
    A mean over runs (``units`` "runs") has ``n - 1`` df, so its df grow with the runs. A claim
    counted in points (an OLS slope over depths or batch sizes whose every point is a mean over
    runs) keeps its points, and so its df, when the runs double; its SE is taken to shrink as
    if its units doubled. Only the order and the choice of the groups rest on this projection,
    never a verdict.
    """
    if not (n >= 1 and math.isfinite(to_decide) and to_decide > 0):
        return None
    df = math.inf if math.isnan(df) else df
    q_now = _quantile(level_now, df)
    for k in range(look_now + 1, len(look_levels)):
        df_k = (df + 1) * 2 ** (k - look_now) - 1 if units == "runs" else df
        need = to_decide * (_quantile(look_levels[k], df_k) / q_now) ** 2
        if n * 2 ** (k - look_now) >= need:
            return k
    return None


# --- Which config keys and jobs an item's claims depend on -----------------------------------


def _node(config: Mapping, path: str) -> Any:
    node: Any = config
    for key in path.split("/"):
        node = node[key]
    return node


def _leaves(config: Mapping, path: str) -> list[str]:
    """The leaf paths under ``path`` (a key holding a slash is a leaf of its own)."""

    def walk(node, at: str) -> list[str]:
        if isinstance(node, Mapping):
            return [leaf for key, value in node.items() for leaf in walk(value, f"{at}/{key}")]
        return [at]

    try:
        return walk(_node(config, path), path)
    except (KeyError, TypeError):  # a value the workflow sets itself (``scale``)
        return [path]


def _ref_paths(refs, config: Mapping, default: str | None = None) -> list[str]:
    """The config leaf paths a registry reference reads (``registry.resolve``'s forms)."""
    if refs is None:
        refs = default
    if refs is None:
        return []
    if isinstance(refs, str):
        return _leaves(config, refs)
    found: list[str] = []
    for path in refs.values():
        found += _ref_paths(path, config) if isinstance(path, Mapping) else _leaves(config, path)
    return found


def compute_paths(family: str, item, config: Mapping) -> list[str]:
    """The config leaves a simulation's run or a theorem's measurement reads."""
    if item.kind == "simulation":
        return _ref_paths(item.setup, config, f"{family}/{item.name}") + _ref_paths(
            item.extra, config
        )
    if item.kind == "theorem":
        top = f"{family}/{item.name}"
        return [
            p
            for p in _leaves(config, top)
            if p[len(top) + 1 :].split("/")[0] not in item.tolerances
        ]
    raise TypeError(f"{family}.{item.name} is a {item.kind}, not a simulation or theorem")


def computes_of(registry: Registry, family: str, item) -> list[tuple[str, Any]]:
    """The simulations and theorem measurements a judged item runs on."""
    if item.kind == "theorem":
        return [(family, item)]
    found = {}
    for ref in item.reads.values():
        fam, read = registry.read_of(family, ref)
        found[f"{fam}/{read.name}"] = (fam, read)
    return [found[k] for k in sorted(found)]


def dependency_paths(registry: Registry, family: str, item, config: Mapping) -> set[str]:
    """Every config leaf a judged item's claims depend on: its compute items' setups, its
    script params and its judge's arguments (a theorem's whole slice)."""
    if item.kind == "theorem":
        return set(_leaves(config, f"{family}/{item.name}"))
    found = set(_ref_paths(item.params, config)) | set(_ref_paths(item.judge_args, config))
    for fam, compute in computes_of(registry, family, item):
        found |= set(compute_paths(fam, compute, config))
    return found


def unit_keys(registry: Registry, family: str, item, config: Mapping) -> list[str]:
    """The replication keys (``UNIT_KEYS``) in the setups of the jobs a judged item runs on,
    as config paths (``rank_collapse/lemma4/n_runs``)."""
    return sorted(
        {
            p
            for fam, compute in computes_of(registry, family, item)
            for p in compute_paths(fam, compute, config)
            if p.rsplit("/", 1)[-1] in UNIT_KEYS
        }
    )


def judged_item(registry: Registry, name: str):
    """``family.item`` -> (family, judged item); a DecideError naming what exists."""
    family, _, item = name.partition(".")
    try:
        return family, registry.judged_item(family, item)
    except KeyError:
        raise DecideError(
            f"no figure, table or theorem item {name!r} (`sigprop list` shows every item)"
        ) from None


# --- Groups of items decided together --------------------------------------------------------


@dataclass
class Group:
    """Items decided together: the replication keys they share, every judged item that reads one
    of them, and the simulations and measurements whose setup holds one."""

    keys: dict[str, int]
    """config path -> its value at look 0."""
    items: list[str]
    """every judged item (``family.name``) reading one of the keys."""
    selected: list[str]
    """the items with undecided paper claims that brought the keys in."""
    computes: list[str]
    """``family/name`` of the simulations and theorem measurements that rerun."""
    look: int = 0
    stopped: str = ""
    needed: int | None = None
    """the first look any undecided target is projected to be decided at (None: none is)."""

    @property
    def name(self) -> str:
        return "+".join(self.selected)

    def values(self, look: int) -> dict[str, int]:
        return {k: int(v) * 2**look for k, v in self.keys.items()}


def groups(
    registry: Registry, config: Mapping, selected: Iterable[str]
) -> tuple[list[Group], dict[str, str]]:
    """The groups of the selected items (``family.name``), and the selected items that have no
    replication key (-> why). Keys read by one judged item are one group's (union-find)."""
    selected = list(dict.fromkeys(selected))
    keys_of: dict[str, list[str]] = {}
    missing: dict[str, str] = {}
    for name in selected:
        family, item = judged_item(registry, name)
        found = unit_keys(registry, family, item, config)
        if found:
            keys_of[name] = found
        else:
            missing[name] = (
                f"{name} has no replication key ({', '.join(UNIT_KEYS)}) in the setups it runs "
                "on: more runs cannot be asked of it"
            )
    chosen = {k for ks in keys_of.values() for k in ks}
    parent = {k: k for k in chosen}

    def root(k: str) -> str:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    depends: dict[str, set[str]] = {}
    for family, item in registry.judged():
        found = dependency_paths(registry, family, item, config) & chosen
        if found:
            depends[f"{family}.{item.name}"] = found
            first, *rest = sorted(found)
            for k in rest:
                parent[root(k)] = root(first)
    classes: dict[str, list[str]] = {}
    for k in sorted(chosen):
        classes.setdefault(root(k), []).append(k)
    out = []
    for keys in classes.values():
        members = [n for n, found in depends.items() if found & set(keys)]
        computes = sorted(
            {
                f"{fam}/{c.name}"
                for n in members
                for fam, c in computes_of(registry, *judged_item(registry, n))
                if set(compute_paths(fam, c, config)) & set(keys)
            }
        )
        out.append(
            Group(
                keys={k: int(_node(config, k)) for k in keys},
                items=sorted(members),
                selected=[n for n in selected if set(keys_of.get(n, ())) & set(keys)],
                computes=computes,
            )
        )
    return out, missing


# --- Costs -----------------------------------------------------------------------------------


def _benchmark_seconds(root: Path, folder: str, job: str) -> float:
    from .job_benchmarks import previous_seconds

    return previous_seconds(root / "benchmarks" / folder / f"{job}.tsv") or math.nan


def _committed_quick_seconds() -> dict[str, float]:
    """Quick-scale seconds of compute items from the shipped cost table (a fallback)."""
    from .job_resources import cost_table, number

    return {item: number(row, "quick_s") for item, row in cost_table().items()}


@dataclass
class Costs:
    """Projected CPU-seconds of jobs from the default run's benchmark files (``benchmarks/``),
    or the committed cost table's quick seconds for a compute job that has none."""

    root: Path
    committed: dict[str, float] = field(default_factory=dict)

    def compute(self, registry: Registry, key: str) -> float:
        family, name = key.split("/")
        rule = "simulate" if registry.read_of(family, name)[1].kind == "simulation" else "measure"
        seconds = _benchmark_seconds(self.root, family, f"{rule}_{name}")
        return seconds if math.isfinite(seconds) else self.committed.get(key, math.nan)

    def judged(self, registry: Registry, name: str, rules: Sequence[str] = ()) -> float:
        """A judged item's draw or tabulate job and its judge (or only ``rules``)."""
        family, item = judged_item(registry, name)
        rules = rules or (
            {"figure": ["draw"], "table": ["tabulate"], "theorem": []}[item.kind] + ["judge"]
        )
        total = 0.0
        for rule in rules:
            seconds = _benchmark_seconds(self.root, family, f"{rule}_{item.name}")
            total += seconds if math.isfinite(seconds) else JUDGE_SECONDS
        return total

    def judge(self, registry: Registry, name: str) -> float:
        """A judged item's judge job alone (look 0 reruns only these)."""
        return self.judged(registry, name, ["judge"])

    def look(self, registry: Registry, group: Group, look: int) -> float:
        """Look ``look``'s projected seconds: compute jobs linear in the runs (``2^look``
        times their look-0 seconds), draws and judges as they were."""
        compute = sum(self.compute(registry, c) for c in group.computes) * 2**look
        return compute + sum(self.judged(registry, n) for n in group.items)


# --- The plan --------------------------------------------------------------------------------


def _targets(rows: pd.DataFrame, look: int, look_levels: Sequence[float]) -> pd.DataFrame:
    """The undecided paper claims more runs could decide, with the look each is projected to
    need (``needs``, NaN when no look within ``look_levels`` is); a VACUOUS claim (lean
    ``vacuous``, or none in a ledger written before leans had that word) is never one."""
    undecided = rows[
        (rows["kind"] == "paper")
        & (rows["verdict"] == "undecided")
        & rows["lean"].isin(DECIDABLE_LEANS)
    ].copy()
    level = look_levels[look] if look < len(look_levels) else look_levels[-1]
    df = undecided["df"] if "df" in undecided else pd.Series(math.nan, index=undecided.index)
    needs = [
        looks_needed(float(r.n), float(r.to_decide), level, look, look_levels, float(d), r.units)
        for r, d in zip(undecided.itertuples(), pd.to_numeric(df, errors="coerce"), strict=True)
    ]
    undecided["needs"] = pd.Series(
        [math.nan if k is None else float(k) for k in needs], dtype=float, index=undecided.index
    )
    return undecided


def projected_look0(ledger: pd.DataFrame, level_from: float, level_to: float) -> pd.DataFrame:
    """The ledger as look 0 would judge it at ``level_to``, projected from its intervals at
    ``level_from`` (for ``--dry-run``, which runs no judge): each half-width scaled by the ratio
    of the quantiles (Student t with n - 1 df for ``t``, normal otherwise), the verdict and the
    units to decide recomputed. The real run re-judges every item instead."""
    out = ledger.copy()
    for i, r in out.iterrows():
        if r["interval"] == "exact" or not (math.isfinite(r["low"]) and math.isfinite(r["high"])):
            continue
        df = float(r["n"]) - 1 if r["interval"] == "t" and r["n"] >= 2 else math.inf
        ratio = _quantile(level_to, df) / _quantile(level_from, df)
        m = float(r["measured"])
        low, high = m - (m - r["low"]) * ratio, m + (r["high"] - m) * ratio
        verdict = claims.decide(low, high, r["relation"], float(r["bound"]), float(r["tolerance"]))
        leans = r.get("lean") in DECIDABLE_LEANS
        if r["verdict"] == "invalid" or (r["verdict"] == "undecided" and not leans):
            verdict = r["verdict"]  # invalid, or VACUOUS: not a matter of the interval's width
        out.loc[i, ["low", "high", "verdict"]] = [low, high, verdict]
        if verdict == "undecided" and r["verdict"] != "undecided":
            lo, hi = claims.limits(r["relation"], float(r["bound"]), float(r["tolerance"]))
            limit = min((x for x in (lo, hi) if math.isfinite(x)), key=lambda x: abs(m - x))
            half, gap = max(m - low, high - m), abs(m - limit)
            need = math.ceil(float(r["n"]) * (half / gap) ** 2) if gap > 0 else math.inf
            lean = "holds" if lo <= m <= hi else "fails"
            out.loc[i, ["lean", "to_decide"]] = [lean, need]
    return out


@dataclass
class Plan:
    """What ``decide`` would do: the groups in the order it runs them, each with its targets,
    its projected looks and their seconds."""

    confidence: float
    look_levels: list[float]
    look0_seconds: float
    rows: list[dict]
    skipped: dict[str, str]
    groups: list[Group]

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)

    def text(self) -> str:
        lines = [
            f"alpha = {1 - self.confidence:.3g} spent over looks k = 0..{len(self.look_levels) - 1}"
            " (2^k x the config's runs), levels " + ", ".join(f"{x:.6g}" for x in self.look_levels),
            f"look 0: re-judge every item at {self.look_levels[0]:.6g} (judge jobs only; "
            f"projected {self.look0_seconds:.0f} CPU-s)",
        ]
        total = self.look0_seconds
        for r in self.rows:
            total += r["projected_s"]
            lines.append(
                f"{r['group']}: look {r['look']} at {r['level']:.6g}: {r['units']} "
                f"[{r['computes']}] projected {r['projected_s']:.0f} CPU-s "
                f"(cumulative {total:.0f} s = {total / 3600:.3g} CPU-h); targets: {r['targets']}"
            )
        for name, why in self.skipped.items():
            lines.append(f"not run: {name}: {why}")
        return "\n".join(lines)


def _needed(targets: pd.DataFrame) -> int | None:
    needs = targets["needs"].dropna()
    return None if needs.empty else int(needs.min())


def _candidate(
    registry: Registry,
    g: Group,
    ledger: pd.DataFrame,
    costs: Costs,
    look_levels: Sequence[float],
    jump: bool = False,
) -> tuple[pd.DataFrame, dict[int, float], str]:
    """A group's targets, the projected seconds of its looks (look -> seconds) up to the last
    one its targets are projected to need (``jump``: only the looks some target is projected to
    be decided at), and why it will not run ('' when it will)."""
    targets = _targets(ledger[ledger["item"].isin(g.items)], g.look, look_levels)
    needs = targets["needs"].dropna()
    if targets.empty:
        return targets, [], "no undecided paper claim that more runs could decide (VACUOUS)"
    if needs.empty:
        return (
            targets,
            [],
            (
                f"no undecided paper claim projected to be decided by look {len(look_levels) - 1} "
                f"({', '.join(targets['id'])})"
            ),
        )
    g.needed = _needed(targets)
    ks = sorted({int(x) for x in needs}) if jump else range(g.look + 1, int(needs.max()) + 1)
    seconds = {k: costs.look(registry, g, k) for k in ks}
    if not all(math.isfinite(x) for x in seconds.values()):
        return targets, {}, f"no job time for {', '.join(g.computes)} (run the quick DAG first)"
    return targets, seconds, ""


def _plan_rows(
    g: Group, targets: pd.DataFrame, seconds: Mapping[int, float], look_levels
) -> list[dict]:
    named = " ".join(
        f"{r.id}(-)" if math.isnan(r.needs) else f"{r.id}(look {int(r.needs)})"
        for r in targets.itertuples()
    )
    return [
        {
            "group": g.name,
            "look": k,
            "level": look_levels[k],
            "units": ", ".join(f"{p}={v}" for p, v in g.values(k).items()),
            "computes": ", ".join(g.computes),
            "items": " ".join(g.items),
            "projected_s": projected,
            "targets": named,
        }
        for k, projected in seconds.items()
    ]


def plan(
    registry: Registry,
    config: Mapping,
    ledger: pd.DataFrame,
    costs: Costs,
    max_looks: int,
    items: Sequence[str] = (),
    budget_s: float = math.inf,
    looks_done: Mapping[str, int] | None = None,
    jump: bool = False,
) -> Plan:
    """The groups ``decide`` would run from a ledger of each item's last look (``looks_done``:
    ``family.name`` -> its look, 0 when absent), cheapest projected decision first, with every
    look projected to be needed; a group whose projected looks do not fit in what is left of
    ``budget_s`` is not run (the looks themselves stop at the budget too). ``items``: only
    these (``family.name``), else every item whose paper claims are undecided. ``max_looks``:
    the looks after look 0 (look ``max_looks`` is the last). ``jump``: a group skips the looks
    no target is projected to be decided at (each look recomputes all its runs, so the looks
    before cost as much again as the last; the projection may be wrong either way)."""
    confidence = float(config["claims"]["confidence"])
    look_levels = levels(confidence, max_looks + 1)
    ledger = ledger.assign(item=ledger["id"].str.split(".").str[:2].str.join("."))
    undecided = ledger[(ledger["kind"] == "paper") & (ledger["verdict"] == "undecided")]
    names = list(items) or sorted(set(undecided["item"]))
    found, skipped = groups(registry, config, names)
    if items and skipped:
        raise DecideError("; ".join(skipped.values()))
    candidates = []
    for g in found:
        g.look = max((looks_done or {}).get(n, 0) for n in g.items)
        targets, seconds, why = _candidate(registry, g, ledger, costs, look_levels, jump)
        if why:
            skipped[g.name] = why
        else:
            candidates.append((sum(seconds.values()), g, targets, seconds))
    rows, spent, chosen = [], 0.0, []
    for total, g, targets, seconds in sorted(candidates, key=lambda c: c[0]):
        if spent + total > budget_s:
            skipped[g.name] = (
                f"its projected looks ({total:.0f} s) exceed the budget left "
                f"({budget_s - spent:.0f} s)"
            )
            continue
        chosen.append(g)
        spent += total
        rows += _plan_rows(g, targets, seconds, look_levels)
    look0 = sum(costs.judge(registry, f"{f}.{i.name}") for f, i in registry.judged())
    return Plan(confidence, look_levels, look0, rows, skipped, chosen)


# --- Running looks through Snakemake ---------------------------------------------------------


def _nested(values: Mapping[str, Any]) -> dict:
    out: dict = {}
    for path, value in values.items():
        node = out
        *parents, last = path.split("/")
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = value
    return out


def _claims_file(name: str) -> str:
    family, item = name.split(".")
    return f"results/claims/{family}/{item}.json"


def _prepare(root: Path, directory: Path, config: Mapping) -> None:
    """A decide directory from the default run: copies of ``results/`` and ``figures/`` (times
    kept), ``data`` linked to the data root. Kept as it is when it exists (a later decide
    continues its groups from their last looks)."""
    if (directory / "decide_state.json").exists():
        return
    if not (root / "results" / "claims.csv").exists():
        raise DecideError(f"no default run in {root}: results/claims.csv is missing (make all)")
    directory.mkdir(parents=True, exist_ok=True)
    for folder in ("results", "figures"):
        if (root / folder).exists() and not (directory / folder).exists():
            shutil.copytree(root / folder, directory / folder, symlinks=True)
    data = Path(config["data"]["root"])
    data = data if data.is_absolute() else root / data
    link = (
        directory / config["data"]["root"]
        if not Path(config["data"]["root"]).is_absolute()
        else None
    )
    if link is not None and not link.exists() and data.exists():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(data.resolve(), target_is_directory=True)


def snakemake_command(
    root: Path,
    directory: Path,
    overlay: Path,
    targets: Sequence[str],
    forcerun: Sequence[str],
    cores: int,
    concurrent: bool = False,
) -> list[str]:
    """The Snakemake call of one look (the checkout's Snakefile, run in ``directory``).

    The copy has no Snakemake metadata, and a checkout's scripts may be newer than the copied
    outputs: ``--rerun-triggers mtime`` leaves the choice of jobs to ``--forcerun`` (and to
    inputs newer than outputs), so look 0 runs the judges and nothing else. ``concurrent``:
    other groups' looks run in the same directory at once (``--nolock``; the groups' outputs
    are disjoint, ``groups`` joins every item that shares a key)."""
    return [
        sys.executable,
        "-m",
        "snakemake",
        *targets,
        "--snakefile",
        str(root / "Snakefile"),
        "--directory",
        str(directory),
        "--configfile",
        str(root / "config" / "config.yaml"),
        str(overlay),
        "--cores",
        str(cores),
        "--forcerun",
        *forcerun,
        "--rerun-triggers",
        "mtime",
        *(["--nolock"] if concurrent else []),
        "--quiet",
        "rules",
    ]


def _run_look(
    root: Path,
    directory: Path,
    overlay_values: Mapping[str, Any],
    name: str,
    targets: Sequence[str],
    forcerun: Sequence[str],
    cores: int,
    concurrent: bool = False,
    owned: Callable[[str], bool] = lambda job: True,
) -> float:
    """Run one look; return the CPU-seconds its jobs took (their benchmark files; ``owned``:
    whether a job, ``family/rule_name``, is this look's and not a concurrent group's)."""
    from .job_benchmarks import collect

    overlay = directory / "looks" / f"{name}.yaml"
    overlay.parent.mkdir(parents=True, exist_ok=True)
    overlay.write_text(yaml.safe_dump(_nested(overlay_values), sort_keys=True))
    command = snakemake_command(root, directory, overlay, targets, forcerun, cores, concurrent)
    log = directory / "looks" / f"{name}.log"
    started = time.time()
    with log.open("w") as out:
        out.write(" ".join(command) + "\n")
        out.flush()
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"look {name} failed (Snakemake exit {done.returncode}); see {log}")
    jobs = collect(directory / "benchmarks", directory / "logs", since=started)
    jobs = jobs[jobs["job"].map(owned)] if len(jobs) else jobs
    return float(jobs["s"].sum()) if len(jobs) else time.time() - started


def _owned_by(g: Group) -> Callable[[str], bool]:
    """Whether a job (``family/rule_name``; a split simulation's part ``<item>-<key>-<value>``)
    runs one of the group's computes or items."""
    names = set(g.computes) | {n.replace(".", "/") for n in g.items}

    def owned(job: str) -> bool:
        family, _, rest = job.partition("/")
        name = rest.split("_", 1)[-1]
        return f"{family}/{name}" in names or f"{family}/{name.split('-', 1)[0]}" in names

    return owned


def _records(directory: Path, names: Iterable[str]) -> pd.DataFrame:
    rows = [r for n in names for r in claims.read(directory / _claims_file(n))]
    table = pd.DataFrame(rows)
    table["item"] = table["id"].str.split(".").str[:2].str.join(".")
    return table


class Decider:
    """The looks of one ``sigprop decide`` in its directory: look 0 for every item, then each
    group's looks while the budget lasts; ``state`` (``decide_state.json``) records every
    item's last look, its level and its replication values, and every look run."""

    def __init__(
        self,
        registry: Registry,
        config: Mapping,
        root: Path,
        directory: Path,
        budget_s: float,
        max_looks: int,
        cores: int = 1,
        out: Callable[[str], None] = print,
        jobs: int = 1,
        jump: bool = False,
    ):
        check_input(registry, config, budget_s, max_looks, ())
        self.registry, self.config, self.root, self.directory = registry, config, root, directory
        self.budget_s, self.max_looks, self.cores, self.out = budget_s, max_looks, cores, out
        self.jobs, self.jump = jobs, jump
        self.lock = threading.Lock()  # state, spending and the projected looks in flight
        self.in_flight = 0.0
        self.look_levels = levels(float(config["claims"]["confidence"]), max_looks + 1)
        self.costs = Costs(root, _committed_quick_seconds())
        self.every = [f"{f}.{i.name}" for f, i in registry.judged()]
        self.state_path = directory / "decide_state.json"
        self.state: dict = {"items": {}, "looks": [], "spent_s": 0.0}
        self.spent = 0.0

    def save(self) -> None:
        self.state_path.write_text(json.dumps(self.state, indent=2))

    def look0(self) -> None:
        """Re-judge every item at look 0's level (the default run's simulations kept)."""
        _prepare(self.root, self.directory, self.config)
        if self.state_path.exists():
            self.state = json.loads(self.state_path.read_text())
        level = self.look_levels[0]
        if self.state.get("look0_level") == level:
            return
        self.out(f"look 0: re-judging {len(self.every)} items at {level:.6g}")
        targets = [_claims_file(n) for n in self.every]
        seconds = self._snakemake({"claims/confidence": level}, "look0", targets, ["judge"])
        self.state["look0_level"] = level
        self.state["items"] = {n: {"look": 0, "level": level} for n in self.every}
        self.state["looks"].append(
            {"group": "all", "look": 0, "level": level, "measured_s": seconds}
        )
        self.save()

    def _snakemake(self, values, name, targets, forcerun, owned=lambda job: True) -> float:
        seconds = _run_look(
            self.root,
            self.directory,
            values,
            name,
            targets,
            forcerun,
            self.cores,
            self.jobs > 1,
            owned,
        )
        with self.lock:
            self.spent += seconds
            self.state["spent_s"] = self.state.get("spent_s", 0.0) + seconds
        return seconds

    def look(self, g: Group, k: int, level: float) -> list[str]:
        """Look ``k`` of a group: its computes at ``2^k`` times the runs, its items judged at
        ``level``; the verdicts of its targets (``hopeless``: no look is projected to decide)."""
        projected = self.costs.look(self.registry, g, k)
        with self.lock:  # the looks in flight hold their projected seconds
            if self.spent + self.in_flight + projected > self.budget_s:
                g.stopped = f"budget: look {k} projected {projected:.0f} s"
                raise _OverBudget
            self.in_flight += projected
        forcerun = [_compute_output(self.registry, c) for c in g.computes] + [
            f"results/{n.replace('.', '/')}.csv"
            for n in g.items
            if judged_item(self.registry, n)[1].kind != "theorem"
        ]  # the computes, and the draws and tables (their params may read the keys)
        values = {"claims/confidence": level, **g.values(k)}
        targets = [_claims_file(n) for n in g.items]
        try:
            seconds = self._snakemake(values, f"{g.name}/look{k}", targets, forcerun, _owned_by(g))
        finally:
            with self.lock:
                self.in_flight -= projected
        rows = _records(self.directory, g.items)
        g.look = k
        targets = _targets(rows, k, self.look_levels)
        g.needed = _needed(targets)
        with self.lock:
            for n in g.items:
                self.state["items"][n] = {"look": k, "level": level, "units": g.values(k)}
            self.state["looks"].append(
                {
                    "group": g.name,
                    "look": k,
                    "level": level,
                    "units": g.values(k),
                    "projected_s": projected,
                    "measured_s": seconds,
                    "undecided": " ".join(rows.loc[_undecided(rows), "id"]),
                }
            )
            self.save()
        self.out(f"{g.name}: look {k} at {level:.6g} ({seconds:.0f} s): {len(targets)} undecided")
        return ["hopeless" if math.isnan(x) else "undecided" for x in targets["needs"]]

    def run(self, items: Sequence[str] = ()) -> dict:
        """Look 0, then the planned groups in order, each until decided or out of budget."""
        check_input(self.registry, self.config, self.budget_s, self.max_looks, items)
        self.look0()
        ledger = _records(self.directory, self.every)
        done = {n: s.get("look", 0) for n, s in self.state["items"].items()}
        left = self.budget_s - self.spent
        proposal = plan(
            self.registry,
            self.config,
            ledger,
            self.costs,
            self.max_looks,
            items,
            left,
            done,
            self.jump,
        )
        for name, why in proposal.skipped.items():
            self.out(f"not run: {name}: {why}")
        self.decide_groups(proposal.groups)
        return self.state

    def decide_groups(self, found: Sequence[Group]) -> None:
        """Each group's looks, ``jobs`` groups at once (one: in order); their outputs are
        disjoint, and a look starts only if the looks in flight leave its projection room."""
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            list(pool.map(self._decide_group, found))

    def _decide_group(self, g: Group) -> None:
        """A group's looks until its targets are decided, hopeless or over the budget."""

        def next_look(k: int) -> int:
            return max(k + 1, g.needed or 0) if self.jump else k + 1

        try:
            sequential(partial(self.look, g), self.look_levels, next_look(g.look), next_look)
        except _OverBudget:
            self.out(f"{g.name}: stopped at look {g.look} ({g.stopped})")


class _OverBudget(Exception):
    """A group's next look would exceed the budget left."""


def _compute_output(registry: Registry, key: str) -> str:
    """The file of a compute job: a simulation's tensors or a theorem's measured table."""
    family, name = key.split("/")
    fam, item = registry.read_of(family, name)
    return f"results/{key}.{'safetensors' if item.kind == 'simulation' else 'csv'}"


def _undecided(rows: pd.DataFrame) -> pd.Series:
    return (rows["kind"] == "paper") & (rows["verdict"] == "undecided")


def write_ledger(
    registry: Registry, directory: Path, state: Mapping, path: Path, config: Mapping
) -> pd.DataFrame:
    """The decided ledger: every claim of the decide directory's claims files (each item at its
    last look), with ``look``, ``level`` and ``runs`` (the item's replication keys at that look,
    ``key=value`` separated by spaces; empty for an item with none), and each failing or
    fails-leaning claim's finding, as in the default ledger (``findings``)."""
    from ..verdicts import findings

    every = [f"{f}.{i.name}" for f, i in registry.judged()]
    table = claims.ledger([directory / _claims_file(n) for n in every], findings.load())
    levels_of = {
        r["id"]: r.get("level") for n in every for r in claims.read(directory / _claims_file(n))
    }
    item = table["id"].str.split(".").str[:2].str.join(".")
    looks = {n: s.get("look", 0) for n, s in state.get("items", {}).items()}
    runs = {}
    for n in set(item):
        family, it = judged_item(registry, n)
        units = state.get("items", {}).get(n, {}).get("units")
        if units is None:
            units = {k: _node(config, k) for k in unit_keys(registry, family, it, config)}
        runs[n] = " ".join(f"{k}={v}" for k, v in sorted(units.items()))
    table.insert(3, "look", item.map(looks).fillna(0).astype(int))
    table.insert(4, "level", table["id"].map(levels_of))
    table.insert(5, "runs", item.map(runs))
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False)
    return table


def check_input(
    registry: Registry,
    config: Mapping,
    budget_s: float,
    max_looks: int,
    items: Sequence[str],
    jobs: int = 1,
) -> None:
    """The DecideErrors of bad input, before any compute: a budget that is not positive, fewer
    than one look or job, an unknown item, an item with no replication key."""
    if not budget_s > 0:
        raise DecideError(f"the budget must be positive, got {budget_s / 3600:g} CPU-hours")
    if max_looks < 1:
        raise DecideError(f"--max-looks must be at least 1, got {max_looks}")
    if jobs < 1:
        raise DecideError(f"--jobs must be at least 1, got {jobs}")
    for name in items:
        family, item = judged_item(registry, name)
        if not unit_keys(registry, family, item, config):
            raise DecideError(
                f"{name} has no replication key ({', '.join(UNIT_KEYS)}) in the setups it "
                "runs on: more runs cannot be asked of it"
            )


def _dry_run_ledger(
    registry: Registry, config: Mapping, ledger_path: Path, directory: Path
) -> tuple[pd.DataFrame, dict[str, int], str]:
    """What a plan starts from: the looks so far where ``directory`` holds a decide state (a
    later run continues each item at its next look), else the default run's ledger with look
    0 projected."""
    state_path = directory / "decide_state.json"
    if state_path.exists():
        state = json.loads(state_path.read_text())
        every = [f"{f}.{i.name}" for f, i in registry.judged()]
        done = {n: s.get("look", 0) for n, s in state.get("items", {}).items()}
        return _records(directory.resolve(), every), done, f"continuing the looks in {directory}"
    if not ledger_path.exists():
        raise DecideError(f"ledger {ledger_path} not found (run the quick DAG: make all)")
    ledger = pd.read_csv(ledger_path, keep_default_na=False, na_values=[""])
    confidence = float(config["claims"]["confidence"])
    ledger = projected_look0(ledger, confidence, levels(confidence, 1)[0])
    return ledger, {}, f"look 0 projected from {ledger_path}"


def main(registry: Registry, args) -> int:
    """``sigprop decide`` (see ``cli``): the plan (``--dry-run``) or the looks and the ledger."""
    root = Path.cwd()
    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    budget_s = float(args.budget) * 3600
    check_input(registry, config, budget_s, args.max_looks, args.items, args.jobs)
    if args.dry_run:
        ledger, done, source = _dry_run_ledger(registry, config, args.ledger, args.directory)
        costs = Costs(root, _committed_quick_seconds())
        found = plan(
            registry, config, ledger, costs, args.max_looks, args.items, budget_s, done, args.jump
        )
        print(f"plan ({source}; budget {args.budget:g} CPU-h):")
        print(found.text())
        return 0
    decider = Decider(
        registry,
        config,
        root,
        args.directory.resolve(),
        budget_s,
        args.max_looks,
        args.cores,
        jobs=args.jobs,
        jump=args.jump,
    )
    state = decider.run(args.items)
    table = write_ledger(registry, args.directory.resolve(), state, args.output, config)
    looks = pd.DataFrame(state["looks"])
    if "units" in looks:
        looks["units"] = looks["units"].map(
            lambda u: " ".join(f"{k}={v}" for k, v in u.items()) if isinstance(u, dict) else ""
        )
    looks.to_csv(args.output.with_name(args.output.stem + "_looks.csv"), index=False)
    paper = table[table["kind"] == "paper"]
    print(
        f"{args.output}: paper claims {claims.verdict_counts(paper['verdict'])}; "
        f"{decider.spent / 3600:.3g} CPU-h spent in this run"
    )
    return 0
