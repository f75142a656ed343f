"""The one trainable MLP: blocks of Linear, normalization and activation in either of the seeds'
orders, with optional shaping gains and an optional read-out.

- ``block_order="linear_norm_act"``: Linear -> norm -> act(alpha_l h). Dan+20's networks (BN
  before the ReLU, the usual placement; Dan+20 Fig. 1 does not say) and Thesis Eq. (6.3) with the
  activation shaping alpha_l of Eq. (6.11) (``gains``). Depth counts hidden blocks; the read-out
  ``Linear(width, n_classes)`` follows them, so H_L (Dan+20 Eq. (4)) is block L's output.
- ``block_order="act_linear_norm"``: act -> Linear -> norm, the activation first even on the raw
  input: DJB21 Fig. 5a as the authors' public code builds it (``nets.djb21.relu_first_mlp``).

Layout is torch's: samples along dim 0, (N, d); the seeds' H is its transpose (d, N). Weights
keep torch's construction-time draws until an initialization overwrites them
(``nets.initializations.init_weights``, ``nets.djb21.relu_first_mlp``, or the gradient code's
``bn_training.load_parameters``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from .. import ops
from .normalizations import NORMS

__all__ = ["Activation", "BLOCK_ORDERS", "MLP"]

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

    def forward(self, x: Tensor, output: str = "logits") -> Tensor:
        """``output``: "logits" (N, C; the last block's output without a read-out);
        "last_hidden": H_L as (N, width); "all_hidden": H_1..H_L, (L, N, width)."""
        h = x.flatten(1)
        if output == "all_hidden":
            return torch.stack(self.representations(h, include_output=True)[1:])
        h = self.hidden(h)
        if output == "last_hidden" or (output == "logits" and self.readout is None):
            return h
        if output != "logits":
            raise ValueError(f"output must be logits, last_hidden or all_hidden, got {output!r}")
        return self.readout(h)

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


class Activation(nn.Module):
    """act(gain x), the gain skipped when it is 1 (so an unshaped block computes act(x) itself)."""

    def __init__(self, fn, name: str, gain: float = 1.0):
        super().__init__()
        self.fn, self.name, self.gain = fn, name, gain

    def forward(self, x: Tensor) -> Tensor:
        return self.fn(x * self.gain if self.gain != 1.0 else x)

    def extra_repr(self) -> str:
        return self.name if self.gain == 1.0 else f"{self.name}, gain={self.gain:.6g}"
