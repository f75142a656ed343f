"""Chain throughput: sigprop's engine vs a per-layer, per-run numpy loop (authors' style).

Workload: DJB21 Fig. 2b (Thesis Fig. 2.2b), the BN chain of DJB21 Eq. (1) from the nearly
rank-one H_0 with n = 4, recording V(H_l) at every layer, for each width. Three implementations
run the same workload in one process, and the report gives their throughput ratios:

    numpy      the authors' notebooks: for each run, for each layer, W = randn(d, d), H = W @ H,
               rows normalized, V computed (DJB21 Eq. (1), (2))
    explicit   sigprop.chains.simulate with ExplicitProduct (all runs batched, d x d weights)
    gram       sigprop.chains.simulate with GaussianGramProduct (exact in law, O(d n^2))

Usage:  python bench/chain_throughput.py [--depth 600] [--runs 20] [--widths 16 64 256 512]
Defaults are the full Fig. 2b workload minus the costliest numpy widths; one thread each.
"""

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402

from sigprop import chains, inputs, metrics  # noqa: E402

torch.set_num_threads(1)


def numpy_loop(d: int, n: int, depth: int, runs: int) -> float:
    """The authors' per-run, per-layer loop; returns the mean V over the last half of layers."""
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(runs):
        h = np.zeros((d, n))
        h[range(n), range(n)] = 1e-6
        h[0, 0] = 1.0
        for layer in range(depth):
            h = rng.standard_normal((d, d)) @ h
            h = (h.T / np.linalg.norm(h, axis=1)).T / np.sqrt(d)
            gap = np.linalg.norm(h.T @ h - np.eye(n) / n)
            if layer >= depth // 2:
                total += gap
    return total / (runs * (depth - depth // 2))


def engine(product: str, d: int, n: int, depth: int, runs: int) -> float:
    ids = list(range(runs))
    if product == "gram":
        sampler = chains.GaussianGramProduct("bench", ids, d, n, 1 / d)
    else:
        sampler = chains.ExplicitProduct("bench", ids, d, "gaussian", 1 / d)
    trace = chains.simulate(
        inputs.near_rank_one(d, n),
        chains.Step("bn_rms_scaled"),
        sampler,
        depth,
        {"gap": metrics.orthogonality_gap},
        runs=ids,
    )
    return trace.values["gap"][:, depth // 2 - 1 :].mean().item()


def timed(fn, *args) -> tuple[float, float]:
    start = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=600)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--widths", type=int, nargs="+", default=[16, 64, 256, 512])
    parser.add_argument("--out", default="bench/out/chain_throughput.csv")
    args = parser.parse_args()
    rows = []
    for d in args.widths:
        row = {"width": d}
        for name, fn in (
            ("numpy", numpy_loop),
            ("explicit", lambda *a: engine("explicit", *a)),
            ("gram", lambda *a: engine("gram", *a)),
        ):
            seconds, gap = timed(fn, d, args.batch_size, args.depth, args.runs)
            row[f"{name}_s"], row[f"{name}_gap"] = seconds, gap
        row["explicit_speedup"] = row["numpy_s"] / row["explicit_s"]
        row["gram_speedup"] = row["numpy_s"] / row["gram_s"]
        rows.append(row)
        print(pd.DataFrame([row]).round(4).to_string(index=False), flush=True)
    table = pd.DataFrame(rows)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    table.to_csv(args.out, index=False)
    total = table[["numpy_s", "explicit_s", "gram_s"]].sum()
    print(
        f"\nworkload: n={args.batch_size}, depth={args.depth}, runs={args.runs}, "
        f"widths={args.widths}, 1 thread"
    )
    print(
        f"total seconds: numpy {total.numpy_s:.2f}, explicit {total.explicit_s:.2f}, "
        f"gram {total.gram_s:.2f}"
    )
    print(
        f"speedup over numpy: explicit {total.numpy_s / total.explicit_s:.2f}x, "
        f"gram {total.numpy_s / total.gram_s:.2f}x"
    )


if __name__ == "__main__":
    main()
