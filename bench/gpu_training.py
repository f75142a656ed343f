"""Every real-data training at paper shapes on a GPU, cut to a few SGD steps, projected to the
paper run (issue 39, item 2; issue 25, items 2 and 5).

Each training simulation runs at ``config/paper.yaml`` (merged over the quick config) on
generated files in the real formats at full size (``sigprop.datasets.generated_datasets``: random
pixels), so its datasets, networks, depths, widths, step-size grid, runs, batch and evaluation
sizes are the seeds'. Only its SGD is cut: inside ``training.loop.measured(cut_steps=S)`` every
``train`` call (one stack: a network at a depth, all its step sizes and runs) stops after S steps
and logs its epoch-end point, and the engine times each call by bucket (set-up: the first steps,
with warm-up and graph capture; the steady steps; the log points). Per stack the paper run is

    set-up + paper steps x steady step + paper log points x log point,

paper steps = epochs x floor(N / batch), log points = 1 + epochs + those of ``log_every`` within
epochs; per item the sum over its stacks (``projected_paper_s_low``) plus what the cut run spent
outside ``train`` (datasets, initialization, pre-training, orthogonalization, probes after
training), counted once as measured (``projected_paper_s_high``). These are projections from
measured cut runs, not measurements of paper runs. ``gpu_training_stacks.csv`` holds the stacks.

Per item row: status (``ok``, ``timeout > T s`` or the error: a crash at paper shapes is a
finding), stacks, the slowest stack's steady ms per step, the engine's modes, the projections,
the cut run's seconds and peak GPU memory, date and revision. Rewritten after each item, so a run
cut by its budget keeps what it measured; items are ordered one per paper first.

``--dry``: the quick config cut as ``sigprop.pipeline.paper_smoke.cut`` cuts it, 2 steps, on the
CPU, on small generated files: the harness in seconds (tests/test_gpu_bench.py).

Usage:  python bench/gpu_training.py [--out-dir bench/results] [--budget 270] [--timeout 90]
                                     [--steps 24] [--device cuda] [--only family/item ...] [--dry]
"""

from __future__ import annotations

import argparse
import csv
import datetime
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpu_cost  # noqa: E402
import paper_cost  # noqa: E402
import torch  # noqa: E402
import yaml  # noqa: E402
from training_engine import revision  # noqa: E402

from sigprop.base.config import merge_configs  # noqa: E402
from sigprop.base.registry import dataset_names  # noqa: E402
from sigprop.datasets import generated_datasets  # noqa: E402
from sigprop.papers import load_registry  # noqa: E402
from sigprop.pipeline.paper_smoke import cut as smoke_cut  # noqa: E402
from sigprop.pipeline.paper_smoke import with_data_root  # noqa: E402
from sigprop.training import loop  # noqa: E402

ROOT = paper_cost.ROOT
COLUMNS = [
    "item", "device", "dataset", "kind", "cut_steps", "stacks", "members", "paper_steps",
    "paper_log_points", "slowest_step_ms", "log_point_s", "setup_s", "train_s", "outside_s",
    "cut_run_s", "projected_paper_s_low", "projected_paper_s_high", "projected_paper_h",
    "engine", "peak_mb", "status", "date", "revision",
]  # fmt: skip
STACK_COLUMNS = [
    "item", "stack", "members", "epochs", "steps_per_epoch", "log_every", "steps", "setup_steps",
    "setup_s", "step_ms", "log_points", "log_point_s", "paper_steps", "paper_log_points",
    "projected_s", "engine", "nonfinite_runs", "date", "revision",
]  # fmt: skip
FIRST = ("rank_collapse/depth_training", "orthogonality/depth_orthogonality",
         "gradients/shaped_cifar10")  # fmt: skip
"""One training per paper first: a cut budget still leaves each paper measured."""


def stack_projection(record: dict) -> dict:
    """One stack's paper-run seconds from its cut run's timing (``loop.measured``)."""
    steady = record["steps"] - record["setup_steps"]
    if steady > 0:
        step = record["step_s"] / steady
        setup = max(0.0, record["setup_s"] - record["setup_steps"] * step)
    else:  # every step was a first step: no steady time to tell them apart
        step, setup = (record["setup_s"] + record["step_s"]) / max(1, record["steps"]), 0.0
    log_point = record["log_s"] / max(1, record["log_points"])
    steps = record["epochs"] * record["steps_per_epoch"]
    points = loop.log_points(record["epochs"], record["steps_per_epoch"], record["log_every"])
    return {
        "stack": record["desc"], "members": record["members"], "epochs": record["epochs"],
        "steps_per_epoch": record["steps_per_epoch"], "log_every": record["log_every"],
        "steps": record["steps"], "setup_steps": record["setup_steps"], "setup_s": setup,
        "step_ms": 1e3 * step, "log_points": record["log_points"], "log_point_s": log_point,
        "paper_steps": steps, "paper_log_points": points,
        "projected_s": setup + steps * step + points * log_point, "engine": record["engine"],
        "nonfinite_runs": record["nonfinite_runs"],
    }  # fmt: skip


