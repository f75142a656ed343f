"""Paper-scale cost table (issue 13, target 4): quick-scale CPU seconds, projected paper-scale CPU
seconds and projected H100 seconds per simulation and theorem item.

Per item, one thread, in this process (torch imported once; times are process CPU seconds):

1. quick: the item at ``config/config.yaml`` (real-data items: the ``s`` column of the DAG's
   Snakemake benchmark file ``benchmarks/<family>/simulate_<item>.tsv`` when present, wall
   seconds including the job's imports; say so in ``quick_source``).
2. paper: the item at ``config/paper.yaml`` merged over the quick config, with the keys whose cost
   is linear reduced (``REDUCE`` below), timed at two reductions A and B (B reduces one group
   further). With s = the fraction of the paper work a run does (product over the reduced groups
   of reduced / paper), the time is fitted as T(s) = a + b s through A and B, and the paper
   projection is T(1) = a + b (a: work the reduced keys do not scale, e.g. fixed-point samples or
   per-layer overhead of batched runs). If the fit gives a < 0 (noise), T(1) = T_A / s_A.
   ``lin`` = (T_A / T_B) / (s_A / s_B): 1 for work proportional to s, below 1 with a fixed
   part; items with lin outside [0.6, 1.3] or with data-dependent work are flagged.
3. GPU (projected, not measured): the same A and B runs again under a ``TorchDispatchMode`` that
   sees every aten op: per op a GPU time max(20 us, roofline) with roofline = flops / 25 TFLOP/s
   (FP64 matrix products) + bytes / 2 TB/s (bytes = tensor arguments + outputs), and for
   decompositions (eigh, svd, qr, ...) the measured CPU time / 5; plus the host work outside
   torch ops (process CPU time - thread CPU time inside ops - 5 us per op), which stays on the
   CPU. Views and allocations count no kernel. Fitted over A and B and projected to s = 1 like
   the CPU time. See bench/README.md, "Paper cost".

Writes ``bench/results/paper_cost.csv`` and ``bench/results/paper_cost.md``, prints the table, and
rewrites the cost table the package ships (``bench/cost_table.py``).

Usage:  python bench/paper_cost.py [--only family/item ...] [--timeout 120]
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import signal
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import cost_table  # noqa: E402  (bench/, the script's folder)
import torch  # noqa: E402
import yaml  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

from sigprop.base.config import merge_configs  # noqa: E402
from sigprop.base.registry import simulation_setup  # noqa: E402
from sigprop.papers import load_registry  # noqa: E402

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DAG_BENCHMARKS = [ROOT / "benchmarks"]  # more with --dag-benchmarks

# GPU model (one H100, FP64): see bench/README.md.
KERNEL_FLOOR_S = 20e-6  # per launched kernel (launch + eager-mode Python overhead)
FP64_FLOPS = 25e12  # effective FP64 matrix-product rate (about 40% of the SXM tensor-core peak)
HBM_BYTES_S = 2.0e12  # effective memory bandwidth (about 60% of 3.35 TB/s)
DECOMPOSITION_SPEEDUP = 5.0  # eigh/svd/qr on many small matrices: cuSOLVER vs one CPU core
HOST_PER_OP_S = 5e-6  # CPU-side Python/dispatch cost per op, covered by the kernel floor
H100_TARGET_H = 2.0

# Per item: reduced keys at pass A and at pass B, and the groups that scale the work: the work
# fraction s is the product over groups of (value / paper value) of the group's first key (the
# other keys of a group are reduced by the same ratio: they add to the same work).
# An item absent here runs at the paper config itself (A only).
G = "groups"
REDUCE: dict[str, dict] = {
    "rank_collapse/small_batch_rank": {
        "A": {"depth": 50, "stride": 50, "n_runs": 1},
        "B": {"depth": 25, "stride": 25, "n_runs": 1},
        G: [["depth"], ["n_runs"]],
    },
    "rank_collapse/bn_chain": {
        "A": {"depth": 1000, "burn_in": 1, "n_runs": 1},
        "B": {"depth": 500, "burn_in": 1, "n_runs": 1},
        G: [["depth"], ["n_runs"]],
    },
    "orthogonality/gap_chain": {
        "A": {"depth": 120, "n_runs": 4},
        "B": {"depth": 60, "n_runs": 4},
        G: [["depth"], ["n_runs"]],
    },
    "orthogonality/gaussian_chain": {
        "A": {"depth": 30, "n_runs": 20},
        "B": {"depth": 15, "n_runs": 20},
        G: [["depth"], ["n_runs"]],
    },
    "orthogonality/wide_gaussian_chain": {
        "A": {"depth": 60, "n_runs": 2},
        "B": {"depth": 30, "n_runs": 2},
        G: [["depth"], ["n_runs"]],
    },
    "orthogonality/conjecture_chain": {
        "A": {"depth": 100, "reference_depth": 500, "burn_in": 10, "n_runs": 4},
        "B": {"depth": 50, "reference_depth": 250, "burn_in": 5, "n_runs": 4},
        G: [["depth", "reference_depth", "burn_in"], ["n_runs"]],
    },
    "orthogonality/a1_grid": {  # depth 50 took > 90 s; below CHECK_EVERY = 25 nothing stops
        "A": {"depth": 4},
        "B": {"depth": 2},
        G: [["depth"]],
        "doubtful": "upper bound: pixels stop early once all runs fail (stop_when_all_failed), "
        "never within the timed depths",
    },
    "mean_field/gram_chain": {
        "A": {"n_runs": 2, "fixed_point_samples": 800000},
        "B": {"n_runs": 1, "fixed_point_samples": 400000},
        G: [["n_runs", "fixed_point_samples"]],
    },
    "gradients/isometry_chain": {"A": {}, "B": {"depth": 50}, G: [["depth"]]},
    "rank_collapse/lemma3": {
        "A": {"depth": 300, "n_runs": 16, "checkpoints": [100, 300]},
        "B": {"depth": 300, "n_runs": 8, "checkpoints": [100, 300]},
        G: [["depth"], ["n_runs"]],
    },
    "rank_collapse/lemma1": {
        "A": {"n_matrices": 100, "depth": 100},
        "B": {"n_matrices": 50, "depth": 50},
        G: [["n_matrices", "depth"]],
    },
    "rank_collapse/lemma4": {
        "A": {"depth": 1000, "burn_in": 100, "n_runs": 8},
        "B": {"depth": 500, "burn_in": 50, "n_runs": 8},
        G: [["depth", "burn_in"], ["n_runs"]],
    },
    "rank_collapse/lemma5_6": {"A": {"depth": 1000}, "B": {"depth": 500}, G: [["depth"]]},
    "rank_collapse/lemma7": {"A": {"n_pairs": 100000}, "B": {"n_pairs": 50000}, G: [["n_pairs"]]},
    "rank_collapse/prop8": {"A": {"n_spectra": 32}, "B": {"n_spectra": 16}, G: [["n_spectra"]]},
    "rank_collapse/example9": {
        "A": {"n_runs": 8, "n_samples": 256},
        "B": {"n_runs": 4, "n_samples": 256},
        G: [["n_runs"], ["n_samples"]],
    },
    "rank_collapse/examples11_12": {
        "A": {"n_spectra": 64},
        "B": {"n_spectra": 32},
        G: [["n_spectra"]],
    },
    "orthogonality/theorem5": {
        "A": {"n_draws": 1000},
        "B": {"n_draws": 500},
        G: [["n_draws"]],
    },
    "orthogonality/lemma6": {"A": {"n_draws": 5000}, "B": {"n_draws": 2500}, G: [["n_draws"]]},
    "orthogonality/lemma10": {"A": {"n_grid": 100}, "B": {"n_grid": 50}, G: [["n_grid"]]},
    "orthogonality/stability": {
        "A": {"depth": 50, "n_runs": 20},
        "B": {"depth": 25, "n_runs": 20},
        G: [["depth"], ["n_runs"]],
    },
    "orthogonality/app_e": {
        "A": {"n_spectra": 2000, "n_matrices": 30, "mlp_depth": 4},
        "B": {"n_spectra": 1000, "n_matrices": 15, "mlp_depth": 2},
        G: [["n_spectra", "n_matrices", "mlp_depth"]],
    },
    "orthogonality/lemma_a8": {"A": {"n_runs": 20}, "B": {"n_runs": 10}, G: [["n_runs"]]},
    "orthogonality/whitening": {"A": {"n_runs": 100}, "B": {"n_runs": 50}, G: [["n_runs"]]},
    "mean_field/fixed_point": {
        "A": {"sphere_samples": 400000, "map_samples": 10000, "chain_width": 10000},
        "B": {"sphere_samples": 200000, "map_samples": 5000, "chain_width": 5000},
        G: [["sphere_samples", "map_samples", "chain_width"]],
    },
    "mean_field/mixing": {
        "A": {"n_runs": 10, "fixed_point_samples": 400000},
        "B": {"n_runs": 5, "fixed_point_samples": 200000},
        G: [["n_runs", "fixed_point_samples"]],
    },
    "mean_field/lemma_b1_b2": {
        "A": {"draws": 1000, "fixed_point_samples": 400000},
        "B": {"draws": 500, "fixed_point_samples": 200000},
        G: [["draws", "fixed_point_samples"]],
    },
    "isometry/lemma4_2": {"A": {"n_cases": 1000}, "B": {"n_cases": 500}, G: [["n_cases"]]},
    "isometry/theorem4_3": {"A": {"n_cases": 1000}, "B": {"n_cases": 500}, G: [["n_cases"]]},
    "isometry/corollary4_4": {"A": {"n_cases": 1000}, "B": {"n_cases": 500}, G: [["n_cases"]]},
    "isometry/corollary4_5": {"A": {"n_cases": 1000}, "B": {"n_cases": 500}, G: [["n_cases"]]},
    "isometry/prop5_1": {
        "A": {"depth": 4, "runs": 1},
        "B": {"depth": 2, "runs": 1},
        G: [["depth"], ["runs"]],
    },
    "gradients/theorem6_3": {"A": {"draws": 2000}, "B": {"draws": 1000}, G: [["draws"]]},
    "gradients/lemma_c8_c9": {
        "A": {"n_spectra": 1000, "draws": 2000},
        "B": {"n_spectra": 500, "draws": 1000},
        G: [["n_spectra", "draws"]],
    },
    "gradients/jacobian": {"A": {"n_cases": 60}, "B": {"n_cases": 30}, G: [["n_cases"]]},
    "gradients/lemma_c11": {
        "A": {"n_samples": 10000},
        "B": {"n_samples": 5000},
        G: [["n_samples"]],
    },
    "gradients/chain_rule": {"A": {"runs": 2}, "B": {"runs": 1}, G: [["runs"]]},
    "gradients/lemma_c12": {"A": {"depth": 150}, "B": {"depth": 75}, G: [["depth"]]},
    "gradients/lemma_c14_c15": {
        "A": {"depth": 150, "step_draws": 500},
        "B": {"depth": 75, "step_draws": 250},
        G: [["depth", "step_draws"]],
    },
}

MATMUL_OPS = {"mm", "bmm", "addmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "vdot"}
DECOMPOSITIONS = ("eig", "svd", "qr", "cholesky", "geqrf", "orgqr", "lu", "triangular", "solve")
NO_KERNEL = {"empty", "empty_like", "empty_strided", "detach", "alias", "lift_fresh"}


class OpCounter(TorchDispatchMode):
    """Counts aten ops and their projected H100 time (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.kernels = 0
        self.in_ops_s = 0.0
        self.gpu_s = 0.0
        self.matmul_flops = 0.0
        self.matmul_s = 0.0
        self.decomposition_s = 0.0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        start = time.thread_time()
        out = func(*args, **(kwargs or {}))
        elapsed = time.thread_time() - start
        self.in_ops_s += elapsed
        name = func.overloadpacket.__name__
        if getattr(func, "is_view", False) or name in NO_KERNEL:
            return out
        self.kernels += 1
        tensors = [t for t in tree_flatten((args, kwargs, out))[0] if isinstance(t, torch.Tensor)]
        nbytes = sum(t.numel() * t.element_size() for t in tensors)
        if name in MATMUL_OPS:
            a, b = (args[1], args[2]) if name.startswith("add") or name == "baddbmm" else args[:2]
            flops = 2.0 * out.numel() * (a.shape[-1] if a.dim() > 1 else 1)
            if name in {"dot", "vdot"}:
                flops = 2.0 * a.numel()
            self.matmul_flops += flops
            self.matmul_s += elapsed
            gpu = flops / FP64_FLOPS + nbytes / HBM_BYTES_S
        elif any(key in name for key in DECOMPOSITIONS):
            self.decomposition_s += elapsed
            gpu = elapsed / DECOMPOSITION_SPEEDUP
        else:
            gpu = nbytes / HBM_BYTES_S
        self.gpu_s += max(KERNEL_FLOOR_S, gpu)
        return out


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout


def timed(call, timeout: int, count: bool = False) -> dict:
    """Process CPU seconds of ``call()`` (and the op counts), or a status on failure."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    counter = OpCounter() if count else None
    start = time.process_time()
    try:
        if counter is not None:
            with counter:
                call()
        else:
            call()
    except Timeout:
        return {"status": f"timeout > {timeout} s"}
    except Exception as error:  # noqa: BLE001 (a failure at paper config is a finding)
        return {"status": f"failed: {type(error).__name__}: {str(error)[:120]}"}
    finally:
        signal.alarm(0)
    seconds = time.process_time() - start
    out = {"status": "ok", "s": seconds}
    if counter is not None:
        out |= {
            "kernels": counter.kernels,
            "gpu_ops_s": counter.gpu_s,
            "flops": counter.matmul_flops,
            "matmul_s": counter.matmul_s,
            "decomposition_s": counter.decomposition_s,
            "in_ops_s": counter.in_ops_s,
        }
    return out


def affine(s_a: float, t_a: float, s_b: float, t_b: float) -> float:
    """T(1) from T(s) = a + b s through (s_a, t_a) and (s_b, t_b); proportional if a < 0."""
    if s_b == s_a:
        return t_a / s_a
    slope = (t_a - t_b) / (s_a - s_b)
    intercept = t_a - slope * s_a
    if intercept < 0 or slope < 0:
        return t_a / s_a
    return intercept + slope


def work_fraction(groups: list[list[str]], setup: dict, paper: dict) -> float:
    return math.prod(setup[g[0]] / paper[g[0]] for g in groups)


def dag_seconds(family: str, item) -> tuple[float | None, str]:
    stem = f"{'simulate' if item.kind == 'simulation' else 'measure'}_{item.name}"
    for root in DAG_BENCHMARKS:
        path = root / family / f"{stem}.tsv"
        if path.exists():
            rows = list(csv.DictReader(path.open(), delimiter="\t"))
            if rows:
                return float(rows[-1]["s"]), f"DAG benchmark {family}/{stem} (wall s, with imports)"
    return None, "no DAG benchmark file"


def setups(config: dict, registry) -> list[tuple[str, object, dict]]:
    out = []
    for kind in ("simulation", "theorem"):
        for family, item in registry.items(kind):
            if kind == "simulation":
                setup = simulation_setup(family, item, config)
            else:
                setup = {
                    k: v for k, v in config[family][item.name].items() if k not in item.tolerances
                }
            out.append((family, item, setup))
    return out


def call_of(item, setup: dict):
    function = item.run if item.kind == "simulation" else item.measure
    return lambda: function(**setup, device="cpu")


def reduced_text(spec: dict, paper: dict) -> str:
    parts = []
    for key, value in spec["A"].items():
        if paper.get(key) != value:
            ratio = paper[key] / value if isinstance(value, int | float) and value else None
            parts.append(f"{key} {paper[key]}->{value}" + (f" (/{ratio:g})" if ratio else ""))
    return "; ".join(parts) or "none"


def measure(family, item, quick_setup, paper_setup, timeout: int) -> dict:
    key = f"{family}/{item.name}"
    row = {"item": key, "kind": item.kind, "datasets": bool(getattr(item, "datasets", ()))}
    flags = []
    if row["datasets"]:
        row["quick_s"], row["quick_source"] = dag_seconds(family, item)
        row["status"] = "not measurable here (paper scale reads CIFAR / MNIST, not available)"
        row["flags"] = "real data"
        return row
    quick = timed(call_of(item, quick_setup), timeout)
    row["quick_s"] = quick.get("s")
    row["quick_source"] = "timed here (CPU s, 1 thread, no imports)"
    if quick["status"] != "ok":
        flags.append(f"quick {quick['status']}")
    spec = REDUCE.get(key)
    if spec is None:
        spec = {"A": {}, G: []}
    a_setup = paper_setup | spec["A"]
    s_a = work_fraction(spec[G], a_setup, paper_setup)
    row["reduced"] = reduced_text(spec, paper_setup)
    row["work_fraction_A"] = s_a
    if paper_setup == quick_setup and not spec["A"] and quick["status"] == "ok":
        plain_a = quick  # the paper config is the quick config
    else:
        plain_a = timed(call_of(item, a_setup), timeout)
    if plain_a["status"] != "ok":
        row["status"] = f"paper (reduced A): {plain_a['status']}"
        row["flags"] = "; ".join(flags + ["too slow or fails at paper config"])
        return row
    row["t_A"] = plain_a["s"]
    count_a = timed(call_of(item, a_setup), timeout, count=True)
    if "B" in spec:
        b_setup = paper_setup | spec["B"]
        s_b = work_fraction(spec[G], b_setup, paper_setup)
        plain_b = timed(call_of(item, b_setup), timeout)
        count_b = timed(call_of(item, b_setup), timeout, count=True)
    else:
        s_b, plain_b, count_b = s_a, plain_a, count_a
    if plain_b["status"] == "ok" and {count_a["status"], count_b["status"]} != {"ok"}:
        row["t_B"] = plain_b["s"]
        row["cpu_paper_s"] = affine(s_a, plain_a["s"], s_b, plain_b["s"])
        row["cpu_proportional_s"] = plain_a["s"] / s_a
        row["status"] = f"no GPU projection: the counted run {count_a['status']}"
        row["flags"] = "; ".join(flags)
        return row
    if {plain_b["status"], count_a["status"], count_b["status"]} != {"ok"}:
        row["status"] = (
            f"B: {plain_b['status']}; counted A: {count_a['status']}; "
            f"counted B: {count_b['status']}"
        )
        row["flags"] = "; ".join(flags)
        return row
    row["t_B"] = plain_b["s"]
    row["cpu_paper_s"] = affine(s_a, plain_a["s"], s_b, plain_b["s"])
    row["cpu_proportional_s"] = plain_a["s"] / s_a
    lin = (plain_a["s"] / plain_b["s"]) / (s_a / s_b) if s_b != s_a else 1.0
    row["lin"] = lin
    for plain, count in ((plain_a, count_a), (plain_b, count_b)):
        # host work: the plain run's CPU time outside torch ops (the counted run's own time
        # includes the dispatch mode's overhead)
        count["host_s"] = max(
            0.0, plain["s"] - count["in_ops_s"] - HOST_PER_OP_S * count["kernels"]
        )
        count["gpu_s"] = count["gpu_ops_s"] + count["host_s"]
    for name in ("kernels", "gpu_ops_s", "gpu_s", "host_s", "flops", "matmul_s"):
        row[f"paper_{name}"] = affine(s_a, count_a[name], s_b, count_b[name])
    row["gpu_floor_s"] = row["paper_kernels"] * KERNEL_FLOOR_S
    in_ops = count_a["in_ops_s"] or 1.0
    row["matmul_share"] = count_a["matmul_s"] / in_ops
    row["matmul_gflops_cpu"] = (
        count_a["flops"] / count_a["matmul_s"] / 1e9 if count_a["matmul_s"] else None
    )
    if s_b != s_a and not 0.6 <= lin <= 1.3:
        flags.append(f"linearity doubtful (lin {lin:.2f})")
    if spec.get("doubtful"):
        flags.append(spec["doubtful"])
    if row["paper_gpu_s"] > row["cpu_paper_s"]:
        flags.append("launch-bound: slower on the GPU than on one core")
    if row["paper_host_s"] > 0.5 * row["paper_gpu_s"]:
        flags.append("host-bound on GPU (numpy / Python outside torch ops)")
    row["flags"] = "; ".join(flags)
    row["status"] = "ok"
    return row


def bare_matmul() -> list[dict]:
    """One core's FP64 batched matmul rate at the shapes the items use (GFLOP/s)."""
    rows = []
    for batch, d, n in [(60, 32, 32), (20, 128, 128), (4, 256, 4), (1, 512, 512), (1, 1024, 1024)]:
        a = torch.randn(batch, d, d, dtype=torch.float64)
        b = torch.randn(batch, d, n, dtype=torch.float64)
        out = torch.empty(batch, d, n, dtype=torch.float64)
        reps = max(1, int(2e8 / (2 * batch * d * d * n)))
        start = time.process_time()
        for _ in range(reps):
            torch.bmm(a, b, out=out)
        seconds = time.process_time() - start
        gflops = 2 * batch * d * d * n * reps / seconds / 1e9
        rows.append({"shape": f"{batch} x ({d}x{d} @ {d}x{n})", "cpu_gflops": gflops,
                     "h100_over_cpu": FP64_FLOPS / 1e9 / gflops})  # fmt: skip
    return rows


COLUMNS = [
    "item", "kind", "datasets", "quick_s", "quick_source", "reduced", "work_fraction_A", "t_A",
    "t_B", "lin", "cpu_paper_s", "cpu_proportional_s", "paper_kernels", "paper_flops",
    "matmul_share", "matmul_gflops_cpu", "gpu_floor_s", "paper_gpu_ops_s", "paper_host_s",
    "paper_gpu_s", "flags",
    "status",
]  # fmt: skip


def _parsed(row: dict) -> dict:
    """A row read back from paper_cost.csv: numbers as floats, ``datasets`` as a bool."""
    out: dict = {}
    for key, value in row.items():
        if key == "datasets":
            out[key] = value == "True"
        elif value == "":
            out[key] = None
        else:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    return out


def fmt(value, digits: int = 3) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.{digits}g}"
    return str(value)


