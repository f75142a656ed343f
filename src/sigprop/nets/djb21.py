"""DJB21's networks, built from torch's own layers: those of Fig. 5 (``relu_first_mlp``,
``convnets.ConvNet``, ``build``) and the bias-free ReLU MLP of Figs. 3-4 (``relu_mlp``).

DJB21 App. F, Fig. 5, as built by the authors' public code (hadidaneshmand/batchnorm21, linked in
DJB21 footnote 1; the caption gives only batch size, depth, width and kernel size): a ReLU MLP
and a ReLU ConvNet whose blocks are ``ReLU -> Linear/Conv2d (bias=False) -> BatchNorm1d/2d or
Identity``, the ReLU first, even on the raw input. BN is torch's own, in training mode at
initialization (centred, biased variance, eps 1e-5, weight 1, bias 0): not the uncentred BN of
DJB21 Eq. (1).

Initialization is ``xavier_normal_`` with the authors' gains (sqrt 2 = ``calculate_gain("relu")``
for the MLP, 1 = ``calculate_gain("conv2d")`` for the ConvNet), drawn on the CPU from a
``torch.Generator`` (``sigprop.engine.seeding``) so a network is the same on every device.

``representations(x)`` returns the input of every block (the first is the raw input), the
layout on which DJB21 Fig. 5 measures the orthogonality gap.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from ..base.config import check_positive_integers
from .convnets import ConvNet, check_norm
from .initializations import linear_layers, xavier_normal_from
from .mlp import MLP

__all__ = [
    "ARCHITECTURES",
    "build",
    "features_by_samples",
    "relu_first_mlp",
    "relu_mlp",
]


ARCHITECTURES = ("mlp", "convnet")
"""Architectures ``build`` knows."""


def relu_first_mlp(
    in_features: int,
    width: int,
    depth: int,
    norm: str = "batch_norm",
    gain: float = math.sqrt(2.0),
    generator: torch.Generator | None = None,
) -> MLP:
    """DJB21 Fig. 5a: ``depth`` blocks ReLU -> Linear(bias=False) -> BatchNorm1d | Identity, no
    read-out: the one ``nets.mlp.MLP`` with ``block_order="act_linear_norm"``.

    Args:
        in_features: input dimension (the flattened image: 3072 for CIFAR-10, 784 for MNIST).
        width: the width of every hidden layer (100 in the paper).
        depth: the number of blocks (30 in the paper).
        norm: "batch_norm" (torch ``BatchNorm1d``) or "none".
        gain: the ``xavier_normal_`` gain; the code's is sqrt 2 (``calculate_gain("relu")``).
        generator: CPU generator of the initial weights (``sigprop.engine.seeding.generator``),
            drawn layer after layer.
    """
    check_norm(norm)
    check_positive_integers(in_features=in_features, width=width, depth=depth)
    net = MLP(
        in_features, width, depth, None, norm, "relu", bias=False, block_order="act_linear_norm"
    )
    for linear in linear_layers(net):
        xavier_normal_from(linear.weight, gain, generator)
    return net


def build(
    architecture: str,
    input_shape: tuple[int, ...],
    width: int,
    depth: int,
    norm: str,
    kernel_size: int = 3,
    padding_mode: str = "reflect",
    generator: torch.Generator | None = None,
) -> MLP | ConvNet:
    """The Fig. 5 network for one architecture with the code's gains, on the CPU in float32.

    Args:
        architecture: "mlp" or "convnet".
        input_shape: one sample's shape (C, H, W); the MLP reads it flattened.
        width: MLP width or ConvNet channels.
        depth, norm, kernel_size, padding_mode, generator: see ``relu_first_mlp`` and
            ``ConvNet``.
    """
    if architecture == "mlp":
        return relu_first_mlp(math.prod(input_shape), width, depth, norm, generator=generator)
    if architecture == "convnet":
        if len(input_shape) != 3:
            raise ValueError(f"convnet needs (C, H, W) inputs, got shape {tuple(input_shape)}")
        return ConvNet(
            input_shape[0], width, depth, kernel_size, norm, padding_mode, generator=generator
        )
    raise ValueError(f"architecture must be one of {ARCHITECTURES}, got {architecture!r}")


def features_by_samples(h: Tensor) -> Tensor:
    """A batch (n, ...) as the d x n matrix of sigprop's metrics: per-sample flattened features.

    The authors' code for DJB21 Fig. 5 flattens each sample's features (channels x pixels for
    the ConvNet); ``metrics.orthogonality_gap(features_by_samples(h))`` is the code's gap.
    """
    return h.flatten(start_dim=1).mT


def relu_mlp(d_in: int, width: int, depth: int, d_out: int = 10) -> nn.Sequential:
    """The bias-free ReLU MLP of DJB21 Figs. 3-4 [code ``MLP(layer_num, 3072, width, 10)``], as
    a flat Sequential of ``nets.mlp.MLP``'s modules (the form iterative orthogonalization walks).

    Linear(d_in -> width), (depth - 2) x Linear(width -> width), Linear(width -> d_out), with a
    ReLU after every Linear but the last (and the identity where a normalization would be).
    ``depth`` is the number of Linear layers (the code's ``layer_num``). Weights keep PyTorch's
    default initialization until ``init_weights(model, "xavier_relu", ...)`` (the code's
    ``xavier_init``) overwrites them.

    Raises:
        ValueError: for depth < 2 or a size < 1.
    """
    if depth < 2:
        raise ValueError(f"depth (number of Linear layers) must be >= 2, got {depth}")
    net = MLP(d_in, width, depth - 1, d_out, norm="none", activation="relu", bias=False)
    return nn.Sequential(*net.hidden, net.readout)
