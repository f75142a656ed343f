"""The Jacobian of BN, Thesis Eq. (6.4), and the gradient-bound lemmas of Thesis app. C.3.

Layout as everywhere in sigprop: X (..., d, n), rows = the d neurons, columns = the n samples;
BN = ``ops.bn_unit`` scales each row to unit norm. A Jacobian of a map R^{d x n} -> R^{d x n}
acts on the row-major vectorization vec(X)_{i n + k} = X_{ik}, so it is (..., d n, d n).

Seed sections (Thesis app. C.3; Meterez, Joudaki et al. 2024 app. C):

- ``row_jacobian``: Lemma C.18, J_f(x) = I/||x|| - x x^T/||x||^3 for f(x) = x/||x|| (the thesis
  prints I_{d^2}; the identity is n x n), eigenvalues 1/||x|| (multiplicity n - 1; printed d^2 - 1)
  and 0 (eigenvector x), Cor. C.19.
- ``bn_jacobian``: the block-diagonal J_BN(X) = diag(J_f(X_1.), .., J_f(X_d.)), Eq. (C.136)-(C.137).
- ``bn_jacobian_norm``: ||J_BN(X)||_op = 1/min_i ||X_i.|| (C.138-C.139); squared <= 1/lambda_min
  (X X^T) by Lemma C.20 (Lemma C.16, Eq. (C.120)).
- ``trace_normalize``: the scale convention of Lemmas C.13/C.17, tr(X^T X) = d (what a BN output
  times an orthogonal W has: unit rows, ||X||_F^2 = d).
- ``c17_bound``, ``c13_bound``: -log lambda_d <= d psi + 1, and <= 2 sqrt(d psi) if psi <= 1/(16d)
  (Lemma C.17); log ||J_BN|| <= the same (Lemma C.13, Eq. (C.84)-(C.85)).
- ``hitting_time``: S = min{l : psi(X^l) <= 1/(16 d)} (Eq. (C.86)); ``c14_bound``: 512 d^4 psi_0^2
  (Lemma C.14, Eq. (C.119)) and the proof's explicit 16 d psi_0 max(2 d^2, 32 d^3 psi_0) (C.118);
  ``c15_bound``: 32 d^4.5 psi_0^0.5 (1 - e^{-L/(32 d^4)}) (Lemma C.15); ``c108_factor``: 1 -
  1/(32 d^4) (Eq. (C.108); defined torch-free in ``jacobian_theorem_judges``).
- ``ce_logit_gradient``, ``mse_softmax_logit_gradient``: per-sample gradients w.r.t. the logits of
  Lemma C.11 (Eq. (C.140)-(C.149)), both <= 2 in norm (CE: <= sqrt(2)).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from ...engine.gram_isometry import check_samples
from .jacobian_theorem_spec import c108_factor

__all__ = [
    "bn_jacobian",
    "bn_jacobian_norm",
    "c13_bound",
    "c14_bound",
    "c14_proof_bound",
    "c15_bound",
    "c17_bound",
    "c108_factor",
    "ce_logit_gradient",
    "critical_gap",
    "hitting_time",
    "log_bn_jacobian_norm",
    "mse_softmax_logit_gradient",
    "row_jacobian",
    "trace_normalize",
]


def _rows(x: Tensor) -> Tensor:
    """The row norms ||X_i.|| of x, shape (..., d, n) -> (..., d)."""
    check_samples(x)
    return torch.linalg.vector_norm(x, dim=-1)


def row_jacobian(x: Tensor) -> Tensor:
    """J_f(x) = I/||x|| - x x^T/||x||^3 of f(x) = x/||x||, Thesis Lemma C.18, Eq. (C.131).

    Args:
        x: shape (..., n), nonzero.
    Returns:
        shape (..., n, n), symmetric; eigenvalues 1/||x|| (n - 1 times) and 0 (Cor. C.19).
    """
    if x.dim() < 1 or x.shape[-1] < 1:
        raise ValueError(f"x must have shape (..., n), got {tuple(x.shape)}")
    r = torch.linalg.vector_norm(x, dim=-1)[..., None, None]
    eye = torch.eye(x.shape[-1], dtype=x.dtype, device=x.device)
    return eye / r - x[..., :, None] * x[..., None, :] / r**3


def bn_jacobian(x: Tensor) -> Tensor:
    """J_BN(X) of ``ops.bn_unit`` (Eq. (6.4)) in row-major vec: block-diagonal with blocks
    J_f(X_i.) (Thesis Eq. (C.136)-(C.137)). Shape (..., d, n) -> (..., d n, d n)."""
    _rows(x)
    d, n = x.shape[-2:]
    blocks = row_jacobian(x)  # (..., d, n, n)
    eye = torch.eye(d, dtype=x.dtype, device=x.device)
    full = eye[:, None, :, None] * blocks[..., :, :, None, :]  # (..., d, n, d, n)
    return full.reshape(*x.shape[:-2], d * n, d * n)


def bn_jacobian_norm(x: Tensor) -> Tensor:
    """||J_BN(X)||_op = max_i 1/||X_i.|| = 1/min_i ||X_i.||, Thesis Eq. (C.138)-(C.139).

    Shape (..., d, n) -> (...)."""
    return 1.0 / _rows(x).amin(-1)


def log_bn_jacobian_norm(x: Tensor) -> Tensor:
    """log ||J_BN(X)||_op = -log min_i ||X_i.||, shape (..., d, n) -> (...)."""
    return -_rows(x).amin(-1).log()


def trace_normalize(x: Tensor) -> Tensor:
    """x scaled so that tr(x^T x) = ||x||_F^2 = d (rows of mean square norm 1): the convention of
    Thesis Lemmas C.13 and C.17 (sum_k lambda_k = d). Invariant under orthogonal W: H = W BN(X)
    already has it. Shape (..., d, n)."""
    _rows(x)
    d = x.shape[-2]
    return x * torch.sqrt(d / x.square().sum((-2, -1), keepdim=True))


def critical_gap(d: int) -> float:
    """psi threshold 1/(16 d) of Lemmas C.9, C.13, C.17 and the hitting time (C.86)."""
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d}")
    return 1.0 / (16 * d)


def c17_bound(psi: Tensor, d: int) -> tuple[Tensor, Tensor]:
    """Lemma C.17 (and C.13 via C.16): bounds on -log lambda_d of a trace-normalized Gram.

    Returns:
        (d psi + 1, 2 sqrt(d psi) where psi <= 1/(16 d), else +inf), each shaped as psi.
    """
    general = d * psi + 1.0
    small = torch.where(psi <= critical_gap(d), 2.0 * torch.sqrt(d * psi), math.inf)
    return general, small


def c13_bound(psi: Tensor, d: int) -> Tensor:
    """The tighter of Lemma C.13's two bounds on log ||J_BN(X)||_op (Eq. (C.84)-(C.85))."""
    general, small = c17_bound(psi, d)
    return torch.minimum(general, small)


