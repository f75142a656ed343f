"""Engine vs the naive per-run, per-layer loop, with a roofline, on three workloads (issue 13).

Subcommands (one workload each, or ``all``):

    djb21      DJB21 Fig. 2b: BN chain of DJB21 Eq. (1) from the nearly rank-one H_0, n = 4,
               V(H_l) at every layer. naive: the authors' numpy loop (per run, per layer,
               W = randn(d, d)); engine: ``chains.simulate`` with ``ExplicitProduct`` (the
               paper-scale path, ``product: explicit``) and, as a second row, with
               ``GaussianGramProduct`` (the quick-scale default, exact in law).
    bn_chain   Dan+20 ``bn_chain``: H_{l+1} = BN(H_l + gamma W_l H_l), d = N, gamma in
               {0.1, 1, inf}, the spectral statistics of Figs. 3a, 8, 9 every ``stride`` layers
               after ``burn_in``. naive: one torch loop per (gamma, run), per layer (the authors'
               PyTorch style); engine: ``rank_collapse.chain_simulations.bn_chain``, the DAG's code.
    gradients  Thesis Fig. 6.3: orthogonal weights, BN x sqrt(n), width = batch = 100, forward and
               backward. naive: one ``nn.Module`` per run (the authors' code);
               engine: ``gradients.bn_mlp.gradient_profile`` (all runs in one batched pass).

Each implementation runs in this process on one thread; implementations are interleaved and
repeated ``--reps`` times and the median is reported, so that load from other processes hits all
of them alike. The roofline is what the workload cannot avoid, timed in the same run with bare
batched calls of the same shapes and count: ``matmul_s`` (torch.matmul / bmm into preallocated
outputs), ``draws_s`` (the random draws of the stream contract: float32 ``randn`` blocks for the
chains, float64 ``randn`` plus the Haar QR for the gradients), ``roofline_s`` = their sum, and for
``bn_chain`` ``eigvalsh_s``, the metric's eigendecompositions (reported, not in the roofline).
``fraction`` = roofline_s / engine_s. Each subcommand writes ``bench/results/<workload>.csv`` and
prints the table.

Usage:  python bench/engine.py {djb21,bn_chain,gradients,all} [--reps 3] [--help]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

from sigprop.engine import chains, inputs, metrics  # noqa: E402
from sigprop.papers.gradients import bn_mlp  # noqa: E402
from sigprop.papers.rank_collapse import chain_simulations as rank_collapse  # noqa: E402

torch.set_num_threads(1)
F64 = torch.float64
RESULTS = "bench/results"


def interleaved(cases: dict[str, dict[str, Callable[[], object]]], reps: int) -> pd.DataFrame:
    """Median seconds of every (case, implementation), the implementations run in turn per rep."""
    seconds: dict[tuple[str, str], list[float]] = {}
    for rep in range(reps):
        for case, impls in cases.items():
            for name, fn in impls.items():
                start = time.perf_counter()
                fn()
                seconds.setdefault((case, name), []).append(time.perf_counter() - start)
        print(f"  rep {rep + 1}/{reps} done", flush=True)
    rows = {}
    for (case, name), values in seconds.items():
        rows.setdefault(case, {"case": case})[f"{name}_s"] = statistics.median(values)
    return pd.DataFrame(list(rows.values()))


def finish(table: pd.DataFrame, workload: str, bound: str, sums: list[str]) -> pd.DataFrame:
    """Add the total row, speedup and roofline fraction; write the CSV and print the table."""
    total = table[sums].sum().to_frame().T
    total.insert(0, "case", "total")
    table = pd.concat([table, total], ignore_index=True)
    for col in [c for c in table if c.endswith("engine_s") or c.endswith("_engine_s")]:
        prefix = col[: -len("engine_s")]
        table[f"{prefix}speedup"] = table["naive_s"] / table[col]
        roof = f"{prefix}roofline_s"
        if roof in table:
            table[f"{prefix}fraction"] = table[roof] / table[col]
    os.makedirs(RESULTS, exist_ok=True)
    path = f"{RESULTS}/{workload}.csv"
    table.to_csv(path, index=False, float_format="%.6g")
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(table.round(4).to_string(index=False))
    print(f"bound: {bound}\nwrote {path}\n", flush=True)
    return table


def draw_blocks(runs: int, shape: tuple[int, ...], depth: int) -> None:
    """The float32 draws of ``depth`` layers for ``runs`` runs in ``block_layers`` blocks."""
    g = torch.Generator().manual_seed(0)
    block = chains.block_layers(math.prod(shape))
    for _ in range(runs):
        for _ in range(math.ceil(depth / block)):
            torch.randn((block, *shape), generator=g)


# --- (a) DJB21 Fig. 2b -------------------------------------------------------------------------


def djb21_naive(d: int, n: int, depth: int, runs: int) -> float:
    """The authors' numpy loop: per run, per layer W = randn(d, d), rows normalized, V(H)."""
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(runs):
        h = np.zeros((d, n))
        h[range(n), range(n)] = 1e-6
        h[0, 0] = 1.0
        for _ in range(depth):
            h = rng.standard_normal((d, d)) @ h
            h = (h.T / np.linalg.norm(h, axis=1)).T / np.sqrt(d)
            total += np.linalg.norm(h.T @ h - np.eye(n) / n)
    return total


