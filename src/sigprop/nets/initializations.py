"""Initializations of ``nn.Linear`` and ``nn.Conv2d`` layers by name (``INITS``,
``nets.vocabulary``), drawn on the CPU from a seeded generator (``sigprop.engine.seeding``), so a
network is the same on every device; ``STACKED_INITS``: the weight laws of the batched networks, one
(runs, out, in) block drawn from one generator per run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor, nn

__all__ = [
    "INITS",
    "STACKED_INITS",
    "XAVIER_GAIN",
    "gaussian_weights",
    "haar_from_gaussian",
    "haar_weights",
    "init_weights",
    "linear_layers",
    "xavier_normal_from",
]

XAVIER_GAIN = math.sqrt(2.0)
"""``torch.nn.init.calculate_gain('relu')``, the gain of ``xavier_relu`` (DJB21's code's
``xavier_init``)."""


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
    xavier_normal_from(layer.weight, 1.0, generator)
    _zero(layer.bias)


def _xavier_relu(layer: nn.Module, generator) -> None:
    """Xavier (Glorot) uniform weights with the ReLU gain sqrt(2), U[-a, a] with a = sqrt(2)
    sqrt(6 / (fan_in + fan_out)); zero bias: DJB21's "Xavier" (the authors' ``xavier_init`` in
    their public code, hadidaneshmand/batchnorm21, linked in DJB21 footnote 1)."""
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


def linear_layers(model: nn.Module) -> list[nn.Linear]:
    """The model's ``nn.Linear`` modules in forward (registration) order, the read-out last."""
    return [m for m in model.modules() if isinstance(m, nn.Linear)]


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
            # drawn on the CPU, as every draw (sigprop.engine.seeding)
            device = module.weight.device
            INITS[scheme](module.to("cpu"), generator)
            module.to(device)
        elif isinstance(module, nn.modules.batchnorm._NormBase) and module.affine:
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
    return model


def xavier_normal_from(weight: Tensor, gain: float, generator: torch.Generator | None) -> None:
    """``xavier_normal_`` with ``gain``, N(0, gain^2 2 / (fan_in + fan_out)), drawn on the CPU (a
    CPU generator) and copied into the weight in place: ``xavier`` (gain 1) and DJB21 Fig. 5's
    networks (``nets.djb21``)."""
    draw = torch.empty(weight.shape, dtype=weight.dtype, device="cpu")
    nn.init.xavier_normal_(draw, gain=gain, generator=generator)
    with torch.no_grad():
        weight.copy_(draw)


def _draws(
    gens: Sequence[torch.Generator], shape: tuple[int, ...], dtype: torch.dtype, device
) -> Tensor:
    """One standard Gaussian block per run, each from its own generator, stacked."""
    return torch.stack([torch.randn(shape, generator=g, dtype=dtype).to(device) for g in gens])


def haar_from_gaussian(g: Tensor) -> Tensor:
    """Q of the QR factorization of a (batch of) tall Gaussian matrix g (..., rows >= cols), with
    the signs of diag(R) moved into Q: Haar on the Stiefel manifold, as ``nn.init.orthogonal_``.

    Without the sign fix Q is not Haar (LAPACK's R has a sign convention). Shape unchanged.
    """
    q, r = torch.linalg.qr(g)
    return q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)


def haar_weights(
    gens: Sequence[torch.Generator], rows: int, cols: int, dtype: torch.dtype, device
) -> Tensor:
    """Haar (semi-)orthogonal (rows x cols) matrices, one per generator: Q of the QR of a Gaussian
    with the signs of diag(R) fixed, as ``torch.nn.init.orthogonal_``.

    rows <= cols gives orthonormal rows, rows >= cols orthonormal columns; shape (runs, rows, cols).
    """
    tall = rows >= cols
    q = haar_from_gaussian(_draws(gens, (rows, cols) if tall else (cols, rows), dtype, device))
    return q if tall else q.mT


def gaussian_weights(
    gens: Sequence[torch.Generator], rows: int, cols: int, dtype: torch.dtype, device
) -> Tensor:
    """``xavier_normal_`` with gain 1: i.i.d. N(0, 2 / (rows + cols)), shape (runs, rows, cols)."""
    return _draws(gens, (rows, cols), dtype, device) * math.sqrt(2.0 / (rows + cols))


STACKED_INITS = {"orthogonal": haar_weights, "gaussian": gaussian_weights}
"""Weight laws drawn for R runs at once, ``(generators, rows, cols, dtype, device)`` -> (R, rows,
cols), batched where ``INITS`` draws layer by layer in place: Haar (semi-)orthogonal (the law of
``orthogonal``, batched QR) and Gaussian N(0, 2 / (rows + cols)) (the law of ``xavier``, Thesis
Fig. 6.3's "Normal")."""