def hitting_time(psi_path: Tensor, d: int) -> Tensor:
    """S = min{l : psi(X^l) <= 1/(16 d)}, Thesis Eq. (C.86), along the last axis (layer 0 first).

    Args:
        psi_path: psi(X^0), psi(X^1), ..., shape (..., L + 1).
    Returns:
        S as float, +inf where the threshold is never reached (censored at L).
    """
    if psi_path.dim() < 1 or psi_path.shape[-1] < 1:
        raise ValueError(f"psi_path must have shape (..., L + 1), got {tuple(psi_path.shape)}")
    below = psi_path <= critical_gap(d)
    first = below.to(torch.int64).argmax(-1).to(psi_path.dtype)
    return torch.where(below.any(-1), first, math.inf)


def c14_bound(psi0: Tensor, d: int) -> Tensor:
    """Lemma C.14 as stated: E[S] <~ 512 d^4 psi_0^2 if psi_0 > 1/(16 d), else 0 (Eq. (C.119))."""
    return torch.where(psi0 > critical_gap(d), 512.0 * d**4 * psi0**2, 0.0)


def c14_proof_bound(psi0: Tensor, d: int) -> Tensor:
    """The proof's explicit bound E[S] <= 16 d psi_0 max(2 d^2, 32 d^3 psi_0) (Eq. (C.118))."""
    k = torch.clamp(32.0 * d**3 * psi0, min=2.0 * d**2)
    return torch.where(psi0 > critical_gap(d), 16.0 * d * psi0 * k, 0.0)


def c15_bound(psi0: Tensor, d: int, depth: int) -> Tensor:
    """Lemma C.15: sum_{l > S} E sqrt(d psi(X^l)) <= 32 d^4.5 psi_0^0.5 (1 - exp(-L/(32 d^4)))."""
    return 32.0 * d**4.5 * psi0.sqrt() * (-math.expm1(-depth / (32.0 * d**4)))


def _probs(z: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    if z.dim() < 1 or y.shape != z.shape[:-1]:
        raise ValueError(
            f"z must be (..., C) and y (...) class indices, got {tuple(z.shape)}, {tuple(y.shape)}"
        )
    onehot = torch.nn.functional.one_hot(y, z.shape[-1]).to(z.dtype)
    return torch.softmax(z, -1), onehot


def ce_logit_gradient(z: Tensor, y: Tensor) -> Tensor:
    """grad_z of -log softmax(z)_y = softmax(z) - onehot(y), Thesis Eq. (C.146). (..., C)."""
    p, onehot = _probs(z, y)
    return p - onehot


def mse_softmax_logit_gradient(z: Tensor, y: Tensor) -> Tensor:
    """grad_z of (1/C) sum_i (y_i - p_i)^2 with p = softmax(z): (2/C) (diag(p) - p p^T)(p - y),
    Thesis Eq. (C.148) (the softmax Jacobian is symmetric). Shape (..., C)."""
    p, onehot = _probs(z, y)
    r = p - onehot
    return (2.0 / z.shape[-1]) * (p * r - p * (p * r).sum(-1, keepdim=True))
