"""Simulations of Thesis ch. 3 (JDB23a): distance of the finite-width Gram to its mean-field limit.

Chain h_{l+1} = W_l phi(BN(h_l)) (Thesis Eq. (3.1)) with centred BN, Gram G_l of Eq. (3.2),
fixed point G_* of Eq. (3.3) / (B.36) (``gram_dynamics``). Without BN (Thesis Fig. 3.1)
the chain is the linear h_{l+1} = W_l h_l, whose mean-field Gram recursion keeps G_0 fixed.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ...base.store import Labelled
from ...engine import chains
from ...engine.devices import resolve_device, resolve_dtype
from . import gram_dynamics

__all__ = ["NETWORKS", "PRODUCTS", "gram_chain", "reference_gram"]

NETWORKS = ("bn_linear", "bn_tanh", "bn_relu", "bn_sin", "no_bn_linear")
"""``bn_<phi>``: the BN-MLP of Eq. (3.1); ``no_bn_linear``: h_{l+1} = W_l h_l (Fig. 3.1)."""

PRODUCTS = ("gram", "explicit")


def reference_gram(
    network: str, n: int, samples: int, experiment_id: str
) -> tuple[torch.Tensor | None, float]:
    """G_* of a BN network (sphere average; exact for linear) and kappa(G_*); (None, nan) for
    the no-BN network, whose reference is each run's own G_0."""
    if network not in NETWORKS:
        raise ValueError(f"network must be one of {NETWORKS}, got {network!r}")
    if network == "no_bn_linear":
        return None, float("nan")
    act = network.removeprefix("bn_")
    fp = gram_dynamics.seeded_fixed_point(f"{experiment_id}.fixed_point", act, n, samples)
    g_star = gram_dynamics.linear_fixed_point(n) if act == "linear" else fp.matrix()
    return g_star, fp.kappa


def gram_chain(
    networks: Sequence[str],
    widths: Sequence[int],
    batch_sizes: Sequence[int],
    depth: int,
    n_runs: int,
    input_correlation: float,
    fixed_point_samples: int,
    product: str,
    dtype: str,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """||G_l - G_ref||_F for l = 0..depth per network, batch size n, width d and run.

    G_ref = G_* for BN networks, G_0 (the run's input Gram, the mean-field prediction) for
    ``no_bn_linear``. Input: rows of h_0 i.i.d. N(0, C), C_ij = rho^|i - j| (rho =
    ``input_correlation``; one input per (n, d, run), shared by all networks). Weights
    N(0, 1/d): ``product="gram"`` samples W A as Z R(A) (exact in law,
    ``chains.GaussianGramProduct``), ``"explicit"`` draws the d x d matrices.

    Returns:
        ``distance`` and ``kappa`` (kappa(G_*), NaN without BN, broadcast) over dims
        (network, batch_size, width, run, layer).
    """
    if product not in PRODUCTS:
        raise ValueError(f"product must be one of {PRODUCTS}, got {product!r}")
    for net in networks:
        if net not in NETWORKS:
            raise ValueError(f"network must be one of {NETWORKS}, got {net!r}")
    dev, tdtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    dist = torch.empty(len(networks), len(batch_sizes), len(widths), n_runs, depth + 1)
    kappa = torch.empty_like(dist)
    for i, net in enumerate(networks):
        for j, n in enumerate(batch_sizes):
            g_star, k_star = reference_gram(net, n, fixed_point_samples, experiment_id)
            kappa[i, j] = k_star
            for k, d in enumerate(widths):
                h0 = gram_dynamics.correlated_inputs(
                    f"{experiment_id}.n{n}.d{d}", runs, d, n, input_correlation, tdtype, dev
                )
                sid = f"{experiment_id}.{net}.n{n}.d{d}"
                if product == "gram":
                    sampler = chains.GaussianGramProduct(sid, runs, d, n, 1.0 / d, tdtype, dev)
                else:
                    sampler = chains.ExplicitProduct(sid, runs, d, "gaussian", 1.0 / d, tdtype, dev)
                if g_star is None:
                    state, step = h0, gram_dynamics.linear_step
                    ref = gram_dynamics.gram(h0)
                else:
                    act = net.removeprefix("bn_")
                    state = gram_dynamics.bn_activation(h0, act)
                    step = chains.Step("bn_centered", act)
                    ref = g_star.to(dev, tdtype)

                def distance(a, ref=ref):
                    return torch.linalg.matrix_norm(gram_dynamics.gram(a) - ref)

                dist[i, j, k] = chains.trajectory(
                    state, step, sampler, depth, distance, runs, desc=sid
                ).to(dist.dtype)
    return Labelled.over(
        {
            "network": networks,
            "batch_size": [int(n) for n in batch_sizes],
            "width": [int(d) for d in widths],
            "run": runs,
            "layer": range(depth + 1),
        },
        values={"distance": dist, "kappa": kappa},
        seeds={
            "experiment_ids": [experiment_id],
            "runs": runs,
            "streams": ["input", "gram" if product == "gram" else "weights", "sphere"],
        },
    )