def item_projection(stacks: list[dict], records: list[dict], cut_run_s: float) -> dict:
    """An item's row from its stacks: their sum, plus the time outside ``train`` once."""
    if not stacks:
        return {"status": "no train call"}
    low = sum(s["projected_s"] for s in stacks)
    outside = max(0.0, cut_run_s - sum(r["seconds"] for r in records))
    return {
        "stacks": len(stacks), "members": max(s["members"] for s in stacks),
        "paper_steps": sum(s["paper_steps"] for s in stacks),
        "paper_log_points": sum(s["paper_log_points"] for s in stacks),
        "slowest_step_ms": max(s["step_ms"] for s in stacks),
        "log_point_s": statistics.median(s["log_point_s"] for s in stacks),
        "setup_s": sum(s["setup_s"] for s in stacks),
        "train_s": sum(r["seconds"] for r in records), "outside_s": outside,
        "cut_run_s": cut_run_s, "projected_paper_s_low": low,
        "projected_paper_s_high": low + outside, "projected_paper_h": (low + outside) / 3600,
        "engine": "; ".join(sorted({s["engine"] for s in stacks})), "status": "ok",
    }  # fmt: skip


def cut_run(item, setup: dict, steps: int, timeout: int) -> tuple[dict, list[dict]]:
    """The item's row and its stacks' rows from one cut run (``loop.measured``)."""
    if gpu_cost.DEVICE == "cuda":
        torch.cuda.reset_peak_memory_stats()
    with generated_datasets.unchecked_cifar(), loop.measured(cut_steps=steps) as records:
        result = gpu_cost.wall(gpu_cost.on_device(item, setup), timeout)
    row = {"kind": "training", "cut_steps": steps}
    if gpu_cost.DEVICE == "cuda":
        row["peak_mb"] = torch.cuda.max_memory_allocated() / 2**20
    stacks = [stack_projection(r) for r in records]
    if result["status"] != "ok":
        return row | {"stacks": len(stacks), "status": result["status"]}, stacks
    return row | item_projection(stacks, records, result["s"]), stacks


def _write(path: Path, columns: list[str], rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def _setups(args) -> list[tuple[str, object, dict]]:
    """(family, item, setup) of every training simulation at the paper config (``--dry``: the
    quick config, smoke-cut), one per paper first."""
    quick = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    config = quick
    if not args.dry:
        config = merge_configs(quick, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()))
    todo = [
        (family, item, smoke_cut(setup) if args.dry else setup, config)
        for family, item, setup in paper_cost.setups(config, load_registry())
        if getattr(item, "datasets", ()) and "epochs" in setup
    ]
    if args.only:
        todo = [e for e in todo if f"{e[0]}/{e[1].name}" in args.only]
    todo.sort(key=lambda e: f"{e[0]}/{e[1].name}" not in FIRST)
    return todo


def run_items(args, root: Path, device: str, stamp: dict) -> list[dict]:
    """Each training's cut run in turn (none starts after ``--budget`` s), its datasets generated
    under ``root`` when first needed; the tables rewritten after each item."""
    start, rows, stack_rows, written = time.time(), [], [], set()
    for family, item, paper_setup, config in _setups(args):
        key = f"{family}/{item.name}"
        if time.time() - start > args.budget:
            rows.append({"item": key, "device": device, "status": "not run: budget"} | stamp)
            continue
        names = dataset_names(item, config)
        for name in set(names) - written:
            generated_datasets.write(name, root, *((2048, 512) if args.dry else ()))
            written.add(name)
        setup = with_data_root(paper_setup, str(root))
        row, stacks = cut_run(item, setup, args.steps, args.timeout)
        rows.append({"item": key, "device": device, "dataset": "+".join(names), **row} | stamp)
        stack_rows += [{"item": key, **s} | stamp for s in stacks]
        print(f"{key}: {row['status']}, {row.get('stacks')} stacks, slowest step "
              f"{row.get('slowest_step_ms')} ms, projected {row.get('projected_paper_h')} h "
              f"[{row.get('engine')}], peak {row.get('peak_mb')} MB", flush=True)  # fmt: skip
        _write(args.out_dir / "gpu_training.csv", COLUMNS, rows)
        _write(args.out_dir / "gpu_training_stacks.csv", STACK_COLUMNS, stack_rows)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=paper_cost.RESULTS)
    parser.add_argument("--budget", type=float, default=270, help="no item starts after (s)")
    parser.add_argument("--timeout", type=int, default=90, help="seconds per item")
    parser.add_argument("--steps", type=int, default=24, help="SGD steps per stack")
    parser.add_argument("--device", default="cuda", help="cpu: the harness without a GPU")
    parser.add_argument("--only", nargs="*", help="family/item keys to run (default: all)")
    parser.add_argument("--dry", action="store_true", help="quick config, smoke-cut, on the CPU")
    args = parser.parse_args(argv)
    if args.dry:
        args.device, args.steps = "cpu", 2
    gpu_cost.DEVICE = args.device
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_training: CUDA is not available")
    device = torch.cuda.get_device_name() if args.device == "cuda" else "cpu (1 thread)"
    if args.device == "cuda":  # CUDA's context and libraries load here, not in the first row
        (torch.ones(64, 64, device="cuda") @ torch.ones(64, 64, device="cuda")).sum().item()
    stamp = {"date": datetime.date.today().isoformat(), "revision": revision()}
    with tempfile.TemporaryDirectory(prefix="sigprop-generated-") as tmp:
        rows = run_items(args, Path(tmp), device, stamp)
    _write(args.out_dir / "gpu_training.csv", COLUMNS, rows)
    print(f"{sum(r['status'] == 'ok' for r in rows)} of {len(rows)} trainings projected -> "
          f"{args.out_dir / 'gpu_training.csv'}")  # fmt: skip


if __name__ == "__main__":
    main()
