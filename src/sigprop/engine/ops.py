"""Normalizations and activations, each exactly as its seed defines it.

Layout everywhere: a representation ``h`` has shape (..., d, n): rows are the d neurons, columns
the n samples of a mini-batch, leading dimensions index independent runs. Batch normalization
therefore normalizes each row across the columns.

Seed sections: Dan+20 Eq. (2) (``bn_rms``, ``second_moment``), DJB21 Eq. (1) = Thesis Eq. (2.1)
(``bn_rms_scaled``), Thesis Eq. (6.4) (``bn_unit``: rows to unit norm), Dan+20 App. C
(``bn_centered``), PyTorch BN of the training experiments
(``batch_norm``); Thesis Cor. 4.4 (``ln_rms``: LN as the projection onto the sqrt(d)-sphere,
= RMSNorm) and LN with mean centering (``ln_centered``), which normalize each column (sample).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

__all__ = [
    "ACTIVATIONS",
    "NORMALIZATIONS",
    "activation",
    "batch_norm",
    "bn_centered",
    "bn_rms",
    "bn_rms_scaled",
    "bn_unit",
    "ln_centered",
    "ln_rms",
    "normalization",
    "second_moment",
    "tanh_plus_one",
]


def second_moment(h: Tensor) -> Tensor:
    """Second-moment matrix M(H) = H H^T / N, Dan+20 Eq. (2) and Eq. (4).

    Args:
        h: shape (..., d, n).
    Returns:
        M(H), shape (..., d, d). After ``bn_rms`` its diagonal is all ones (Dan+20 Eq. (8)).
    """
    return h @ h.mT / h.shape[-1]


def bn_rms(h: Tensor) -> Tensor:
    """BN_{0,1}(H) = diag(M(H))^{-1/2} H with M(H) = H H^T / N, Dan+20 Eq. (2).

    Each row is divided by its root mean square over the batch, so every row of the result has
    norm sqrt(N) and Tr M(BN(H)) = d. No mean centering, no epsilon, no affine parameters (the
    seed's initialization alpha = 0, beta = 1). Invariant to positive scaling of each row.

    Args:
        h: shape (..., d, n).
    Returns:
        shape (..., d, n), same dtype and device.
    """
    return h * torch.rsqrt(h.square().mean(dim=-1, keepdim=True))


def bn_unit(h: Tensor) -> Tensor:
    """BN(H) = diag(H H^T)^{-1/2} H, Thesis Eq. (6.4) (the BN inside DJB21 Eq. (1)).

    Each row (neuron) is divided by its Euclidean norm over the batch, so every row has unit
    norm: no mean reduction, no 1/n factor, no epsilon. Equals ``bn_rms(h) / sqrt(n)``; the
    "theory BN" with factor 1 of the authors' public code for Thesis ch. 6
    (alexandrumeterez/bngrad); the text after Eq. (6.4) notes the omitted mean and 1/n.

    Args:
        h: shape (..., d, n).
    Returns:
        shape (..., d, n), every row of norm 1.
    """
    return h * torch.rsqrt(h.square().sum(dim=-1, keepdim=True))


def bn_rms_scaled(h: Tensor) -> Tensor:
    """BN(H) / sqrt(d) with BN = ``bn_unit`` (Thesis Eq. (6.4)), DJB21 Eq. (1) (Thesis Eq. (2.1)).

    Each row is divided by its Euclidean norm over the batch and the result by sqrt(d), so that
    ||BN(H)/sqrt(d)||_F = 1 (DJB21 Eq. (10), Thesis Eq. (A.4)). Equals ``bn_rms(h) / sqrt(n d)``.

    Args:
        h: shape (..., d, n).
    Returns:
        shape (..., d, n), unit Frobenius norm per leading index.
    """
    d = h.shape[-2]
    return h * torch.rsqrt(h.square().sum(dim=-1, keepdim=True) * d)


def bn_centered(h: Tensor) -> Tensor:
    """Centered BN: subtract each row's batch mean, then ``bn_rms``, Dan+20 App. C (Fig. 7).

    Like PyTorch BN at initialization with epsilon = 0. A constant row has no direction and
    yields NaN; PyTorch's epsilon avoids this, the seed's theory does not need it.

    Args:
        h: shape (..., d, n).
    """
    return bn_rms(h - h.mean(dim=-1, keepdim=True))


def batch_norm(h: Tensor, eps: float = 1e-5) -> Tensor:
    """PyTorch ``BatchNorm1d`` in training mode at initialization (weight 1, bias 0).

    (H - row mean) / sqrt(row biased variance + eps): the BN of the seeds' training experiments
    (Dan+20 Figs. 1, 4-7; DJB21 Fig. 5), not of their theory. Tested equal to
    ``torch.nn.BatchNorm1d`` on the transposed batch.

    Args:
        h: shape (..., d, n); the batch is the last axis, as everywhere in sigprop.
        eps: PyTorch's default 1e-5.
    """
    var, mean = torch.var_mean(h, dim=-1, keepdim=True, correction=0)
    return (h - mean) * torch.rsqrt(var + eps)


def ln_rms(h: Tensor) -> Tensor:
    """LN(x) = sqrt(d) x / ||x|| per sample (column): Thesis Cor. 4.4, "projection onto the
    sqrt(d)-sphere"; equals RMSNorm x / sqrt(mean_k x_k^2) without gain.

    The column counterpart of ``bn_rms`` (which scales rows); no centering, no epsilon. Up to the
    factor sqrt(d) it is the unit-sphere projection x / ||x|| of Thesis Thm. 4.3.

    Args:
        h: shape (..., d, n); each of the n columns must be nonzero.
    Returns:
        shape (..., d, n), every column of norm sqrt(d).
    """
    return h * torch.rsqrt(h.square().mean(dim=-2, keepdim=True))


def ln_centered(h: Tensor) -> Tensor:
    """Layer normalization with centering: subtract each column's mean over the d features, then
    ``ln_rms`` (PyTorch ``LayerNorm`` at initialization with epsilon = 0).

    Thesis Cor. 4.4 treats LN as the scaling ``ln_rms``; the centering is a projection that can
    lower the isometry (our finding, not in the thesis; Thm. 4.3 covers only the rescaling).

    Args:
        h: shape (..., d, n); no column may be constant.
    """
    return ln_rms(h - h.mean(dim=-2, keepdim=True))


def _identity(h: Tensor) -> Tensor:
    return h


def tanh_plus_one(h: Tensor) -> Tensor:
    """tanh(h) + 1: what the authors' public code for DJB21 Fig. 6 calls "sigmoid" (App. F names
    sigmoid among Fig. 6's activations; the code's definition is tanh + 1)."""
    return torch.tanh(h) + 1.0


NORMALIZATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "bn_rms": bn_rms,
    "bn_rms_scaled": bn_rms_scaled,
    "bn_unit": bn_unit,
    "bn_centered": bn_centered,
    "batch_norm": batch_norm,
    "ln_rms": ln_rms,
    "ln_centered": ln_centered,
}
"""Normalizations by config name. ``"none"`` (vanilla networks) is handled by the chain engine."""

ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "linear": _identity,
    "relu": torch.relu,
    "tanh": torch.tanh,
    "sin": torch.sin,
    "sigmoid": torch.sigmoid,
    "tanh_plus_one": tanh_plus_one,
}
"""Elementwise activations by config name; ``linear`` is the identity of the linear theory.

``sigmoid`` is the logistic 1 / (1 + e^{-x}); ``tanh_plus_one`` is tanh(x) + 1, the "sigmoid" of
the DJB21 Fig. 6 code (= 2 * logistic(2x)).
"""


def normalization(name: str) -> Callable[[Tensor], Tensor]:
    """Look up a normalization by name, raising a ValueError that lists the valid names."""
    try:
        return NORMALIZATIONS[name]
    except KeyError:
        raise ValueError(
            f"normalization must be one of {sorted(NORMALIZATIONS)}, got {name!r}"
        ) from None


def activation(name: str) -> Callable[[Tensor], Tensor]:
    """Look up an activation by name, raising a ValueError that lists the valid names."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {name!r}") from None
