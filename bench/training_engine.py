"""Training engine A/B (issue 39, item 1): SGD steps launched as before vs as now, at the shapes
of a Dan+20 MLP training.

Workload: the deepest stack of Dan+20 Fig. 1 at paper scale: ReLU MLPs of width 128 and depth 32
(BN and vanilla), 784 inputs, 10 classes, 35 members (7 step sizes x 5 runs), batch 128, random
data resident on the device; one epoch of ``--steps`` SGD steps through ``training.loop.train``,
with its log points at the start and the end (512 samples each).

- CUDA, in one process: ``old`` = ``loop.EAGER`` (every kernel of a step launched from Python,
  evaluations in chunks of 128), ``new`` = the default engine (the step captured once as a CUDA
  graph and replayed, ``training.graphs``).
- CPU: the default engine is the previous arithmetic launched the same way, so the A/B is against
  the previous source tree: ``--baseline-src DIR`` (the ``src`` of a checkout of the parent
  commit) runs ``old`` in a subprocess with that tree first on PYTHONPATH, ``new`` with this one,
  alternately; both call ``train`` with its defaults.
- ``--dry``: tiny shapes in one process (old = ``loop.EAGER``), seconds on a CPU: checks the
  harness (tests/test_gpu_bench.py).

Reported per (norm, variant): the median over ``--reps`` of the train call's wall seconds (the
GPU queue drained), its ms per step (whole call / steps: log points included) and the steady ms
per step where the engine times itself (``Curves.timing``: after warm-up and capture, without log
points); ``old_over_new``: the ratio of the medians. One CPU thread. Rows carry the date and the
revision of each side.

Usage:  python bench/training_engine.py [--device cpu|cuda] [--steps N] [--reps 3]
            [--baseline-src DIR] [--out CSV] [--dry]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
BATCH, WIDTH, D_IN, CLASSES = 128, 128, 784, 10


def revision(src: Path | None = None) -> str:
    """The git revision of the tree holding ``src`` (``SIGPROP_REVISION`` overrides: a machine
    given the working tree without its git folder)."""
    if src is None and os.environ.get("SIGPROP_REVISION"):
        return os.environ["SIGPROP_REVISION"]
    from sigprop.base.store import git_revision

    return git_revision(src or ROOT) or "unknown"


def drain(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def measure(device: str, norm: str, depth: int, members: int, steps: int, engine: str) -> dict:
    """One train call of ``steps`` steps; ``engine``: ``default`` (train's own), ``eager``
    (``loop.EAGER``) or ``graphs``."""
    from sigprop.nets.initializations import init_weights
    from sigprop.nets.mlp import MLP
    from sigprop.training import loop

    g = torch.Generator().manual_seed(0)
    n = steps * BATCH
    x = torch.randn(n, D_IN, generator=g).to(device)
    y = torch.randint(0, CLASSES, (n,), generator=g).to(device)
    data = loop.TrainData(x, y, x[:512], y[:512], x[:128], eval_size=512, probe_y=y[:128])
    nets = [
        init_weights(MLP(D_IN, WIDTH, depth, CLASSES, norm), "torch_default",
                     torch.Generator().manual_seed(r)).to(device)
        for r in range(members)
    ]  # fmt: skip
    stack = loop.RunStack(nets)
    lrs = torch.full((members,), 0.01)
    kwargs = {}
    if engine != "default":
        kwargs["engine"] = loop.EAGER if engine == "eager" else loop.Engine(graphs=True)
    drain(device)
    start = time.perf_counter()
    curves = loop.train(stack, data, lrs, 1, BATCH, "bench.engine", list(range(members)),
                        desc=f"{norm} L={depth}", **kwargs)  # fmt: skip
    drain(device)
    wall = time.perf_counter() - start
    timing = getattr(curves, "timing", {})
    steady = None
    if timing and timing["steps"] > timing["setup_steps"]:
        steady = 1e3 * timing["step_s"] / (timing["steps"] - timing["setup_steps"])
    return {"wall_s": wall, "ms_per_step": 1e3 * wall / steps, "steady_ms_per_step": steady,
            "engine": timing.get("engine", "previous loop")}  # fmt: skip


def _worker(args) -> None:
    torch.set_num_threads(1)
    out = measure(args.device, args.norm, args.depth, args.members, args.steps, "default")
    print(json.dumps(out))


def _in_subprocess(src: Path, args, norm: str) -> dict:
    """``measure`` with ``src`` first on PYTHONPATH, in a fresh process."""
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    command = [sys.executable, __file__, "--worker", "--device", args.device, "--norm", norm,
               "--depth", str(args.depth), "--members", str(args.members),
               "--steps", str(args.steps)]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _row(norm: str, variant: str, runs: list[dict], args, rev: str) -> dict:
    steady = [r["steady_ms_per_step"] for r in runs if r["steady_ms_per_step"] is not None]
    return {
        "date": datetime.date.today().isoformat(), "revision": rev, "device": args.device_name,
        "norm": norm, "depth": args.depth, "width": WIDTH, "members": args.members,
        "batch": BATCH, "steps": args.steps, "variant": variant, "engine": runs[0]["engine"],
        "reps": len(runs), "wall_s": statistics.median(r["wall_s"] for r in runs),
        "ms_per_step": statistics.median(r["ms_per_step"] for r in runs),
        "steady_ms_per_step": statistics.median(steady) if steady else None,
    }  # fmt: skip


def ab(args) -> list[dict]:
    """Rows of old and new per norm, the reps interleaved (old, new, old, new, ...)."""
    rows = []
    for norm in ("batch_norm", "none"):
        runs = {"old": [], "new": []}
        if args.device == "cuda":  # CUDA's context, cuBLAS and the allocator warm up uncounted
            measure("cuda", norm, args.depth, args.members, min(args.steps, 20), "graphs")
        for _ in range(args.reps):
            if args.device == "cuda" or args.dry:  # in one process: EAGER vs the default
                new = "graphs" if args.device == "cuda" else "default"
                for variant, engine in (("old", "eager"), ("new", new)):
                    runs[variant].append(measure(args.device, norm, args.depth, args.members,
                                                 args.steps, engine))  # fmt: skip
            else:
                runs["old"].append(_in_subprocess(args.baseline_src, args, norm))
                runs["new"].append(_in_subprocess(ROOT / "src", args, norm))
        in_process = args.device == "cuda" or args.dry
        old_rev = (
            revision() if in_process else args.baseline_revision or revision(args.baseline_src)
        )
        old, new = _row(norm, "old", runs["old"], args, old_rev), None
        new = _row(norm, "new", runs["new"], args, revision())
        new["old_over_new"] = old["wall_s"] / new["wall_s"]
        rows += [old, new]
        print(f"{norm}: old {old['wall_s']:.3f} s, new {new['wall_s']:.3f} s, "
              f"old/new {new['old_over_new']:.3f}", flush=True)  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument(
        "--steps", type=int, default=0, help="SGD steps (default: cpu 30, cuda 300)"
    )
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--depth", type=int, default=32)
    parser.add_argument("--members", type=int, default=35)
    parser.add_argument("--baseline-src", type=Path, help="CPU: the previous tree's src/")
    parser.add_argument("--baseline-revision", help="its revision (default: git's, if a checkout)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--dry", action="store_true", help="tiny shapes, seconds on a CPU")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--norm", default="batch_norm", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.steps = args.steps or (300 if args.device == "cuda" else 30)
    if args.worker:
        return _worker(args)
    if args.dry:  # in one process, old = loop.EAGER
        args.steps, args.depth, args.members, args.reps = 4, 2, 2, 1
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("training_engine: CUDA is not available")
    if args.device == "cpu" and args.baseline_src is None:
        args.baseline_src = ROOT / "src"  # no previous tree: the harness against itself
    torch.set_num_threads(1)
    args.device_name = torch.cuda.get_device_name() if args.device == "cuda" else "cpu (1 thread)"
    rows = ab(args)
    default = "gpu_training_engine.csv" if args.device == "cuda" else "training_engine.csv"
    out = args.out or RESULTS / default
    out.parent.mkdir(parents=True, exist_ok=True)
    import pandas as pd

    pd.DataFrame(rows).to_csv(out, index=False, float_format="%.5g")
    print(f"-> {out}")


if __name__ == "__main__":
    main()
