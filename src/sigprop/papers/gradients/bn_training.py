"""The ch. 6 network as a trainable ``nn.Module``, equal to ``bn_mlp`` at initialization.

Thesis Eq. (6.3) with the activation shaping of Eq. (6.11), as ``bn_mlp`` defines it: layers
``fc_0 .. fc_L`` (``nn.Linear``, bias as the architecture says), after each ``fc_l`` with l < L
the normalization of ``bn_mlp.NORMS`` (``batch_norm`` is a trainable
``nn.BatchNorm1d``: affine, eps 1e-5, momentum 0.1, running statistics for eval mode, as the
authors' ``torch_bn``; the theory BNs of Eq. (6.4) are parameter-free ``TheoryNorm``s), then
X_{l+1} = act(alpha_l BN(H_l)) with alpha_l = gain (l + 1)^(-gain_exponent). Layout is torch's
(samples along dim 0); ``bn_mlp``'s is its transpose, with the same weight matrices (out, in).

``initial_networks`` loads the weights that ``bn_mlp.init_parameters`` draws, run by run, so
the trained networks start from exactly the networks of the at-initialization figures (tested:
logits and every gradient agree to 1e-10 in float64). The networks train on the training layer
(``sigprop.training.loop``): a list of them is a ``RunStack``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from ...training.models import TheoryNorm
from . import bn_mlp

__all__ = ["ShapedBNMLP", "initial_networks"]


class ShapedBNMLP(nn.Module):
    """One network of ``bn_mlp.Architecture`` with ``d_in`` inputs and ``n_classes`` outputs.

    Attributes:
        fc: ``fc_0 .. fc_L`` (``nn.ModuleList`` of ``nn.Linear``).
        norms: the L normalizations after ``fc_0 .. fc_{L-1}``.
        gains: alpha_0 .. alpha_{L-1} (``Architecture.gains``).
    """

    def __init__(self, arch: bn_mlp.Architecture, d_in: int, n_classes: int):
        super().__init__()
        if d_in < 1 or n_classes < 1:
            raise ValueError(f"d_in and n_classes must be >= 1, got {d_in}, {n_classes}")
        sizes = [d_in] + [arch.width] * arch.depth + [n_classes]
        self.arch = arch
        self.fc = nn.ModuleList(
            nn.Linear(a, b, bias=arch.bias) for a, b in zip(sizes[:-1], sizes[1:], strict=True)
        )
        self.norms = nn.ModuleList(_norm(arch.norm, arch.width) for _ in range(arch.depth))
        self.gains = arch.gains()

    @property
    def depth(self) -> int:
        return self.arch.depth

    def forward(self, x: Tensor, output: str = "logits") -> Tensor:
        """``output``: "logits" (N, C) or "last_hidden": X_L = act(alpha_{L-1} BN(H_{L-1})),
        the read-out's input, (N, width)."""
        if output not in ("logits", "last_hidden"):
            raise ValueError(f"output must be logits or last_hidden, got {output!r}")
        h = x.flatten(1)
        for layer, norm in enumerate(self.norms):
            h = norm(self.fc[layer](h))
            alpha = self.gains[layer]
            h = self.arch.act(h * alpha if alpha != 1.0 else h)
        return h if output == "last_hidden" else self.fc[-1](h)

    @torch.no_grad()
    def load_parameters(self, params: bn_mlp.Parameters, run: int) -> ShapedBNMLP:
        """Copy run ``run``'s W_l (and b_l) of ``bn_mlp.Parameters`` into ``fc_l``; BN affine
        parameters (if any) to weight 1, bias 0. Returns self."""
        if len(params.weights) != len(self.fc):
            raise ValueError(f"{len(params.weights)} weights for {len(self.fc)} layers")
        for k, fc in enumerate(self.fc):
            fc.weight.copy_(params.weights[k][run])
            if fc.bias is not None:
                fc.bias.copy_(params.biases[k][run, :, 0])
        for norm in self.norms:
            if isinstance(norm, nn.BatchNorm1d):
                norm.reset_parameters()
        return self


def _norm(name: str, width: int) -> nn.Module:
    if name not in bn_mlp.NORMS:
        raise ValueError(f"norm must be one of {sorted(bn_mlp.NORMS)}, got {name!r}")
    return nn.BatchNorm1d(width) if name == "batch_norm" else TheoryNorm(name)


def initial_networks(
    arch: bn_mlp.Architecture,
    d_in: int,
    n_classes: int,
    experiment_id: str,
    runs: Sequence[int],
    dtype: torch.dtype = torch.float32,
    device: str | torch.device = "cpu",
) -> list[ShapedBNMLP]:
    """One ``ShapedBNMLP`` per run, holding the weights ``bn_mlp.init_parameters`` draws for
    (``experiment_id``, run) in ``dtype``: Haar (semi-)orthogonal or xavier_normal, layer by
    layer from the run's own stream."""
    params = bn_mlp.init_parameters(arch, d_in, n_classes, experiment_id, runs, dtype, device)
    nets = []
    for i in range(len(runs)):
        net = ShapedBNMLP(arch, d_in, n_classes).to(device, dtype)
        nets.append(net.load_parameters(params, i))
    return nets