def djb21_engine(product: str, d: int, n: int, depth: int, runs: int) -> torch.Tensor:
    """What ``orthogonality.chain_simulations.gap_chain`` runs per width."""
    ids = list(range(runs))
    if product == "gram":
        sampler = chains.GaussianGramProduct("bench", ids, d, n, 1 / d)
    else:
        sampler = chains.ExplicitProduct("bench", ids, d, "gaussian", 1 / d)
    return chains.trajectory(
        inputs.near_rank_one(d, n),
        chains.Step("bn_rms_scaled"),
        sampler,
        depth,
        metrics.orthogonality_gap,
        ids,
    )


def djb21_matmul(product: str, d: int, n: int, depth: int, runs: int) -> None:
    """W H (or G R) and the metric's H^T H, every layer, into preallocated outputs."""
    h = torch.randn(runs, d, n, dtype=F64)
    gram = torch.empty(runs, n, n, dtype=F64)
    if product == "gram":
        g, r, out = torch.randn(runs, d, n, dtype=F64), torch.randn(runs, n, n, dtype=F64), h
    else:
        g, r, out = torch.randn(runs, d, d, dtype=F64), h, torch.empty(runs, d, n, dtype=F64)
    for _ in range(depth):
        torch.bmm(g, r, out=out)
        torch.bmm(h.mT, h, out=gram)


def run_djb21(args) -> pd.DataFrame:
    n, depth, runs = args.batch_size, args.depth, args.runs
    cases = {}
    for d in args.widths:
        cases[f"d={d}"] = {
            "naive": lambda d=d: djb21_naive(d, n, depth, runs),
            "engine": lambda d=d: djb21_engine("explicit", d, n, depth, runs),
            "matmul": lambda d=d: djb21_matmul("explicit", d, n, depth, runs),
            "draws": lambda d=d: draw_blocks(runs, (d, d), depth),
            "gram_engine": lambda d=d: djb21_engine("gram", d, n, depth, runs),
            "gram_matmul": lambda d=d: djb21_matmul("gram", d, n, depth, runs),
            "gram_draws": lambda d=d: draw_blocks(runs, (d, n), depth),
        }
    print(f"djb21: n={n}, depth={depth}, runs={runs}, widths={args.widths}, float64, 1 thread")
    table = interleaved(cases, args.reps)
    table["roofline_s"] = table.matmul_s + table.draws_s
    table["gram_roofline_s"] = table.gram_matmul_s + table.gram_draws_s
    sums = [c for c in table if c.endswith("_s")]
    return finish(
        table,
        "djb21",
        "explicit: the d x d float32 draws (RNG) dominate the roofline; gram: Python and per-op "
        "overhead of tiny (d x 4) products",
        sums,
    )


# --- (b) Dan+20 bn_chain -----------------------------------------------------------------------


def bn_chain_naive(d, gammas, depth, burn_in, stride, runs, taus) -> float:
    """One chain per (gamma, run), per layer: W = randn(d, d), H = BN(H + gamma W H), and at the
    recorded layers the statistics of ``metrics.spectral_statistics`` from M = H H^T / N."""
    layers = set(chains.record_layers(depth, burn_in, stride))
    total = 0.0
    for gamma in gammas:
        for run in range(runs):
            g = torch.Generator().manual_seed(run)
            h = torch.randn(d, d, generator=g, dtype=F64)
            for layer in range(1, depth + 1):
                wh = torch.randn(d, d, generator=g, dtype=F64) @ h
                h = wh if math.isinf(gamma) else h + gamma * wh
                h = h / h.square().mean(dim=1, keepdim=True).sqrt()
                if layer in layers:
                    m = h @ h.T / d
                    lam = torch.linalg.eigvalsh(m).clamp_min(0.0)
                    stats = [(lam >= tau).sum() for tau in taus]
                    stats += [lam.sum() ** 2 / lam.square().sum(), lam.pow(3).sum()]
                    stats.append(m.square().sum(dim=1).square().sum())
                    total += sum(float(s) for s in stats)
    return total


