"""Training loop: runs batched in one stack vs one ``nn.Module`` per run (issue 14).

The Fig. 1 workload (Dan+20): ReLU MLPs of width 128, BN and vanilla, depths {2, 8, 32}, R runs
(the grid points of a learning-rate search count as runs), SGD with batch 128 on Fashion-MNIST-
shaped data (784 inputs, 10 classes; random pixels: the speed does not depend on the values).
``naive``: R networks, each trained by its own ``torch.optim.SGD`` loop, one after another, as
the seeds' authors train; ``batched``: ``sigprop.training.loop`` (``RunStack`` + ``sgd_step``),
all R at once, the MLP as batched products (``stacked_mlp``); ``vmap``: the same stack through
``vmap(functional_call)``. All do the same steps (the same arithmetic up to float32 rounding,
tested in tests/test_training.py). Reported: training samples per second (summed over runs) and
the ratios, median of ``--reps`` interleaved repetitions, one thread.

Usage:  python bench/training.py [--reps 3] [--runs 8] [--steps 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pandas as pd  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from sigprop.nets.initializations import init_weights  # noqa: E402
from sigprop.nets.mlp import MLP  # noqa: E402
from sigprop.training.loop import RunStack, sgd_step  # noqa: E402

torch.set_num_threads(1)
RESULTS = "bench/results/training.csv"


def networks(norm: str, depth: int, runs: int) -> list[MLP]:
    return [
        init_weights(
            MLP(784, 128, depth, 10, norm), "torch_default", torch.Generator().manual_seed(r)
        )
        for r in range(runs)
    ]


def naive(norm, depth, runs, x, y, steps) -> float:
    nets = networks(norm, depth, runs)
    start = time.perf_counter()
    for r, net in enumerate(nets):
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for t in range(steps):
            opt.zero_grad()
            F.cross_entropy(net(x[t, r]), y[t, r]).backward()
            opt.step()
    return time.perf_counter() - start


def batched(norm, depth, runs, x, y, steps, stacked_products=True) -> float:
    stack = RunStack(networks(norm, depth, runs), stacked_products=stacked_products)
    for p in stack.params.values():
        p.requires_grad_(True)
    lrs = torch.full((runs,), 0.1)
    start = time.perf_counter()
    for t in range(steps):
        out = stack.logits(x[t], training=True)
        loss = F.cross_entropy(out.flatten(0, 1), y[t].flatten(), reduction="none")
        loss.view(runs, -1).mean(-1).sum().backward()
        sgd_step(stack.params, lrs, 0.0, {})
    return time.perf_counter() - start


def vmap_stack(norm, depth, runs, x, y, steps) -> float:
    """``batched`` through ``vmap(functional_call)`` instead of the stacked products."""
    return batched(norm, depth, runs, x, y, steps, stacked_products=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(args.steps, args.runs, 128, 784, generator=g)
    y = torch.randint(0, 10, (args.steps, args.runs, 128), generator=g)
    rows = []
    for norm in ("batch_norm", "none"):
        for depth in (2, 8, 32):
            times = {"naive": [], "batched": [], "vmap": []}
            for _ in range(args.reps):
                for name, fn in (("naive", naive), ("batched", batched), ("vmap", vmap_stack)):
                    times[name].append(fn(norm, depth, args.runs, x, y, args.steps))
            samples = args.runs * args.steps * 128
            t_naive, t_batched, t_vmap = (statistics.median(times[k]) for k in times)
            rows.append(
                {
                    "norm": norm, "depth": depth, "runs": args.runs,
                    "naive_samples_per_s": samples / t_naive,
                    "batched_samples_per_s": samples / t_batched,
                    "speedup": t_naive / t_batched,
                    "vmap_samples_per_s": samples / t_vmap,
                    "stacked_over_vmap": t_vmap / t_batched,
                }
            )  # fmt: skip
    table = pd.DataFrame(rows)
    table.to_csv(RESULTS, index=False, float_format="%.4g")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
