"""Rank pre-training, Dan+20 App. G, Algorithm 1: gradient ascent on r(H) over minibatches.

Algorithm 1: for k = 1..M, draw a minibatch X_k of N training samples; T times, one gradient step
*up* r(H_L(X_k)) (Eq. (4)) with respect to the parameters. The seed is inconsistent on which H
(Algorithm 1: the last hidden layer H_L; Sec. 4: "in each layer"; Fig. 6: "pre-trained
layer-wise"), so both readings are here, chosen by config:

- ``last_layer``: Algorithm 1 as written, r(H_L) with respect to every hidden parameter.
- ``layer_wise``: greedy, block after block: Algorithm 1 on r(H_l) with respect to block l's
  parameters only, for l = 1..L, earlier blocks fixed (the classical reading of "layer-wise
  pre-training"). Fig. 6's "25 and 75 iterations" are M * T per block.

The seed does not name the optimizer; ``adam`` (``torch.optim.Adam`` with ``maximize=True``) is
our default, ``sgd`` plain ascent. Why: r(H) is scale invariant, so its gradient is tiny where a
deep vanilla net's signal is drowned by biases (depth 32 at PyTorch's default init: r(H_L) = 1
to float precision) and huge where H is small; plain ascent then stalls or diverges, Adam's
normalized steps do neither. A summed objective sum_l r(H_l) was tried as a third reading and
dropped: with plain ascent it raised only the early layers' ranks, with Adam a block's ReLUs all
died (r = 0/0, NaN) at depth 32.

Both optimizers are elementwise, so one optimizer over the stacked parameters of a ``RunStack``
is each run's own optimizer (tested).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import torch
from torch import Tensor

from ..engine import metrics, seeding
from .loop import RunStack

__all__ = ["OPTIMIZERS", "VARIANTS", "pretrain_rank"]

log = logging.getLogger(__name__)

VARIANTS = ("last_layer", "layer_wise")
OPTIMIZERS = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD}


def _ascent(params: list[Tensor], optimizer: str, lr: float) -> torch.optim.Optimizer:
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {sorted(OPTIMIZERS)}, got {optimizer!r}")
    for p in params:
        p.requires_grad_(True)
    return OPTIMIZERS[optimizer](params, lr=lr, maximize=True)


def _minibatch(train_x: Tensor, gens: list[torch.Generator], batch_size: int) -> Tensor:
    """Each run's minibatch of ``batch_size`` distinct samples from its own stream, (R, N, ...)."""
    idx = torch.stack([torch.randperm(len(train_x), generator=g)[:batch_size] for g in gens])
    return train_x[idx.to(train_x.device)]


def _ascend(stack: RunStack, h_in: Tensor, start: int, stop: int, opt, steps: int) -> list:
    """``steps`` ascent steps on r(H_stop) computed from the fixed H_start = ``h_in``; the
    objective before each step stays on the device (no host sync per step)."""
    history = []
    for _ in range(steps):
        objective = metrics.rank_lower_bound(stack.blocks(h_in, start, stop).mT)
        history.append(objective.detach().double())
        opt.zero_grad(set_to_none=True)
        objective.sum().backward()
        opt.step()
    opt.zero_grad(set_to_none=True)
    return history


def pretrain_rank(
    stack: RunStack,
    train_x: Tensor,
    experiment_id: str,
    runs: Sequence[int],
    minibatches: int,
    steps: int,
    batch_size: int,
    lr: float,
    variant: str = "layer_wise",
    optimizer: str = "adam",
) -> Tensor:
    """Algorithm 1 on every run of ``stack`` (in place): M = ``minibatches`` minibatches of
    N = ``batch_size`` samples (run r draws them from its own "pretrain" stream), T = ``steps``
    ascent steps of size ``lr`` on each, per block for ``layer_wise``.

    Returns:
        r of the layer being ascended before each step, (R, M * T) for ``last_layer`` and
        (R, L * M * T) for ``layer_wise`` (block after block).
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    gens = seeding.generators(experiment_id, list(runs), "pretrain")
    depth = stack.base.depth
    blocks = [(0, depth)] if variant == "last_layer" else [(b - 1, b) for b in range(1, depth + 1)]
    history = []
    for start, stop in blocks:
        params = [p for b in range(start + 1, stop + 1) for p in stack.block_parameters(b)]
        opt = _ascent(params, optimizer, lr)
        for _ in range(minibatches):
            x = _minibatch(train_x, gens, batch_size)
            with torch.no_grad():
                h_in = stack.blocks(x, 0, start)
            history += _ascend(stack, h_in, start, stop, opt, steps)
    for p in stack.params.values():
        p.grad = None
    out = torch.stack(history, dim=-1).cpu()
    first, last = float(out[:, 0].mean()), float(out[:, -1].mean())
    log.info("rank pre-training (%s, %s): r %.3g at the first step, %.3g at the last (mean "
             "over runs)", variant, optimizer, first, last)  # fmt: skip
    return out
