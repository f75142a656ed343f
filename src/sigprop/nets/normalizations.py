"""Normalization layers of the trainable networks, by name (``NORMS``, ``nets.vocabulary``).

Torch's own ``BatchNorm1d``/``2d``, its uncentred twin (Dan+20 Figs. 5, 7, 13: "BN without mean
deduction") and the seeds' parameter-free BNs of ``sigprop.engine.ops`` as modules (``TheoryNorm``);
``BATCH_FUNCTIONS``: the slots as functions of the seeds' (d, n) layout, batched over runs.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from ..engine import ops

__all__ = [
    "BATCH_FUNCTIONS",
    "NORMS",
    "TheoryNorm",
    "UncenteredBatchNorm1d",
    "UncenteredBatchNorm2d",
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


BATCH_FUNCTIONS: dict[str, Callable[[Tensor], Tensor]] = {
    name: ops.NORMALIZATIONS[name] for name in ("bn_unit", "bn_rms", "bn_centered", "batch_norm")
}
"""Slots of ``NORMS`` as functions of the seeds' H (the BNs of ``ops.NORMALIZATIONS``), shape
(..., d, n): each row (neuron) normalized across the n samples, leading dims (runs) batched. A
``TheoryNorm``'s function
(``ops.bn_unit``: Thesis Eq. (6.4); ``ops.bn_rms``: Dan+20 Eq. (2); ``ops.bn_centered``), and
for ``batch_norm`` torch's ``BatchNorm1d`` in training mode at initialization
(``ops.batch_norm``, equal to it to round-off)."""


class TheoryNorm(nn.Module):
    """A parameter-free BN of the seeds' theory (``BATCH_FUNCTIONS``, e.g. ``bn_rms``, Dan+20
    Eq. (2)), applied to the batch as the seeds' H = x^T (rows = neurons, columns = samples)."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self.fn = BATCH_FUNCTIONS[name]

    def forward(self, x: Tensor) -> Tensor:
        return self.fn(x.mT).mT

    def extra_repr(self) -> str:
        return self.name


NORMS = {
    "none": lambda width: nn.Identity(),
    "batch_norm": nn.BatchNorm1d,
    "batch_norm_uncentered": UncenteredBatchNorm1d,
    "bn_rms": lambda width: TheoryNorm("bn_rms"),
    "bn_unit": lambda width: TheoryNorm("bn_unit"),
    "bn_centered": lambda width: TheoryNorm("bn_centered"),
}
"""A network's normalization slot by name (``nets.vocabulary``): ``none`` (vanilla), torch's
``BatchNorm1d`` (trainable: affine, eps 1e-5, momentum 0.1, running statistics for eval mode),
BN without centering, and the seeds' parameter-free theory BNs (``ops.bn_rms``: Dan+20 Eq. (2);
``ops.bn_unit``: Thesis Eq. (6.4); ``ops.bn_centered``)."""
