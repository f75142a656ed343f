"""The one trainable MLP: blocks of Linear, normalization and activation in either of the seeds'
orders, with optional shaping gains and an optional read-out.

- ``block_order="linear_norm_act"``: Linear -> norm -> act(alpha_l h). Dan+20's networks (BN
  before the ReLU, the usual placement; Dan+20 Fig. 1 does not say) and Thesis Eq. (6.3) with the
  activation shaping alpha_l of Eq. (6.11) (``gains``). Depth counts hidden blocks; the read-out
  ``Linear(width, n_classes)`` follows them, so H_L (Dan+20 Eq. (4)) is block L's output.
- ``block_order="act_linear_norm"``: act -> Linear -> norm, the activation first even on the raw
  input: DJB21 Fig. 5a as the authors' public code builds it (``nets.djb21.relu_first_mlp``).

The forward is the module sequence ``MLP.layers``, run module by module (``MLP.forward``) or, for
R networks stacked on a leading run dim, layer by layer as batched products (``stacked_mlp``,
``stacked_layer``). Layout is torch's: samples along dim 0, (N, d); the seeds' H is its
transpose (d, N). Weights keep torch's construction-time draws until an initialization
overwrites them (``nets.initializations.init_weights``, ``nets.djb21.relu_first_mlp``, or the
gradient code's ``bn_training.load_parameters``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ..engine import ops
from .normalizations import NORMS

__all__ = [
    "Activation",
    "BLOCK_ORDERS",
    "MLP",
    "shaped",
    "stacked_layer",
    "stacked_mlp",
    "stacked_mlp_supports",
]

BLOCK_ORDERS = ("linear_norm_act", "act_linear_norm")
"""The order of the three modules of a block (see the module docstring)."""


class MLP(nn.Module):
    """``depth`` hidden blocks of ``width`` units, then a read-out (unless ``n_classes`` is None).

    Args:
        d_in: input dimension (784 for Fashion-MNIST, 3072 for CIFAR-10); images are flattened.
        width, depth: units per block and number of blocks (>= 1).
        n_classes: read-out width; None for no read-out (the blocks' output is the output).
        norm: a key of ``nets.normalizations.NORMS``. activation: a name in ``ops.ACTIVATIONS``.
        bias: whether every Linear has a bias (DJB21's code: none).
        gains: alpha_0 .. alpha_{depth-1}, multiplying each block's normalized pre-activation
            (Thesis Eq. (6.11)); None for 1.
        block_order: one of ``BLOCK_ORDERS``.
    """

    MODULES_PER_BLOCK = 3

    def __init__(
        self,
        d_in: int,
        width: int,
        depth: int,
        n_classes: int | None = 10,
        norm: str = "none",
        activation: str = "relu",
        bias: bool = True,
        gains: Sequence[float] | None = None,
        block_order: str = "linear_norm_act",
    ):
        super().__init__()
        if depth < 1 or width < 1 or d_in < 1:
            raise ValueError(f"depth, width and d_in must be >= 1, got {depth}, {width}, {d_in}")
        if n_classes is not None and n_classes < 1:
            raise ValueError(f"n_classes must be >= 1 or None, got {n_classes}")
        if norm not in NORMS:
            raise ValueError(f"norm must be one of {sorted(NORMS)}, got {norm!r}")
        if block_order not in BLOCK_ORDERS:
            raise ValueError(f"block_order must be one of {BLOCK_ORDERS}, got {block_order!r}")
        gains = [1.0] * depth if gains is None else [float(g) for g in gains]
        if len(gains) != depth:
            raise ValueError(f"{len(gains)} gains for {depth} blocks")
        self.norm, self.activation, self.block_order = norm, activation, block_order
        act = ops.activation(activation)
        layers: list[nn.Module] = []
        for k in range(depth):
            linear = nn.Linear(d_in if k == 0 else width, width, bias)
            normalization = NORMS[norm](width)
            shaped = Activation(act, activation, gains[k])
            if block_order == "linear_norm_act":
                layers += [linear, normalization, shaped]
            else:
                layers += [shaped, linear, normalization]
        self.hidden = nn.Sequential(*layers)
        self.readout = nn.Linear(width, n_classes, bias) if n_classes is not None else None

    @property
    def depth(self) -> int:
        return len(self.hidden) // self.MODULES_PER_BLOCK

    def blocks(self, start: int, stop: int) -> nn.Sequential:
        """Hidden blocks start+1..stop as one module (H_start -> H_stop; H_0 is the input). Its
        parameter names are those of ``self.hidden`` (e.g. "3.weight" is "hidden.3.weight")."""
        if not 0 <= start <= stop <= self.depth:
            raise ValueError(f"need 0 <= start <= stop <= {self.depth}, got {start}, {stop}")
        return self.hidden[self.MODULES_PER_BLOCK * start : self.MODULES_PER_BLOCK * stop]

    def layers(self, output: str = "logits") -> list[tuple[str, nn.Module]]:
        """The modules the forward applies for ``output``, in order, each with the prefix of its
        parameter names: every hidden block's ("hidden.0.", ...), then the read-out
        ("readout.") for "logits" where there is one; "last_hidden" stops at H_L."""
        if output not in ("logits", "last_hidden"):
            raise ValueError(f"output must be logits or last_hidden, got {output!r}")
        named = [(f"hidden.{name}.", module) for name, module in self.hidden.named_children()]
        if output == "logits" and self.readout is not None:
            named.append(("readout.", self.readout))
        return named

    def forward(self, x: Tensor, output: str = "logits") -> Tensor:
        """``output``: "logits" (N, C; the last block's output without a read-out);
        "last_hidden": H_L as (N, width); "all_hidden": H_1..H_L, (L, N, width)."""
        h = x.flatten(1)
        if output == "all_hidden":
            return torch.stack(self.representations(h, include_output=True)[1:])
        if output not in ("logits", "last_hidden"):
            raise ValueError(f"output must be logits, last_hidden or all_hidden, got {output!r}")
        for _, module in self.layers(output):
            h = module(h)
        return h

    def representations(self, x: Tensor, include_output: bool = False) -> list[Tensor]:
        """The input of each block, in order: ``[x, block_1(x), ...]`` (x flattened), and the
        last block's output with ``include_output``: the layout on which DJB21 Fig. 5 measures
        the orthogonality gap."""
        h = x.flatten(1)
        out = []
        for k in range(self.depth):
            out.append(h)
            h = self.blocks(k, k + 1)(h)
        if include_output:
            out.append(h)
        return out


def shaped(fn, x: Tensor, gain: float) -> Tensor:
    """act(alpha x), the activation shaping of Thesis Eq. (6.11), the product skipped when
    alpha is 1 (so an unshaped block computes act(x) itself)."""
    return fn(x * gain if gain != 1.0 else x)


class Activation(nn.Module):
    """``shaped``: act(gain x) as a module."""

    def __init__(self, fn, name: str, gain: float = 1.0):
        super().__init__()
        self.fn, self.name, self.gain = fn, name, gain

    def forward(self, x: Tensor) -> Tensor:
        return shaped(self.fn, x, self.gain)

    def extra_repr(self) -> str:
        return self.name if self.gain == 1.0 else f"{self.name}, gain={self.gain:.6g}"


def _plain_batch_norm(module: nn.Module) -> bool:
    """torch's own BatchNorm1d with affine parameters and running statistics (not a subclass
    such as the uncentred BN, whose forward differs)."""
    return (
        type(module) is nn.BatchNorm1d
        and module.affine
        and module.track_running_stats
        and module.momentum is not None
    )


def stacked_mlp_supports(base: nn.Module) -> bool:
    """Whether ``stacked_layer`` can run every layer of ``base``: an ``MLP`` whose blocks hold
    only Linear, torch's BatchNorm1d, the identity and activations."""
    if not isinstance(base, MLP):
        return False
    return all(
        isinstance(m, (nn.Linear, nn.Identity, Activation)) or _plain_batch_norm(m)
        for m in base.hidden
    )


def stacked_mlp(
    base: MLP, params: dict, buffers: dict, x: Tensor, training: bool, output: str = "logits"
) -> Tensor:
    """R stacked MLPs on their own x[r], (R, B, ...) -> (R, B, ...): ``base.layers(output)``,
    each layer by ``stacked_layer`` with the stacked ``params`` and ``buffers`` (parameters and
    buffers of R networks of ``base``'s architecture, run dim first). ``output``: "logits" or
    "last_hidden" (``MLP.forward``)."""
    h = x.flatten(2)
    for prefix, module in base.layers(output):
        h = stacked_layer(module, prefix, params, buffers, h, training)
    return h


def stacked_layer(
    module: nn.Module, prefix: str, params: dict, buffers: dict, h: Tensor, training: bool
) -> Tensor:
    """One layer ``module`` of R stacked networks on (R, B, C), its tensors those of ``params``
    and ``buffers`` named ``prefix`` + name, as batched products: what
    ``vmap(functional_call(module))`` computes (equal to round-off, tested), 1.1-1.3x faster per
    SGD step on one CPU thread (bench/README, "Training"). A Linear is one ``baddbmm`` over the
    runs; a BatchNorm1d normalizes the (B, R * C) matrix of every run's channels side by side,
    so each run keeps its own batch and running statistics (updated in ``buffers`` in training
    mode); the identity and the activations are elementwise."""
    if isinstance(module, nn.Linear):
        weight, bias = params[prefix + "weight"], params.get(prefix + "bias")
        if bias is None:
            return torch.bmm(h, weight.mT)
        return torch.baddbmm(bias.unsqueeze(1), h, weight.mT)
    if isinstance(module, nn.BatchNorm1d):
        runs, batch, channels = h.shape
        side_by_side = h.transpose(0, 1).reshape(batch, runs * channels)
        if training:
            buffers[prefix + "num_batches_tracked"].add_(1)
        out = F.batch_norm(
            side_by_side,
            buffers[prefix + "running_mean"].view(-1),
            buffers[prefix + "running_var"].view(-1),
            params[prefix + "weight"].reshape(-1),
            params[prefix + "bias"].reshape(-1),
            training,
            module.momentum,
            module.eps,
        )
        return out.view(batch, runs, channels).transpose(0, 1)
    return module(h)  # the identity or an elementwise activation
