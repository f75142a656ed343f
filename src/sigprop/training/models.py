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
from ..initialization import XAVIER_GAIN

__all__ = [
    "INITS",
    "MLP",
    "NORMS",
    "TheoryNorm",
    "UncenteredBatchNorm1d",
    "UncenteredBatchNorm2d",
    "init_weights",
    "uncenter_batch_norm",
]


class _Uncentered:
    """BN without mean subtraction: x / sqrt(E_batch(x^2) + eps) * weight + bias, the moment
    taken per channel over every dim but 1 (samples, and pixels of a feature map).

    Dan+20 Fig. 5, 7, 13 and App. C ("BN without mean deduction"). Running statistics track the
    uncentered second moment, used in eval mode as torch's BN uses its running variance.
    """

    def forward(self, x: Tensor) -> Tensor:
        self._check_input_dim(x)
        shape = (1, -1) + (1,) * (x.dim() - 2)
        if self.training:
            second = x.square().mean(dim=[d for d in range(x.dim()) if d != 1])
            if self.track_running_stats:
                with torch.no_grad():
                    self.num_batches_tracked.add_(1)
                    rate = self.momentum
                    if rate is None:  # a cumulative average, as torch's BN with momentum=None
                        rate = 1.0 / float(self.num_batches_tracked)
                    # (1 - rate) old + rate new, as lerp_ (which vmap cannot batch)
                    self.running_var.mul_(1 - rate).add_(second, alpha=rate)
        else:
            second = self.running_var
        out = x * torch.rsqrt(second + self.eps).view(shape)
        return out * self.weight.view(shape) + self.bias.view(shape) if self.affine else out


class UncenteredBatchNorm1d(_Uncentered, nn.BatchNorm1d):
    """``nn.BatchNorm1d`` without mean subtraction (``_Uncentered``): (N, C) or (N, C, L)."""


class UncenteredBatchNorm2d(_Uncentered, nn.BatchNorm2d):
    """``nn.BatchNorm2d`` without mean subtraction (``_Uncentered``): (N, C, H, W)."""


_UNCENTERED = {nn.BatchNorm1d: UncenteredBatchNorm1d, nn.BatchNorm2d: UncenteredBatchNorm2d}


