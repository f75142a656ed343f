"""Simulations of DJB21 ("BN orthogonalizes representations"), seed 003 = Thesis ch. 2.

Fig. 1 (Thesis Fig. 2.1): |cosine| of two samples, BN vs vanilla, shared weights.
Gap chain for Fig. 2a/2b (Thesis Fig. 2.2): V(H_l) per layer for several widths.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from ...base.store import Labelled
from ...engine import chains, metrics
from ...engine.devices import resolve_device, resolve_dtype
from ...engine.inputs import (
    given_input,
    given_inputs,
    near_collinear_pair,
    near_rank_one,
    orthogonal_pair,
)

__all__ = ["PRODUCTS", "cosine_pair", "gap_chain"]

PRODUCTS = ("explicit", "gram")


def cosine_pair(
    width: int,
    depth: int,
    n_runs: int,
    epsilon: float,
    dtype: str,
    device: str = "auto",
    h0_bn: torch.Tensor | None = None,
    h0_vanilla: torch.Tensor | None = None,
    *,
    experiment_id: str,
) -> Labelled:
    """|cos| of the two samples of H_l, l = 0..depth, DJB21 Fig. 1 (Thesis Fig. 2.1).

    BN net: DJB21 Eq. (1) from h_1 = e_1, h_2 = (1 - eps) e_1 + eps e_2. Vanilla net:
    H_{l+1} = W_l H_l (rescaled) from e_1, e_2. As in the authors' code both nets of a run use
    the same W_l ~ N(0, 1) entries (the scale is irrelevant to cosines). Layer 0 is the input;
    the seed's x-axis value x is our layer x - 1.

    Args:
        h0_bn: the BN net's input pair, shape (n_runs, width, 2) or (width, 2); replaces the
            near-collinear pair e_1, (1 - eps) e_1 + eps e_2 (default None: that pair).
        h0_vanilla: the vanilla net's input pair, same shapes; replaces e_1, e_2 (default None).

    Returns:
        ``abs_cos`` over dims (network, run, layer).
    """
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    if h0_bn is None:
        h0_bn = near_collinear_pair(width, epsilon, torch_dtype, device)
    else:
        h0_bn = given_input(h0_bn, "h0_bn", n_runs, width, 2, torch_dtype, device)
    if h0_vanilla is None:
        h0_vanilla = orthogonal_pair(width, torch_dtype, device)
    else:
        h0_vanilla = given_input(h0_vanilla, "h0_vanilla", n_runs, width, 2, torch_dtype, device)
    setups = {
        "BN": (chains.Step("bn_rms_scaled"), h0_bn),
        "vanilla": (chains.Step("none"), h0_vanilla),
    }
    cosines = []
    for name, (step, h0) in setups.items():
        product = chains.ExplicitProduct(
            experiment_id, runs, width, "gaussian", 1.0, torch_dtype, device
        )
        cosines.append(
            chains.trajectory(
                h0, step, product, depth, metrics.abs_cosine, runs, desc=f"cosine pair {name}"
            )
        )
    return Labelled.over(
        {"network": setups, "run": runs, "layer": range(depth + 1)},
        values={"abs_cos": torch.stack(cosines)},
        seeds={"experiment_id": experiment_id, "runs": runs, "streams": ["weights"]},
    )


def gap_chain(
    widths: list[int],
    batch_size: int,
    depth: int,
    n_runs: int,
    product: str,
    dtype: str,
    device: str = "auto",
    h0: torch.Tensor | Mapping[int, torch.Tensor] | None = None,
    *,
    experiment_id: str,
) -> Labelled:
    """Orthogonality gap V(H_l), l = 0..depth, of the BN chain DJB21 Eq. (1) for each width d.

    Start: the nearly rank-one H_0 of the authors' code (``inputs.near_rank_one``). Weights
    N(0, 1/d) (DJB21 §2; V is scale invariant). ``product="explicit"`` draws the d x d weights as
    the authors' notebooks do; ``"gram"`` samples W_l H_l through its Gram matrix, exact in law and
    O(d n^2) per layer (``chains.GaussianGramProduct``).

    Args:
        h0: H_0, shape (n_runs, d, batch_size) or (d, batch_size), or a mapping width d -> such
            a tensor for several widths; replaces ``near_rank_one`` (default None: that start).

    Returns:
        ``gap`` over dims (width, run, layer).
    """
    if product not in PRODUCTS:
        raise ValueError(f"product must be one of {PRODUCTS}, got {product!r}")
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    given = None
    if h0 is not None:
        given = given_inputs(h0, "h0", widths, n_runs, batch_size, torch_dtype, device)
    gaps = []
    for d in widths:
        stream_id = f"{experiment_id}.d{d}"
        if product == "gram":
            sampler = chains.GaussianGramProduct(
                stream_id, runs, d, batch_size, 1.0 / d, torch_dtype, device
            )
        else:
            sampler = chains.ExplicitProduct(
                stream_id, runs, d, "gaussian", 1.0 / d, torch_dtype, device
            )
        if given is None:
            start = near_rank_one(d, batch_size, dtype=torch_dtype, device=device)
        else:
            start = given[d]
        gaps.append(
            chains.trajectory(
                start,
                chains.Step("bn_rms_scaled"),
                sampler,
                depth,
                metrics.orthogonality_gap,
                runs,
                desc=f"gap chain d={d}",
            )
        )
    return Labelled.over(
        {"width": widths, "run": runs, "layer": range(depth + 1)},
        values={"gap": torch.stack(gaps)},
        seeds={
            "experiment_ids": [f"{experiment_id}.d{d}" for d in widths],
            "runs": runs,
            "streams": ["gram" if product == "gram" else "weights"],
        },
    )