def write(rows: list[dict], calibration: list[dict]) -> str:
    RESULTS.mkdir(parents=True, exist_ok=True)
    with (RESULTS / "paper_cost.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: fmt(row.get(k), 4) for k in COLUMNS})
    for row in rows:  # rows read back from a table written before the column existed
        if row.get("paper_gpu_ops_s") is None and row.get("paper_gpu_s") is not None:
            row["paper_gpu_ops_s"] = row["paper_gpu_s"] - row["paper_host_s"]
    ok = [r for r in rows if r.get("status") == "ok" and not r["datasets"]]
    cpu_h = sum(r["cpu_paper_s"] for r in ok) / 3600
    gpu_h = sum(r["paper_gpu_s"] for r in ok) / 3600
    ops_h = sum(r["paper_gpu_ops_s"] for r in ok) / 3600
    floor_h = sum(r["gpu_floor_s"] for r in ok) / 3600
    missing = [r["item"] for r in rows if r.get("status") != "ok" and not r["datasets"]]
    lines = [
        "| item | quick s | projected paper CPU s | projected H100 s, ops only | "
        "projected H100 s, with host work | kernel floor s | reduced (paper -> timed) | flags |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        status = "" if r.get("status") == "ok" else r.get("status", "")
        lines.append(
            f"| {r['item']} | {fmt(r.get('quick_s'))} | {fmt(r.get('cpu_paper_s'))} | "
            f"{fmt(r.get('paper_gpu_ops_s'))} | {fmt(r.get('paper_gpu_s'))} | "
            f"{fmt(r.get('gpu_floor_s'))} | "
            f"{r.get('reduced', '')} | {'; '.join(x for x in (r.get('flags'), status) if x)} |"
        )
    lines += [
        f"| **total, synthetic ({len(ok)} items)** | {fmt(sum(r['quick_s'] or 0 for r in ok))} | "
        f"**{cpu_h:.3g} CPU-h** | **{ops_h:.3g} GPU-h (projected)** | "
        f"**{gpu_h:.3g} GPU-h (projected)** | {floor_h:.3g} h | | "
        f"target {H100_TARGET_H:g} GPU-h on one H100: "
        f"ops only {'within' if ops_h <= H100_TARGET_H else 'ABOVE'}, with host work "
        f"{'within' if gpu_h <= H100_TARGET_H else 'ABOVE'} (projected)"
        + (f"; not in the total: {', '.join(missing)}" if missing else "")
        + " |",
        "",
        "Bare FP64 matmul on one CPU core (this run), vs the model's 25 TFLOP/s on the H100:",
        "",
        "| shape | CPU GFLOP/s | H100 / CPU |",
        "|---|---|---|",
    ]
    lines += [
        f"| {c['shape']} | {c['cpu_gflops']:.3g} | {c['h100_over_cpu']:.3g} |" for c in calibration
    ]
    table = "\n".join(lines) + "\n"
    (RESULTS / "paper_cost.md").write_text(
        "# Paper-scale cost (generated by bench/paper_cost.py; GPU columns projected)\n\n" + table
    )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="family/item keys to run (default: all)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per timed pass")
    parser.add_argument(
        "--dag-benchmarks",
        nargs="*",
        default=[],
        help="more benchmarks/ folders of a quick DAG run (for the real-data items' quick s)",
    )
    args = parser.parse_args()
    DAG_BENCHMARKS.extend(Path(folder) for folder in args.dag_benchmarks)
    quick = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    paper = merge_configs(quick, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()))
    registry = load_registry()
    paper_setups = {f"{f}/{i.name}": s for f, i, s in setups(paper, registry)}
    rows = []
    if args.only and (RESULTS / "paper_cost.csv").exists():  # update those rows of the table
        with (RESULTS / "paper_cost.csv").open() as handle:
            rows = [_parsed(row) for row in csv.DictReader(handle)]
        rows = [row for row in rows if row["item"] not in args.only]
    for family, item, quick_setup in setups(quick, registry):
        key = f"{family}/{item.name}"
        if args.only and key not in args.only:
            continue
        start = time.time()
        row = measure(family, item, quick_setup, paper_setups[key], args.timeout)
        rows.append(row)
        print(
            f"{key}: quick {fmt(row.get('quick_s'))} s, paper CPU {fmt(row.get('cpu_paper_s'))}"
            f" s, H100 {fmt(row.get('paper_gpu_s'))} s, lin {fmt(row.get('lin'))}"
            f" [{row.get('status')}] ({time.time() - start:.0f} s wall)",
            flush=True,
        )
        write(rows, [])
    order = [f"{f}/{i.name}" for f, i, _ in setups(quick, registry)]
    rows.sort(key=lambda row: order.index(row["item"]))
    print(write(rows, bare_matmul()))
    print(f"cost table: {cost_table.write()}")


if __name__ == "__main__":
    main()
