"""The ch. 6 network as a trainable ``nets.mlp.MLP``, equal to ``bn_mlp`` at initialization.

Thesis Eq. (6.3) with the activation shaping of Eq. (6.11), as ``bn_mlp`` defines it: L blocks
Linear -> the normalization ``arch.norm`` -> X_{l+1} = act(alpha_l BN(H_l)) with alpha_l = gain
(l + 1)^(-gain_exponent), then the read-out Linear (biases as the architecture says).
``batch_norm`` is a trainable ``nn.BatchNorm1d`` (affine, eps 1e-5, momentum 0.1, running
statistics for eval mode, as the authors' ``torch_bn``); the theory BNs of Eq. (6.4) are
parameter-free ``TheoryNorm``s. Layout is torch's (samples along dim 0); ``bn_mlp``'s is its
transpose, with the same weight matrices (out, in).

``initial_networks`` loads the weights that ``bn_mlp.init_parameters`` draws, run by run, so
the trained networks start from exactly the networks of the at-initialization figures (tested:
logits and every gradient agree to 1e-10 in float64). The networks train on the training layer
(``sigprop.training.loop``): a list of them is a ``RunStack``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ...nets.initializations import linear_layers
from ...nets.mlp import MLP
from . import bn_mlp

__all__ = ["initial_networks", "load_parameters", "shaped_network"]


def shaped_network(arch: bn_mlp.Architecture, d_in: int, n_classes: int) -> MLP:
    """The ``nets.mlp.MLP`` of one ``bn_mlp.Architecture`` with ``d_in`` inputs and
    ``n_classes`` outputs (its weights still torch's construction-time draws)."""
    return MLP(
        d_in, arch.width, arch.depth, n_classes, arch.norm, arch.activation, arch.bias,
        gains=arch.gains(),
    )  # fmt: skip


@torch.no_grad()
def load_parameters(net: MLP, params: bn_mlp.Parameters, run: int) -> MLP:
    """Copy run ``run``'s W_l (and b_l) of ``bn_mlp.Parameters`` into the network's Linear
    layers (the read-out last); BN affine parameters (if any) to weight 1, bias 0. Returns
    ``net``."""
    linears = linear_layers(net)
    if len(params.weights) != len(linears):
        raise ValueError(f"{len(params.weights)} weights for {len(linears)} layers")
    for k, fc in enumerate(linears):
        fc.weight.copy_(params.weights[k][run])
        if fc.bias is not None:
            fc.bias.copy_(params.biases[k][run, :, 0])
    for module in net.modules():
        if isinstance(module, nn.BatchNorm1d):
            module.reset_parameters()
    return net


def initial_networks(
    arch: bn_mlp.Architecture,
    d_in: int,
    n_classes: int,
    experiment_id: str,
    runs: Sequence[int],
    dtype: torch.dtype = torch.float32,
    device: str | torch.device = "cpu",
) -> list[MLP]:
    """One network per run (``shaped_network``), holding the weights ``bn_mlp.init_parameters``
    draws for (``experiment_id``, run) in ``dtype``: Haar (semi-)orthogonal or xavier_normal,
    layer by layer from the run's own stream."""
    params = bn_mlp.init_parameters(arch, d_in, n_classes, experiment_id, runs, dtype, device)
    nets = []
    for i in range(len(runs)):
        net = shaped_network(arch, d_in, n_classes).to(device, dtype)
        nets.append(load_parameters(net, params, i))
    return nets
