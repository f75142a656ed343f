"""Simulations of Dan+20 ("BN provably avoids rank collapse"), seeds 000-002.

Fig. 2: numerical rank of the last hidden layer vs total depth, BN vs vanilla MLPs.
"""

from __future__ import annotations

import torch

from .. import chains, metrics
from ..compute import resolve_device, resolve_dtype
from ..inputs import gaussian_inputs
from ..store import Labelled

__all__ = ["FIG2_NETWORKS", "depth_rank"]

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
    experiment_id: str = "rank_collapse.depth_rank",
) -> Labelled:
    """Numerical rank (Dan+20 footnote 2) of H_L for every total depth L = 1..depth, Fig. 2.

    Each run is one chain H_{l+1} = phi(norm(W_l H_l)) (Dan+20 Eq. (1) with gamma = inf and the
    activation after the normalization) from Gaussian X in R^{d x N}; the network of depth L is
    its prefix, so its last hidden layer is H_L. BN and vanilla nets, and both activations, share
    the inputs and the weights of a run (a paired comparison).
    Weights: ``weight_law`` with unit variance; the PyTorch default U[-1/sqrt(d), 1/sqrt(d)] is
    the uniform law up to a scalar, which BN and the vanilla rescaling both remove.

    Returns:
        ``rank`` over dims (network, activation, run, depth).
    """
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
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
    return Labelled(
        dims=["network", "activation", "run", "depth"],
        coords={
            "network": list(FIG2_NETWORKS),
            "activation": list(activations),
            "run": runs,
            "depth": list(range(1, depth + 1)),
        },
        values={"rank": rank},
        seeds={"experiment_id": experiment_id, "runs": runs, "streams": ["input", "weights"]},
    )
