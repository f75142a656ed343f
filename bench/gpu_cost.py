"""Measured GPU seconds per synthetic item at paper scale (issue 25, item 5), beside the modelled
projection of bench/paper_cost.py.

Per item without datasets: a warm-up run at the quick config on CUDA, then the two reduced
paper-config runs of ``paper_cost.REDUCE`` (A and B), each timed in wall seconds between
``torch.cuda.synchronize()`` calls, projected to the full paper config the same way as the CPU
time (T(s) = a + b s through A and B, ``paper_cost.affine``). Beside them: the model's H100
projection (``paper_gpu_s``), the one-core CPU projection (``cpu_paper_s``) and the peak GPU
memory of run A. Items run cheapest first (modelled A-run time); none starts after ``--budget``
seconds, and the table is rewritten after each item, so a cut run keeps what it measured.

Usage:  python bench/gpu_cost.py [--out bench/results/gpu_cost.csv] [--budget 150] [--timeout 60]
"""

from __future__ import annotations

import argparse
import csv
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import paper_cost  # noqa: E402  (sets one CPU thread, as the CPU projection had)
import torch  # noqa: E402
import yaml  # noqa: E402

from sigprop.base.config import merge_configs  # noqa: E402
from sigprop.papers import load_registry  # noqa: E402

ROOT = paper_cost.ROOT
COLUMNS = [
    "item", "kind", "device", "quick_s", "s_A", "t_A", "s_B", "t_B", "gpu_paper_s",
    "model_gpu_s", "cpu_paper_s", "cpu_over_gpu", "peak_mb_A", "status",
]  # fmt: skip


DEVICE = "cuda"


def drain() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def wall(call, timeout: int) -> dict:
    """Wall seconds of ``call()`` with the GPU's queue drained on both sides, or a status."""
    signal.signal(signal.SIGALRM, paper_cost._alarm)
    signal.alarm(timeout)
    drain()
    start = time.perf_counter()
    try:
        call()
        drain()
    except paper_cost.Timeout:
        return {"status": f"timeout > {timeout} s"}
    except Exception as error:  # noqa: BLE001 (a failure on CUDA is a finding)
        return {"status": f"failed: {type(error).__name__}: {str(error)[:120]}"}
    finally:
        signal.alarm(0)
    return {"status": "ok", "s": time.perf_counter() - start}


def on_device(item, setup: dict):
    function = item.run if item.kind == "simulation" else item.measure
    return lambda: function(**setup, device=DEVICE)


def measure(family, item, quick_setup: dict, paper_setup: dict, model: dict, timeout: int):
    key = f"{family}/{item.name}"
    name = torch.cuda.get_device_name() if DEVICE == "cuda" else "cpu (1 thread)"
    row = {"item": key, "kind": item.kind, "device": name}
    row["model_gpu_s"] = paper_cost._parsed(model).get("paper_gpu_s") if model else None
    row["cpu_paper_s"] = paper_cost._parsed(model).get("cpu_paper_s") if model else None
    quick = wall(on_device(item, quick_setup), timeout)
    row["quick_s"] = quick.get("s")
    spec = paper_cost.REDUCE.get(key, {"A": {}, paper_cost.G: []})
    for name in ("A", "B") if "B" in spec else ("A",):
        setup = paper_setup | spec[name]
        row[f"s_{name}"] = paper_cost.work_fraction(spec[paper_cost.G], setup, paper_setup)
        if DEVICE == "cuda":
            torch.cuda.reset_peak_memory_stats()
        run = wall(on_device(item, setup), timeout)
        if name == "A" and DEVICE == "cuda":
            row["peak_mb_A"] = torch.cuda.max_memory_allocated() / 2**20
        if run["status"] != "ok":
            row["status"] = f"{name}: {run['status']}"
            return row
        row[f"t_{name}"] = run["s"]
    if "B" not in spec:
        row["s_B"], row["t_B"] = row["s_A"], row["t_A"]
    row["gpu_paper_s"] = paper_cost.affine(row["s_A"], row["t_A"], row["s_B"], row["t_B"])
    if row["cpu_paper_s"]:
        row["cpu_over_gpu"] = row["cpu_paper_s"] / row["gpu_paper_s"]
    row["status"] = "ok" if quick["status"] == "ok" else f"quick {quick['status']}"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=paper_cost.RESULTS / "gpu_cost.csv")
    parser.add_argument("--budget", type=float, default=150, help="no item starts after (s)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per timed run")
    parser.add_argument("--device", default="cuda", help="cpu: try the harness without a GPU")
    parser.add_argument("--only", nargs="*", help="family/item keys to run (default: all)")
    args = parser.parse_args()
    global DEVICE
    DEVICE = args.device
    if DEVICE == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_cost: CUDA is not available")
    quick = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    paper = merge_configs(quick, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()))
    registry = load_registry()
    quick_setups = {f"{f}/{i.name}": s for f, i, s in paper_cost.setups(quick, registry)}
    with (paper_cost.RESULTS / "paper_cost.csv").open() as handle:
        models = {row["item"]: row for row in csv.DictReader(handle)}

    def modelled_a_seconds(entry) -> float:
        model = paper_cost._parsed(models.get(f"{entry[0]}/{entry[1].name}", {}))
        gpu, share = model.get("paper_gpu_s"), model.get("work_fraction_A")
        return gpu * share if gpu and share else model.get("t_A") or float("inf")

    todo = [e for e in paper_cost.setups(paper, registry) if not getattr(e[1], "datasets", ())]
    if args.only:
        todo = [e for e in todo if f"{e[0]}/{e[1].name}" in args.only]
    todo.sort(key=modelled_a_seconds)
    start, rows = time.time(), []
    for family, item, paper_setup in todo:
        if time.time() - start > args.budget:
            break
        key = f"{family}/{item.name}"
        row = measure(family, item, quick_setups[key], paper_setup, models.get(key), args.timeout)
        rows.append(row)
        print(f"{key}: {row.get('gpu_paper_s')} s on {DEVICE} at paper scale [{row['status']}]",
              flush=True)  # fmt: skip
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    print(f"{len(rows)} of {len(todo)} items measured -> {args.out}")


if __name__ == "__main__":
    main()
