"""Simulations of Dan+20 ("BN provably avoids rank collapse"), seeds 000-002.

Fig. 2: numerical rank of the last hidden layer vs total depth, BN vs vanilla MLPs.
BN chain (Figs. 3a, 8, 9): the linear BN chain of Eq. (1) for several gamma and widths, with the
layer statistics whose ergodic averages (Eq. (49)) the figures plot.
Collinear chain (Fig. 3b): the top singular values from nearly collinear inputs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial

import torch

from ...base.store import Labelled
from ...engine import chains, metrics, ops
from ...engine.devices import resolve_device, resolve_dtype
from ...engine.inputs import gaussian_inputs, given_input, given_inputs
from .records import gamma_label

__all__ = ["FIG2_NETWORKS", "bn_chain", "collinear_chain", "depth_rank", "small_batch_rank"]

FIG2_NETWORKS = {"BN": "bn_rms", "vanilla": "none"}
"""Dan+20 Fig. 2 curves: BN of Eq. (2) (no centering) and the unnormalized MLP."""


def depth_rank(
    width: int,
    batch_size: int,
    depth: int,
    n_runs: int,
    activations: list[str],
    weight_law: str,
    dtype: str,
    device: str = "auto",
    h0: torch.Tensor | None = None,
    *,
    experiment_id: str,
) -> Labelled:
    """Numerical rank (Dan+20 footnote 2) of H_L for every total depth L = 1..depth, Fig. 2.

    Each run is one chain H_{l+1} = phi(norm(W_l H_l)) (Dan+20 Eq. (1) with gamma = inf and the
    activation after the normalization) from Gaussian X in R^{d x N}; the network of depth L is
    its prefix, so its last hidden layer is H_L. BN and vanilla nets, and both activations, share
    the inputs and the weights of a run (a paired comparison).
    Weights: ``weight_law`` with unit variance; the PyTorch default U[-1/sqrt(d), 1/sqrt(d)] is
    the uniform law up to a scalar, which BN and the vanilla rescaling both remove.

    Args:
        h0: the input X, shape (n_runs, width, batch_size) or (width, batch_size) shared by all
            runs; replaces the seeded Gaussian draw (default None: the draw).

    Returns:
        ``rank`` over dims (network, activation, run, depth).
    """
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    given = h0 is not None
    if given:
        h0 = given_input(h0, "h0", n_runs, width, batch_size, torch_dtype, device)
    else:
        h0 = gaussian_inputs(experiment_id, runs, width, batch_size, torch_dtype, device)
    rank = torch.empty(len(FIG2_NETWORKS), len(activations), n_runs, depth, dtype=torch_dtype)
    for i, normalization in enumerate(FIG2_NETWORKS.values()):
        for j, act in enumerate(activations):
            product = chains.ExplicitProduct(
                experiment_id, runs, width, weight_law, 1.0, torch_dtype, device
            )
            rank[i, j] = chains.trajectory(
                h0,
                chains.Step(normalization, act),
                product,
                depth,
                metrics.numerical_rank,
                runs,
                include_input=False,
                desc=f"depth rank {normalization} {act}",
            )
    return Labelled.over(
        {
            "network": FIG2_NETWORKS,
            "activation": activations,
            "run": runs,
            "depth": range(1, depth + 1),
        },
        values={"rank": rank},
        seeds={
            "experiment_id": experiment_id,
            "runs": runs,
            "streams": ["weights"] if given else ["input", "weights"],
        },
    )


def bn_chain(
    widths: list[int],
    gammas: list[float],
    depth: int,
    burn_in: int,
    stride: int,
    n_runs: int,
    taus: list[float],
    weight_law: str,
    dtype: str,
    device: str = "auto",
    h0: torch.Tensor | Mapping[int, torch.Tensor] | None = None,
    *,
    experiment_id: str,
) -> Labelled:
    """Layer statistics of the linear BN chain H_{l+1} = BN(H_l + gamma W_l H_l), Dan+20 Eq. (1).

    From Gaussian X with d = N (Sec. 3.1), for every gamma (inf: no skip) and width d, record
    at layers burn_in, burn_in + stride, ... <= depth the statistics of
    ``metrics.spectral_statistics``: rank_tau for each tau, r(H), Tr M^3, Tr diag(M^2)^2 and
    ||M||_F^2. Their averages over the recorded layers estimate the ergodic limits of Eq. (49)
    (Fig. 3a: rank_{1/2}; Fig. 8: alpha = E g_2 / E g_1; Fig. 9: E ||M||_F^2).

    Args:
        h0: the input X, shape (n_runs, d, d) or (d, d), or a mapping width d -> such a tensor
            for several widths, shared by every gamma; replaces the seeded Gaussian draws
            (default None: the draws, one per gamma and width).

    Returns:
        one value per statistic over dims (gamma, width, run, layer).
    """
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    given = None
    if h0 is not None:
        given = given_inputs(h0, "h0", widths, n_runs, None, torch_dtype, device)
    layers = chains.record_layers(depth, burn_in, stride)
    observer = partial(metrics.spectral_statistics, taus=taus)
    stats: dict[str, torch.Tensor] = {}
    for j, d in enumerate(widths):
        # every gamma of this width in one batched chain (gamma-major runs): each (gamma, run)
        # keeps its own streams and its arithmetic, so the values are those of separate chains
        streams = [f"{experiment_id}.gamma{gamma_label(gamma)}.d{d}" for gamma in gammas]
        if given is None:
            x = torch.cat([gaussian_inputs(s, runs, d, d, torch_dtype, device) for s in streams])
        else:
            x = given[d].expand(n_runs, d, d).repeat(len(gammas), 1, 1)
        trace = chains.simulate(
            x,
            chains.Step("bn_rms", gamma=tuple(gammas)),
            chains.ExplicitProduct(streams, runs, d, weight_law, 1.0, torch_dtype, device),
            depth,
            {"statistics": observer},
            layers,
            [r for _ in gammas for r in runs],
            desc=f"bn chain gammas={[gamma_label(g) for g in gammas]} d={d}",
            resumable=True,
        )
        for name, value in trace.values.items():
            if name not in stats:
                shape = (len(gammas), len(widths), n_runs, len(layers))
                stats[name] = torch.empty(shape, dtype=torch_dtype)
            stats[name][:, j] = value.reshape(len(gammas), n_runs, len(layers))
    return Labelled.over(
        {"gamma": gammas, "width": widths, "run": runs, "layer": layers},
        values=stats,
        seeds={
            "experiment_ids": [  # width-major: the merge of a run split by width is the same
                f"{experiment_id}.gamma{gamma_label(g)}.d{d}" for d in widths for g in gammas
            ],
            "runs": runs,
            "streams": ["input", "weights"] if given is None else ["weights"],
        },
    )


def collinear_chain(
    width: int,
    gammas: list[float],
    depth: int,
    n_runs: int,
    epsilon: float,
    top: int,
    weight_law: str,
    dtype: str,
    device: str = "auto",
    x: torch.Tensor | None = None,
    *,
    experiment_id: str,
) -> Labelled:
    """Top singular values of H_l / sqrt(N) along the BN chain from nearly collinear X, Fig. 3b.

    X = x_0 1_N^T + epsilon G with x_0 and G standard Gaussian (N = d), so M(X) has one large
    eigenvalue and tiny others (App. E). Layer 0 records BN(X), the input on the BN scale.

    Args:
        x: the input X, shape (n_runs, width, width) or (width, width); replaces the seeded
            nearly collinear draw x_0 1_N^T + epsilon G (default None: the draw).

    Returns:
        ``sigma_1`` .. ``sigma_<top>`` over dims (gamma, run, layer).
    """
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    given = x is not None
    if given:
        x = given_input(x, "x", n_runs, width, width, torch_dtype, device)
    else:
        base = gaussian_inputs(experiment_id, runs, width, 1, torch_dtype, device)
        noise = gaussian_inputs(f"{experiment_id}.noise", runs, width, width, torch_dtype, device)
        x = base + epsilon * noise
    h0 = ops.bn_rms(x)
    observer = partial(metrics.spectral_statistics, taus=[], top=top)
    names = [f"sigma_{k + 1}" for k in range(top)]
    sigmas = {k: torch.empty(len(gammas), n_runs, depth + 1, dtype=torch_dtype) for k in names}
    for i, gamma in enumerate(gammas):
        stream = f"{experiment_id}.gamma{gamma_label(gamma)}"
        trace = chains.simulate(
            h0,
            chains.Step("bn_rms", gamma=gamma),
            chains.ExplicitProduct(stream, runs, width, weight_law, 1.0, torch_dtype, device),
            depth,
            {"statistics": observer},
            range(depth + 1),
            runs,
            desc=f"collinear chain gamma={gamma_label(gamma)}",
        )
        for name in names:
            sigmas[name][i] = trace.values[name]
    return Labelled.over(
        {"gamma": gammas, "run": runs, "layer": range(depth + 1)},
        values=sigmas,
        seeds={
            "experiment_id": experiment_id,
            "runs": runs,
            "streams": ["weights"] if given else ["input", "weights"],
        },
    )


SMALL_BATCHES = {"sqrt_d": lambda d: round(math.sqrt(d)), "square": lambda d: d}
"""Dan+20 (seed 002) Sec. 3.1: batch size N per width d, the claim's N = O(sqrt d) and N = d."""