def bn_chain_engine(d, gammas, depth, burn_in, stride, runs, taus):
    """The DAG's ``rank_collapse.bn_chain`` for one width and every gamma."""
    return rank_collapse.bn_chain(
        [d],
        gammas,
        depth,
        burn_in,
        stride,
        runs,
        taus,
        "gaussian",
        "float64",
        "cpu",
        experiment_id="rank_collapse.bn_chain",
    )


def bn_chain_matmul(d, gammas, depth, burn_in, stride, runs) -> None:
    """W H every layer and H^T H, H H^T at every recorded layer, for every gamma."""
    recorded = len(chains.record_layers(depth, burn_in, stride))
    w, h = torch.randn(runs, d, d, dtype=F64), torch.randn(runs, d, d, dtype=F64)
    out = torch.empty(runs, d, d, dtype=F64)
    for _ in gammas:
        for _ in range(depth):
            torch.bmm(w, h, out=out)
        for _ in range(recorded):
            torch.bmm(h.mT, h, out=out)
            torch.bmm(h, h.mT, out=out)


def bn_chain_eigvalsh(d, gammas, depth, burn_in, stride, runs) -> None:
    recorded = len(chains.record_layers(depth, burn_in, stride))
    h = torch.randn(runs, d, d, dtype=F64)
    m = h @ h.mT / d
    for _ in range(len(gammas) * recorded):
        torch.linalg.eigvalsh(m)


def run_bn_chain(args) -> pd.DataFrame:
    gammas, runs, taus, stride = [0.1, 1.0, math.inf], args.runs, [0.25, 0.5, 0.75], args.stride
    cases = {}
    for d, depth in zip(args.widths, args.depths, strict=True):
        burn_in = depth // 4
        common = (d, gammas, depth, burn_in, stride, runs)
        cases[f"d={d},L={depth}"] = {
            "naive": lambda c=common: bn_chain_naive(*c, taus),
            "engine": lambda c=common: bn_chain_engine(*c, taus),
            "matmul": lambda c=common: bn_chain_matmul(*c),
            "draws": lambda c=common: draw_blocks(runs * len(gammas), (c[0], c[0]), c[2]),
            "eigvalsh": lambda c=common: bn_chain_eigvalsh(*c),
        }
    print(
        f"bn_chain: d = N in {args.widths}, depths {args.depths} (burn-in depth / 4, stride "
        f"{stride}), gammas {gammas}, runs={runs}, taus={taus}, float64, 1 thread"
    )
    table = interleaved(cases, args.reps)
    table["roofline_s"] = table.matmul_s + table.draws_s
    sums = [c for c in table if c.endswith("_s")]
    return finish(
        table,
        "bn_chain",
        "small d: per-op overhead of ~10 torch calls per layer (Python); d >= 128: the d x d "
        "products W H (matmul) plus the recorded layers' eigvalsh",
        sums,
    )


# --- (c) Thesis Fig. 6.3 -----------------------------------------------------------------------


