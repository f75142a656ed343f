"""Gradient-profile throughput: bn_mlp (sigprop.papers.gradients; runs batched) vs one nn.Module
per run.

Workload: Thesis Fig. 6.3 (orthogonal weights, identity, BN x sqrt(n), no bias, CE loss), one
input batch of n = 100 Gaussian vectors in D = 784, width d = 100, for each depth L a fresh network
per run, one forward and backward pass, recording ln ||dL/dW_l||_F of every layer. Two
implementations run the same workload in one process:

    module   the authors' code: for each run an nn.ModuleDict of
             nn.Linear layers with ``nn.init.orthogonal_``, a custom BN module, CE, backward,
             then the Frobenius norm of every weight's gradient
    batched  bn_mlp.gradient_profile: all runs in one batched forward/backward (bmm)

Both draw Haar weights; the values differ by sampling only, so the report also gives the mean
ln-gradient of fc_1 of each (they must agree within the runs' spread).

Usage:  python bench/gradient_throughput.py [--depths 50 200 500] [--runs 10] [--dtype float64]
"""

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import pandas as pd  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

from sigprop.compute import resolve_dtype  # noqa: E402
from sigprop.papers.gradients import bn_mlp  # noqa: E402

torch.set_num_threads(1)


class _RowNorm(nn.Module):
    """The authors' CustomNormalization for BN, factor sqrt(n), no mean reduction."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / x.norm(dim=0, keepdim=True) * x.shape[0] ** 0.5


def module_loop(x, y, depth: int, runs: int, width: int, dtype) -> list[float]:
    """One nn.Module per run, PyTorch layout (n, D); returns ln ||grad fc_1|| per run."""
    out = []
    g = torch.Generator().manual_seed(0)
    for _ in range(runs):
        sizes = [x.shape[1]] + [width] * depth + [10]
        fcs = nn.ModuleList(
            nn.Linear(a, b, bias=False).to(dtype) for a, b in zip(sizes, sizes[1:], strict=False)
        )
        for fc in fcs:
            nn.init.orthogonal_(fc.weight, generator=g)
        norm = _RowNorm()
        h = x
        for layer, fc in enumerate(fcs):
            h = fc(h)
            if layer < depth:
                h = norm(h)
        nn.functional.cross_entropy(h, y).backward()
        grads = [fc.weight.grad.norm().log().item() for fc in fcs]
        out.append(grads[1])
    return out


def batched(x, y, depth: int, runs: int, width: int, dtype) -> list[float]:
    arch = bn_mlp.Architecture(depth, width, "bn_rms")
    profile = bn_mlp.gradient_profile(arch, x.T, y, "bench", range(runs), dtype=dtype)
    return profile.log_grad[:, 1].tolist()


def timed(fn, *args) -> tuple[float, list[float]]:
    start = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--width", type=int, default=100)
    parser.add_argument("--dtype", default="float64")
    parser.add_argument("--out", default="bench/out/gradient_throughput.csv")
    args = parser.parse_args()
    dtype = resolve_dtype(args.dtype)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(args.width, 784, generator=g, dtype=dtype)
    y = torch.randint(0, 10, (args.width,), generator=g)
    rows = []
    for depth in args.depths:
        row = {"depth": depth}
        for name, fn in (("module", module_loop), ("batched", batched)):
            seconds, values = timed(fn, x, y, depth, args.runs, args.width, dtype)
            row[f"{name}_s"] = seconds
            row[f"{name}_fc1"] = sum(values) / len(values)
        row["speedup"] = row["module_s"] / row["batched_s"]
        rows.append(row)
        print(pd.DataFrame([row]).round(4).to_string(index=False), flush=True)
    table = pd.DataFrame(rows)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    table.to_csv(args.out, index=False)
    total = table[["module_s", "batched_s"]].sum()
    print(f"\nworkload: n=d={args.width}, runs={args.runs}, depths={args.depths}, {args.dtype}")
    print(f"total seconds: module {total.module_s:.2f}, batched {total.batched_s:.2f}")
    print(f"speedup of batched over module: {total.module_s / total.batched_s:.2f}x")


if __name__ == "__main__":
    main()