def _small_batch_stream(experiment_id: str, gamma: float, d: int, n: int) -> str:
    """The streams of one ``small_batch_rank`` chain: its own per gamma, width and batch."""
    return f"{experiment_id}.gamma{gamma_label(gamma)}.d{d}.n{n}"


def small_batch_rank(
    widths: list[int],
    gammas: list[float],
    depth: int,
    stride: int,
    n_runs: int,
    weight_law: str,
    dtype: str,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """Numerical rank of H_l / N along the BN chain of Dan+20 Eq. (1) from Gaussian X in R^{d x N}.

    Dan+20 (seed 002) Sec. 3.1: "hidden representations remain full rank if H_0 is full-rank and
    N = O(sqrt d)". Batches N = round(sqrt d) (the claim) and N = d (the contrast: Thm. 2 and
    Cor. 15 promise only Omega(sqrt d) there). Rank as in Dan+20 footnote 2
    (``metrics.numerical_rank``), at layers 0, stride, 2 stride, ... <= depth.

    Returns:
        ``rank_fraction`` (rank / N) and ``batch_size`` (N) over dims
        (gamma, batch, width, run, layer).
    """
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    layers = chains.record_layers(depth, 0, stride, include_input=True)
    shape = (len(gammas), len(SMALL_BATCHES), len(widths), n_runs, len(layers))
    fraction = torch.empty(shape, dtype=torch_dtype)
    batch = torch.empty(shape, dtype=torch_dtype)
    for i, gamma in enumerate(gammas):
        for k, batch_size in enumerate(SMALL_BATCHES.values()):
            for j, d in enumerate(widths):
                n = batch_size(d)
                stream = _small_batch_stream(experiment_id, gamma, d, n)
                trace = chains.simulate(
                    gaussian_inputs(stream, runs, d, n, torch_dtype, device),
                    chains.Step("bn_rms", gamma=gamma),
                    chains.ExplicitProduct(stream, runs, d, weight_law, 1.0, torch_dtype, device),
                    depth,
                    {"rank": metrics.numerical_rank},
                    layers,
                    runs,
                    desc=f"small batch rank gamma={gamma_label(gamma)} d={d} N={n}",
                    resumable=True,
                )
                fraction[i, k, j] = trace.values["rank"] / n
                batch[i, k, j] = n
    streams = [  # width-major: the merge of a run split by width is the same
        _small_batch_stream(experiment_id, gamma, d, batch_size(d))
        for d in widths
        for gamma in gammas
        for batch_size in SMALL_BATCHES.values()
    ]
    return Labelled.over(
        {"gamma": gammas, "batch": SMALL_BATCHES, "width": widths, "run": runs, "layer": layers},
        values={"rank_fraction": fraction, "batch_size": batch},
        seeds={"experiment_ids": streams, "runs": runs, "streams": ["input", "weights"]},
    )
