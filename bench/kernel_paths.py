"""Does pinning the CPU kernels make the bytes identical across kernel paths, and at what cost?
(issue 24, item 6)

Rounding differs between CPU kernel paths: ATen picks AVX2 or AVX-512 code at run time
(``ATEN_CPU_CAPABILITY``), MKL picks its own (``MKL_CBWR``, its conditional numerical
reproducibility), oneDNN caps its ISA with ``ONEDNN_MAX_CPU_ISA``, and the thread count changes
the order of reductions. Long chains and SGD amplify a last-bit difference. This script runs a
few representative items of the quick config, each in a fresh process per kernel path (the
variables must be set before torch loads), and records per (item, path):

- ``sha256``: of the item's numbers only (a simulation's arrays, name by name, in the order
  saved; a theorem measurement's table as CSV at full precision), so that wall times and dates
  in the provenance do not count;
- ``same_as_default``: whether those bytes equal the default path's (``default`` is run twice:
  ``default_again`` shows that one path on one machine is bit-identical run to run);
- ``max_rel_diff``: the largest relative difference of any number from the default path's;
- ``seconds`` and ``time_ratio``: the item's compute time (imports excluded) and its ratio to
  the default path's in the same run (the machine may be shared: read ratios, not seconds).

Usage:  python bench/kernel_paths.py [--items family/item ...] [--paths NAME ...] [--out CSV]
        [--append]

Recorded (bench/results/kernel_paths.csv) on the 2-core AVX-512 machine while other work
loaded it (load average about 12): seconds and ratios there are noisy; ``threads2`` was run for
the cheapest item only (two threads on a loaded 2-core machine: a theorem measurement took 27x
longer, 769 s, with the same bytes).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ITEMS = {
    "orthogonality/gap_chain": "simulation",  # DJB21 Fig. 2b: a long synthetic BN chain
    "rank_collapse/lemma4": "theorem",  # Dan+20 Lemma 4: a measured table (differs across CPUs)
    "gradients/depth_tanh": "simulation",  # Thesis ch. 6: a tanh BN MLP's gradients by depth
    "orthogonality/depth_orthogonality": "simulation",  # DJB21 Figs. 3, 4: SGD on BN MLPs
}
"""Representative items: a long synthetic chain, a theorem measurement, one training run."""

PATHS = {
    "default": ({}, 1),
    "default_again": ({}, 1),
    "aten_avx2": ({"ATEN_CPU_CAPABILITY": "avx2"}, 1),
    "mkl_avx2": ({"MKL_CBWR": "AVX2"}, 1),
    "aten_avx2+mkl_avx2": ({"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}, 1),
    "aten_default+mkl_compatible": (
        {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"},
        1,
    ),
    "onednn_avx2": ({"ONEDNN_MAX_CPU_ISA": "AVX2"}, 1),
    "all_pinned_avx2": (
        {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"},
        1,
    ),
    "threads2": ({}, 2),
}
"""Kernel path name -> (environment variables, torch threads)."""

PINNED = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS")


def child(name: str, kind: str, threads: int, out: str) -> None:
    """Run one item of the quick config in this process; write its numbers to ``out`` (.npz)."""
    import time

    import numpy as np
    import torch
    import yaml

    from sigprop.base.registry import resolve, simulation_setup
    from sigprop.papers import load_registry

    torch.set_num_threads(threads)
    family, item_name = name.split("/")
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    item = load_registry().get(family, item_name, kind)
    arrays: dict[str, np.ndarray] = {}
    if kind == "simulation":
        setup = simulation_setup(family, item, config)
        start = time.perf_counter()
        result = item.run(**setup, device="cpu")
        seconds = time.perf_counter() - start
        for key, value in result.values.items():
            arrays[key] = np.ascontiguousarray(np.asarray(value))
    else:
        found = resolve(None, config, default=f"{family}/{item.name}")
        setup = {k: v for k, v in found.items() if k not in item.tolerances}
        start = time.perf_counter()
        table = item.measure(**setup, device="cpu")
        seconds = time.perf_counter() - start
        buffer = io.StringIO()
        table.to_csv(buffer, index=False, float_format="%.17g")
        arrays["table.csv"] = np.frombuffer(buffer.getvalue().encode(), dtype=np.uint8)
        for column in table.select_dtypes("number"):
            arrays[column] = table[column].to_numpy(float)
    np.savez(out, **arrays)
    print(json.dumps({"seconds": seconds, "capability": torch.backends.cpu.get_cpu_capability()}))


def digest(arrays) -> str:
    h = hashlib.sha256()
    for key in arrays.files:
        if key == "table.csv" or "table.csv" not in arrays.files:
            h.update(key.encode())
            h.update(arrays[key].tobytes())
    return h.hexdigest()


def max_rel_diff(a, b) -> float:
    """The largest difference of any number from the default path's, relative to the largest
    magnitude of its array (so that values near zero do not inflate it); inf when the shapes
    or the places of non-finite values differ."""
    import numpy as np

    worst = 0.0
    for key in a.files:
        if key == "table.csv" or key not in b.files:
            continue
        x, y = a[key].astype(float), b[key].astype(float)
        if x.shape != y.shape or not np.array_equal(np.isfinite(x), np.isfinite(y)):
            return float("inf")
        both = np.isfinite(x) & np.isfinite(y)
        if both.any():
            scale = max(float(np.max(np.abs(y[both]))), 1e-300)
            worst = max(worst, float(np.max(np.abs(x[both] - y[both]))) / scale)
    return worst


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", nargs="+", default=list(ITEMS))
    parser.add_argument("--paths", nargs="+", default=list(PATHS))
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/kernel_paths.csv")
    parser.add_argument("--append", action="store_true", help="add rows to --out")
    parser.add_argument("--child", nargs=4, metavar=("ITEM", "KIND", "THREADS", "OUT"))
    args = parser.parse_args(argv)
    if args.child:
        name, kind, threads, out = args.child
        child(name, kind, int(threads), out)
        return 0

    import numpy as np
    import pandas as pd

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.items:
            results = {}
            for path in args.paths:
                variables, threads = PATHS[path]
                env = {k: v for k, v in os.environ.items() if k not in PINNED}
                env.update(variables, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
                env["PYTHONPATH"] = os.pathsep.join(
                    p for p in (str(ROOT / "src"), os.getenv("PYTHONPATH")) if p
                )
                out = f"{tmp}/{name.replace('/', '_')}_{path}.npz"
                run = subprocess.run(
                    [sys.executable, __file__, "--child", name, ITEMS[name], str(threads), out],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                info = json.loads(run.stdout.strip().splitlines()[-1])
                results[path] = np.load(out)
                reference = results.get("default", results[path])
                row = {
                    "item": name,
                    "kernel_path": path,
                    "variables": " ".join(f"{k}={v}" for k, v in variables.items()) or "(none)",
                    "threads": threads,
                    "aten_capability": info["capability"],
                    "sha256": digest(results[path])[:16],
                    "same_as_default": digest(results[path]) == digest(reference),
                    "max_rel_diff": max_rel_diff(results[path], reference),
                    "seconds": round(info["seconds"], 2),
                }
                rows.append(row)
                print(row, flush=True)
    table = pd.DataFrame(rows)
    base = table[table["kernel_path"] == "default"].set_index("item")["seconds"]
    table["time_ratio"] = (table["seconds"] / table["item"].map(base)).round(2)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.append and args.out.exists():
        table = pd.concat([pd.read_csv(args.out), table], ignore_index=True)
    table.to_csv(args.out, index=False)
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
