"""Rank pre-training, Dan+20 App. G, Algorithm 1: gradient ascent on r(H) over minibatches.

For k = 1..M: draw a minibatch X_k of N training samples; T times, one gradient step *up* r(H)
(Eq. (4)) with respect to all parameters. The seed is inconsistent on which H (Algorithm 1: the
last hidden layer H_L; Sec. 4: "in each layer"; Fig. 6: "layer-wise"), so both are here:
``last_layer`` ascends r(H_L), ``layer_wise`` ascends sum_l r(H_l) over the hidden layers at once
(our reading of "layer-wise": one summed objective rather than layer after layer). H is a
block's output after its activation. N, M, T and the step size are config keys; Fig. 6's
"25 and 75 iterations" are M * T.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import torch
from torch import Tensor

from .. import metrics, seeding
from .loop import RunStack, sgd_step

__all__ = ["VARIANTS", "pretrain_rank"]

log = logging.getLogger(__name__)

VARIANTS = ("last_layer", "layer_wise")


def rank_objective(stack: RunStack, x: Tensor, variant: str) -> Tensor:
    """r(H_L) per run (``last_layer``) or sum_l r(H_l) (``layer_wise``), (R,), differentiable."""
    if variant == "last_layer":
        return metrics.rank_lower_bound(stack.hidden(x).mT)
    if variant == "layer_wise":
        return metrics.rank_lower_bound(stack.hidden(x, "all_hidden").mT).sum(-1)
    raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")


def pretrain_rank(
    stack: RunStack,
    train_x: Tensor,
    experiment_id: str,
    runs: Sequence[int],
    minibatches: int,
    steps: int,
    batch_size: int,
    lr: float,
    variant: str = "last_layer",
) -> Tensor:
    """Algorithm 1 on every run of ``stack`` (in place): M = ``minibatches`` minibatches of
    N = ``batch_size`` samples (run r draws them from its own "pretrain" stream), T = ``steps``
    ascent steps of size ``lr`` on each. Returns the objective per run before each step and after
    the last, (R, M * T + 1)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    gens = seeding.generators(experiment_id, list(runs), "pretrain")
    up = torch.full((stack.size,), -float(lr), device=train_x.device, dtype=train_x.dtype)
    for p in stack.params.values():
        p.requires_grad_(True)
    history = []
    for _ in range(minibatches):
        idx = torch.stack([torch.randperm(len(train_x), generator=g)[:batch_size] for g in gens])
        x = train_x[idx.to(train_x.device)]
        for _ in range(steps):
            objective = rank_objective(stack, x, variant)
            history.append(objective.detach().double().cpu())
            objective.sum().backward()
            sgd_step(stack.params, up, 0.0, {})  # a step of -lr down -r: up r
    with torch.no_grad():
        history.append(rank_objective(stack, x, variant).double().cpu())
    log.info("rank pre-training (%s): r %.3g -> %.3g (mean over runs)", variant,
             float(history[0].mean()), float(history[-1].mean()))  # fmt: skip
    return torch.stack(history, dim=-1)