class _RowNorm(nn.Module):
    """The authors' CustomNormalization for BN, factor sqrt(n), no mean reduction."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / x.norm(dim=0, keepdim=True) * x.shape[0] ** 0.5


def gradients_naive(x, y, depth: int, runs: int, width: int) -> list[float]:
    """One nn.Module per run, PyTorch layout (n, D), ``nn.init.orthogonal_`` weights."""
    out = []
    g = torch.Generator().manual_seed(0)
    for _ in range(runs):
        sizes = [x.shape[1]] + [width] * depth + [10]
        fcs = nn.ModuleList(
            nn.Linear(a, b, bias=False).to(F64) for a, b in zip(sizes, sizes[1:], strict=False)
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
        out.append([fc.weight.grad.norm().log().item() for fc in fcs])
    return out


def gradients_engine(x, y, depth: int, runs: int, width: int):
    arch = bn_mlp.Architecture(depth, width, "bn_rms")
    return bn_mlp.gradient_profile(arch, x.T, y, "bench", range(runs), dtype=F64)


def gradients_matmul(x, depth: int, runs: int, width: int) -> None:
    """Forward W_l X_l and backward dW_l = G X_l^T, dX_l = W_l^T G, same shapes and count."""
    d_in, n = x.shape[1], x.shape[0]
    w0, x0 = torch.randn(runs, width, d_in, dtype=F64), x.T.expand(runs, d_in, n)
    w, h = torch.randn(runs, width, width, dtype=F64), torch.randn(runs, width, n, dtype=F64)
    w_out, out = torch.randn(runs, 10, width, dtype=F64), torch.empty(runs, width, n, dtype=F64)
    g_out, dw = torch.randn(runs, 10, n, dtype=F64), torch.empty(runs, width, width, dtype=F64)
    torch.bmm(w0, x0, out=out)
    torch.bmm(out, x0.mT)
    for _ in range(depth - 1):
        torch.bmm(w, h, out=out)
        torch.bmm(out, h.mT, out=dw)
        torch.bmm(w.mT, h, out=out)
    torch.bmm(w_out, h)
    torch.bmm(g_out, h.mT)
    torch.bmm(w_out.mT, g_out, out=out)


def gradients_randn(x, depth: int, runs: int, width: int) -> None:
    """The float64 Gaussian draws of the Haar weights, per run and layer (the stream contract)."""
    g = torch.Generator().manual_seed(0)
    for shape in [(x.shape[1], width)] + [(width, width)] * (depth - 1) + [(width, 10)]:
        for _ in range(runs):
            torch.randn(shape, generator=g, dtype=F64)


def gradients_qr(x, depth: int, runs: int, width: int) -> None:
    """The batched QR of the Haar draws (Stiefel for the rectangular ends)."""
    for shape in [(x.shape[1], width)] + [(width, width)] * (depth - 1) + [(width, 10)]:
        torch.linalg.qr(torch.ones(runs, *shape, dtype=F64).add_(torch.eye(*shape, dtype=F64)))


def run_gradients(args) -> pd.DataFrame:
    g = torch.Generator().manual_seed(1)
    width, runs = args.width, args.runs
    x = torch.randn(width, 784, generator=g, dtype=F64)
    y = torch.randint(0, 10, (width,), generator=g)
    cases = {}
    for depth in args.depths:
        cases[f"L={depth}"] = {
            "naive": lambda L=depth: gradients_naive(x, y, L, runs, width),
            "engine": lambda L=depth: gradients_engine(x, y, L, runs, width),
            "matmul": lambda L=depth: gradients_matmul(x, L, runs, width),
            "randn": lambda L=depth: gradients_randn(x, L, runs, width),
            "qr": lambda L=depth: gradients_qr(x, L, runs, width),
        }
    print(
        f"gradients: width = batch = {width}, D = 784, depths {args.depths}, runs={runs}, "
        "orthogonal, bn_rms, float64, forward + backward, 1 thread"
    )
    table = interleaved(cases, args.reps)
    table["draws_s"] = table.randn_s + table.qr_s
    table["roofline_s"] = table.matmul_s + table.draws_s
    sums = [c for c in table if c.endswith("_s")]
    return finish(
        table,
        "gradients",
        "the Haar draws (float64 randn + QR per layer and run) and the 3 products per layer",
        sums,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="workload", required=True)
    p = sub.add_parser("djb21", help="DJB21 Fig. 2b, explicit weights and the Gram path")
    p.add_argument("--widths", type=int, nargs="+", default=[16, 64, 256, 512])
    p.add_argument("--depth", type=int, default=600)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=4)
    p = sub.add_parser("bn_chain", help="Dan+20 bn_chain, d = N, gamma in {0.1, 1, inf}")
    p.add_argument("--widths", type=int, nargs="+", default=[32, 64, 128, 256])
    p.add_argument("--depths", type=int, nargs="+", default=[2000, 1000, 400, 100])
    p.add_argument("--stride", type=int, default=5)
    p.add_argument("--runs", type=int, default=2)
    p = sub.add_parser("gradients", help="Thesis Fig. 6.3, forward and backward")
    p.add_argument("--depths", type=int, nargs="+", default=[50, 200, 500, 1000])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--width", type=int, default=100)
    sub.add_parser("all", help="the three workloads at their defaults")
    for p in sub.choices.values():
        p.add_argument("--reps", type=int, default=3, help="interleaved repetitions (median)")
    args = parser.parse_args()
    runners = {"djb21": run_djb21, "bn_chain": run_bn_chain, "gradients": run_gradients}
    if args.workload == "all":
        for name, runner in runners.items():
            runner(parser.parse_args([name, "--reps", str(args.reps)]))
    else:
        runners[args.workload](args)


if __name__ == "__main__":
    main()
