"""The reviewer's entry points: ``sigprop list``, ``show ITEM``, ``golden``, ``check-config``.

``sigprop list`` prints every paper item (family, name, kind, seed reference, outputs and the
verdict counts of the last run); ``sigprop show`` prints one item: its seed reference, functions,
config slice, inputs with their sha256 and provenance, and its claims with verdicts. Items are
named ``family.item`` or by any of their files (``figures/orthogonality/fig2b.pdf``).
``sigprop golden`` compares the claims ledger of a quick run with the recorded golden verdicts
(``--write`` records them anew). ``sigprop check-config FILE...`` validates config files as the
workflow does, naming the file and line of a YAML error and the full path of a bad key.
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

from .claims import verdict_counts, verdict_of
from .config import merge_configs
from .papers import load_registry
from .registry import Item, Registry, resolve, simulation_setup

__all__ = ["compare_golden", "item_files", "main", "parse_target"]

GOLDEN = Path(".test/golden/quick_claims.csv")
GOLDEN_COLUMNS = ["id", "verdict", "measured"]


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
    if not records:
        return "not run"
    return verdict_counts(verdict_of(r["passed"]) for r in records)


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
    rows = []
    for family, item in registry.items():
        if args.family and family != args.family:
            continue
        verdicts = ""
        if item.kind != "simulation":
            verdicts = _verdicts(_claims(Path(f"results/claims/{family}/{item.name}.json")))
        rows.append(
            (family, item.name, item.kind, item.seed, item_files(family, item)[0], verdicts)
        )
    widths = [max(len(r[k]) for r in rows) for k in range(6)] if rows else [0] * 6
    header = ("family", "item", "kind", "seed", "output", "verdicts")
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
    print(f"seed:       {item.seed}")
    for role in ("run", "measure", "judge"):
        if hasattr(item, role):
            print(f"{role + ':':12}{_where(getattr(item, role))}")
    if item.kind in ("figure", "table"):
        print(f"script:     workflow/scripts/{family}/{item.script_file}")
    print("outputs:    " + ", ".join(item_files(family, item)))
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
    for r in records:
        verdict = verdict_of(r["passed"]).upper()
        print(
            f"  {verdict} {r['id']}: {r['measured']:.4g} {r['relation']} {r['bound']:.4g}"
            f" (tol {r['tolerance']:.3g})"
        )
    return 0


def compare_golden(ledger, golden, rtol: float = 1e-9) -> list[str]:
    """Differences between a claims ledger and the golden verdicts (empty when they agree).

    Claim ids and verdicts must match exactly; measured values to ``rtol`` (NaN equals NaN).
    """
    problems = []
    now = ledger.set_index("id")
    then = golden.set_index("id")
    for claim in sorted(set(then.index) - set(now.index)):
        problems.append(f"missing claim {claim}")
    for claim in sorted(set(now.index) - set(then.index)):
        problems.append(f"new claim {claim} (not in the golden file)")
    for claim in sorted(set(now.index) & set(then.index)):
        a, b = now.loc[claim], then.loc[claim]
        if a["verdict"] != b["verdict"]:
            problems.append(f"{claim}: verdict {b['verdict']} -> {a['verdict']}")
        x, y = float(a["measured"]), float(b["measured"])
        same = (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=rtol, abs_tol=0)
        if not same:
            problems.append(f"{claim}: measured {y!r} -> {x!r}")
    return problems


def cmd_golden(registry: Registry, args) -> int:

    ledger = pd.read_csv(args.ledger)
    if args.write:
        args.golden.parent.mkdir(parents=True, exist_ok=True)
        ledger[GOLDEN_COLUMNS].sort_values("id").to_csv(args.golden, index=False)
        print(f"wrote {len(ledger)} golden verdicts to {args.golden}")
        return 0
    golden = pd.read_csv(args.golden)
    problems = compare_golden(ledger, golden, args.rtol)
    for line in problems:
        print(line)
    print(f"{len(ledger)} claims; {len(problems)} differences from {args.golden}")
    return 1 if problems else 0


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

    from .config import ConfigError

    config = _load_config([Path("config/config.yaml"), *args.files])
    schema = yaml.safe_load(Path("workflow/schemas/config.schema.yaml").read_text())
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
    """Where the last run's time went (``results/benchmarks.csv``, see sigprop.job_benchmarks)."""
    from . import job_benchmarks

    if not args.table.exists():
        print(f"sigprop: {args.table} not found: run the workflow first (snakemake all)")
        return 1
    jobs = pd.read_csv(args.table)
    print(job_benchmarks.describe(job_benchmarks.summarize(jobs, slowest=args.slowest)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
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
    golden.add_argument("--rtol", type=float, default=1e-9)
    golden.add_argument("--write", action="store_true", help="record the ledger as golden")
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
    args = parser.parse_args(argv)
    if hasattr(signal, "SIGPIPE"):  # `sigprop list | head` ends quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    registry = load_registry()
    command = {
        "list": cmd_list,
        "show": cmd_show,
        "golden": cmd_golden,
        "check-config": cmd_check_config,
        "benchmarks": cmd_benchmarks,
    }[args.command]
    return command(registry, args)


if __name__ == "__main__":
    sys.exit(main())
