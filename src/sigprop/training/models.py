"""Trainable MLPs with a normalization slot, an activation slot and one initialization function.

A hidden block is Linear -> normalization -> activation (BN before the ReLU, the usual placement;
Dan+20 Fig. 1 does not say). Depth counts hidden blocks; the read-out ``Linear(width, classes)``
comes after them, so the last hidden representation H_L (Dan+20 Eq. (4)'s H of the last hidden
layer) is the output of block L. Layout is torch's: samples along dim 0, (N, d); the seeds' H is
its transpose (d, N).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from .. import ops

__all__ = ["INITS", "MLP", "NORMS", "TheoryNorm", "UncenteredBatchNorm1d", "init_weights"]


class UncenteredBatchNorm1d(nn.BatchNorm1d):
    """BatchNorm1d without mean subtraction: x / sqrt(mean_batch(x^2) + eps) * weight + bias.

    Dan+20 Fig. 5 and App. C ("BN without mean deduction"). Running statistics track the
    uncentered second moment, used in eval mode as BatchNorm1d uses its running variance.
    """

    def forward(self, x: Tensor) -> Tensor:
        if self.training:
            second = x.square().mean(dim=0)
            if self.track_running_stats:
                with torch.no_grad():
                    self.num_batches_tracked.add_(1)
                    rate = self.momentum
                    if rate is None:  # a cumulative average, as BatchNorm1d's momentum=None
                        rate = 1.0 / float(self.num_batches_tracked)
                    self.running_var.lerp_(second, rate)
        else:
            second = self.running_var
        out = x * torch.rsqrt(second + self.eps)
        return out * self.weight + self.bias if self.affine else out


class TheoryNorm(nn.Module):
    """A parameter-free BN of the seeds' theory from ``sigprop.ops`` (e.g. ``bn_rms``, Dan+20
    Eq. (2)), applied to the batch as the seeds' H = x^T (rows = neurons, columns = samples)."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self.fn = ops.normalization(name)

    def forward(self, x: Tensor) -> Tensor:
        return self.fn(x.mT).mT

    def extra_repr(self) -> str:
        return self.name


NORMS = {
    "none": lambda width: nn.Identity(),
    "batch_norm": nn.BatchNorm1d,
    "batch_norm_uncentered": UncenteredBatchNorm1d,
    "bn_rms": lambda width: TheoryNorm("bn_rms"),
    "bn_centered": lambda width: TheoryNorm("bn_centered"),
}
"""Normalization slot: ``none`` (vanilla), torch's ``BatchNorm1d``, BN without centering, and the
seeds' parameter-free theory BNs (``ops.bn_rms``: Dan+20 Eq. (2); ``ops.bn_centered``)."""


class MLP(nn.Module):
    """``depth`` hidden blocks of ``width`` units (Linear -> norm -> activation), then a read-out.

    Args:
        d_in: input dimension (784 for Fashion-MNIST, 3072 for CIFAR-10).
        width, depth: hidden units per block and number of blocks (>= 1).
        n_classes: read-out width.
        norm: a key of ``NORMS``. activation: a name in ``ops.ACTIVATIONS``.
    """

    def __init__(
        self,
        d_in: int,
        width: int,
        depth: int,
        n_classes: int = 10,
        norm: str = "none",
        activation: str = "relu",
    ):
        super().__init__()
        if depth < 1 or width < 1 or d_in < 1:
            raise ValueError(f"depth, width and d_in must be >= 1, got {depth}, {width}, {d_in}")
        if norm not in NORMS:
            raise ValueError(f"norm must be one of {sorted(NORMS)}, got {norm!r}")
        self.norm, self.activation = norm, activation
        act = ops.activation(activation)
        layers = []
        for k in range(depth):
            layers += [nn.Linear(d_in if k == 0 else width, width), NORMS[norm](width)]
            layers.append(_Activation(act, activation))
        self.hidden = nn.Sequential(*layers)
        self.readout = nn.Linear(width, n_classes)

    MODULES_PER_BLOCK = 3
    """Linear, normalization, activation."""

    @property
    def depth(self) -> int:
        return len(self.hidden) // self.MODULES_PER_BLOCK

    def blocks(self, start: int, stop: int) -> nn.Sequential:
        """Hidden blocks start+1..stop as one module (H_start -> H_stop; H_0 is the input). Its
        parameter names are those of ``self.hidden`` (e.g. "3.weight" is "hidden.3.weight")."""
        if not 0 <= start <= stop <= self.depth:
            raise ValueError(f"need 0 <= start <= stop <= {self.depth}, got {start}, {stop}")
        return self.hidden[self.MODULES_PER_BLOCK * start : self.MODULES_PER_BLOCK * stop]

    def forward(self, x: Tensor, output: str = "logits") -> Tensor:
        """``output``: "logits" (N, C); "last_hidden": H_L as (N, width), the output of the last
        hidden block; "all_hidden": every block's output H_1..H_L, (L, N, width)."""
        h = x.flatten(1)
        if output == "all_hidden":
            outs = []
            for k in range(self.depth):
                h = self.blocks(k, k + 1)(h)
                outs.append(h)
            return torch.stack(outs)
        h = self.hidden(h)
        if output == "last_hidden":
            return h
        if output != "logits":
            raise ValueError(f"output must be logits, last_hidden or all_hidden, got {output!r}")
        return self.readout(h)