def uncenter_batch_norm(model: nn.Module) -> nn.Module:
    """Replace every torch ``BatchNorm1d``/``BatchNorm2d`` of ``model`` (in place) by its
    uncentered twin with the same features, eps, momentum, affine flag and state; returns
    ``model``. The module swap of Dan+20 Figs. 5, 7, 13 ("BN without mean deduction")."""
    for parent in list(model.modules()):
        for name, child in parent.named_children():
            twin = _UNCENTERED.get(type(child))
            if twin is None:
                continue
            floats = [t for t in child.state_dict().values() if t.is_floating_point()]
            where = {"device": floats[0].device, "dtype": floats[0].dtype} if floats else {}
            swapped = twin(
                child.num_features, child.eps, child.momentum, child.affine,
                child.track_running_stats, **where,
            )  # fmt: skip
            swapped.load_state_dict(child.state_dict())
            swapped.train(child.training)
            setattr(parent, name, swapped)
    return model


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
        bias: whether every Linear has a bias (DJB21's code: none).
    """

    def __init__(
        self,
        d_in: int,
        width: int,
        depth: int,
        n_classes: int = 10,
        norm: str = "none",
        activation: str = "relu",
        bias: bool = True,
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
            layers += [nn.Linear(d_in if k == 0 else width, width, bias), NORMS[norm](width)]
            layers.append(_Activation(act, activation))
        self.hidden = nn.Sequential(*layers)
        self.readout = nn.Linear(width, n_classes, bias)

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


def _uniform(tensor: Tensor | None, low: float, high: float, generator) -> None:
    if tensor is not None:  # convolutions without bias (ResNet) have none
        nn.init.uniform_(tensor, low, high, generator=generator)


def _zero(tensor: Tensor | None) -> None:
    if tensor is not None:
        nn.init.zeros_(tensor)


def _fan_in(layer: nn.Module) -> int:
    """Inputs per output unit: in_features of a Linear, in_channels x kernel size of a conv."""
    return layer.weight[0].numel()


def _torch_default(layer: nn.Module, generator) -> None:
    """U[-1/sqrt(fan_in), 1/sqrt(fan_in)] for weight and bias: ``nn.Linear``'s and
    ``nn.Conv2d``'s own init (kaiming_uniform with a = sqrt(5)), "standard PyTorch init" of
    Dan+20 Figs. 1, 5, 13."""
    bound = 1 / math.sqrt(_fan_in(layer))
    _uniform(layer.weight, -bound, bound, generator)
    _uniform(layer.bias, -bound, bound, generator)


def _asymmetric(layer: nn.Module, generator) -> None:
    """Weights U[0, 2/sqrt(fan_in)], the variance of the default (1 / (3 fan_in)) in R+ (Dan+20
    Fig. 5, 13: "uniform initialization of same variance"); bias as the default (our choice)."""
    bound = 1 / math.sqrt(_fan_in(layer))
    _uniform(layer.weight, 0.0, 2 * bound, generator)
    _uniform(layer.bias, -bound, bound, generator)


def _xavier(layer: nn.Module, generator) -> None:
    """Xavier (Glorot) normal weights, variance 2 / (fan_in + fan_out); zero bias."""
    nn.init.xavier_normal_(layer.weight, generator=generator)
    _zero(layer.bias)


def _xavier_relu(layer: nn.Module, generator) -> None:
    """Xavier (Glorot) uniform weights with the ReLU gain sqrt(2), U[-a, a] with a = sqrt(2)
    sqrt(6 / (fan_in + fan_out)); zero bias: DJB21's "Xavier" (the authors' ``xavier_init``,
    as ``initialization.xavier_init``)."""
    nn.init.xavier_uniform_(layer.weight, gain=XAVIER_GAIN, generator=generator)
    _zero(layer.bias)


def _orthogonal(layer: nn.Module, generator) -> None:
    """Haar (semi-)orthogonal weights (``nn.init.orthogonal_``, a conv's flattened per output
    channel); zero bias."""
    nn.init.orthogonal_(layer.weight, generator=generator)
    _zero(layer.bias)


INITS = {
    "torch_default": _torch_default,
    "asymmetric": _asymmetric,
    "xavier": _xavier,
    "xavier_relu": _xavier_relu,
    "orthogonal": _orthogonal,
}
"""Initialization schemes of the ``Linear`` and ``Conv2d`` layers."""

WEIGHTED = (nn.Linear, nn.Conv2d)
"""The layers ``init_weights`` initializes."""


@torch.no_grad()
def init_weights(model: nn.Module, scheme: str, generator: torch.Generator) -> nn.Module:
    """Initialize every ``nn.Linear`` and ``nn.Conv2d`` of ``model`` in module order with
    ``INITS[scheme]``, drawing from ``generator``; normalization layers get weight 1 and bias 0.
    Returns ``model``. The draws are made on the CPU whatever the model's device, so a network
    is the same on every device.

    This overrides whatever the constructor drew: torchvision's VGG and ResNet constructors
    re-initialize with Kaiming normal (Dan+20's "standard PyTorch init" is ``torch_default``).
    """
    if scheme not in INITS:
        raise ValueError(f"init must be one of {sorted(INITS)}, got {scheme!r}")
    for module in model.modules():
        if isinstance(module, WEIGHTED):
            device = module.weight.device  # drawn on the CPU, as every draw (sigprop.seeding)
            INITS[scheme](module.to("cpu"), generator)
            module.to(device)
        elif isinstance(module, nn.modules.batchnorm._NormBase) and module.affine:
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
    return model