class _Activation(nn.Module):
    def __init__(self, fn, name: str):
        super().__init__()
        self.fn, self.name = fn, name

    def forward(self, x: Tensor) -> Tensor:
        return self.fn(x)

    def extra_repr(self) -> str:
        return self.name


def _uniform(tensor: Tensor, low: float, high: float, generator) -> None:
    nn.init.uniform_(tensor, low, high, generator=generator)


def _torch_default(layer: nn.Linear, generator) -> None:
    """U[-1/sqrt(fan_in), 1/sqrt(fan_in)] for weight and bias: ``nn.Linear``'s own init
    (kaiming_uniform with a = sqrt(5)), "standard PyTorch init" of Dan+20 Fig. 5."""
    bound = 1 / math.sqrt(layer.in_features)
    _uniform(layer.weight, -bound, bound, generator)
    _uniform(layer.bias, -bound, bound, generator)


def _asymmetric(layer: nn.Linear, generator) -> None:
    """Weights U[0, 2/sqrt(fan_in)], the variance of the default (1 / (3 fan_in)) in R+ (Dan+20
    Fig. 5, 13: "uniform initialization of same variance"); bias as the default (our choice)."""
    bound = 1 / math.sqrt(layer.in_features)
    _uniform(layer.weight, 0.0, 2 * bound, generator)
    _uniform(layer.bias, -bound, bound, generator)


def _xavier(layer: nn.Linear, generator) -> None:
    """Xavier (Glorot) normal weights, variance 2 / (fan_in + fan_out); zero bias."""
    nn.init.xavier_normal_(layer.weight, generator=generator)
    nn.init.zeros_(layer.bias)


def _orthogonal(layer: nn.Linear, generator) -> None:
    """Haar (semi-)orthogonal weights (``nn.init.orthogonal_``); zero bias."""
    nn.init.orthogonal_(layer.weight, generator=generator)
    nn.init.zeros_(layer.bias)


INITS = {
    "torch_default": _torch_default,
    "asymmetric": _asymmetric,
    "xavier": _xavier,
    "orthogonal": _orthogonal,
}
"""Initialization schemes of the hidden and read-out ``Linear`` layers."""


@torch.no_grad()
def init_weights(model: nn.Module, scheme: str, generator: torch.Generator) -> nn.Module:
    """Initialize every ``nn.Linear`` of ``model`` in module order with ``INITS[scheme]``, drawing
    from ``generator``; normalization layers keep weight 1 and bias 0. Returns ``model``."""
    if scheme not in INITS:
        raise ValueError(f"init must be one of {sorted(INITS)}, got {scheme!r}")
    for module in model.modules():
        if isinstance(module, nn.Linear):
            INITS[scheme](module, generator)
    return model
