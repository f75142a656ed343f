"""Wasserstein-2 distance of W H to the isotropic Gaussian G / sqrt(n), DJB21 Sec. 4 (Thesis 2.3).

DJB21 Eq. (4) (Thesis Eq. (2.4)) compares law(W_l H_l), W_l with i.i.d. N(0, 1/d) entries, with
law(G / sqrt(n)), G in R^{d x n} i.i.d. N(0, 1/d), under the Frobenius cost on R^{d x n}. The
paper gives only the upper bound of Lemma 2; here are the computable ends of the sandwich
(our derivation):

- ``conditional_w2_squared``: given H, the rows of W H are i.i.d. N(0, C / d) with C = H^T H and
  those of G / sqrt(n) are i.i.d. N(0, I / (d n)); the Gaussian (Bures) formula gives exactly
  W2^2(law(W H | H), law(G / sqrt n)) = tr C + 1 - (2 / sqrt n) tr C^{1/2}
  = sum_i (sigma_i(H) - 1 / sqrt n)^2, so the coupling of the proof (App. D) is optimal given H.
  Its mean over H is an upper bound on the unconditional W2^2 (convexity of W2^2 in mixtures).
- ``gelbrich_lower_bound``: any law with covariance Cov(vec W H) = I_d (x) E[C] / d is at W2^2 >=
  the Gaussian W2^2 of the covariances (Gelbrich), sum_i (sqrt(lambda_i(E C)) - 1 / sqrt n)^2.

By concavity of tr C^{1/2}, lower bound <= upper bound, also for empirical averages over runs,
and the proof of Lemma 2 continues upper bound <= n E[V^2] <= 2 n E[V] for unit-Frobenius H.

The right-hand sides of Theorem 1 (Eq. (3)) and Corollary 3 (Eq. (5)) take the constant alpha of
Assumption A_1(alpha, l); ``running_alpha_hat`` is its empirical reading (our reading of
DJB21 Thm. 1).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from ...engine.metrics import singular_values

__all__ = [
    "bures_w2_squared",
    "conditional_w2_squared",
    "corollary3_rhs",
    "exchangeable_mean_gram",
    "gelbrich_lower_bound",
    "running_alpha_hat",
    "theorem1_rhs",
]


def _gram_singular_values(gram: Tensor) -> Tensor:
    return torch.linalg.eigvalsh(gram).flip(-1).clamp_min(0.0).sqrt()


def conditional_w2_squared(h: Tensor) -> Tensor:
    """W2^2(law(W H | H), law(G / sqrt n)) = sum_i (sigma_i(H) - 1 / sqrt n)^2, exact.

    DJB21 Eq. (4) (Thesis Eq. (2.4)) given H: the Bures formula for the two Gaussian laws (module
    docstring; our derivation). It holds for every H with d >= n; for
    unit-Frobenius H (DJB21 Eq. (10)) it equals 1 + 1 - (2 / sqrt n) sum_i sigma_i. Invariant
    under H -> Q H P for orthogonal Q (d x d) and P (n x n).

    Args:
        h: shape (..., d, n), d >= n.
    Returns:
        shape (...).
    """
    n = h.shape[-1]
    return (singular_values(h) - 1.0 / math.sqrt(n)).square().sum(-1)


def gelbrich_lower_bound(mean_gram: Tensor) -> Tensor:
    """Gelbrich lower bound on the unconditional W2^2: sum_i (sqrt(lambda_i(E C)) - 1/sqrt n)^2.

    W2^2(law(W H), law(G / sqrt n)) >= the Gaussian W2^2 between the covariances
    I_d (x) E[C] / d and I_d (x) I_n / (d n) (our derivation).

    Args:
        mean_gram: E[C] = E[H^T H], shape (..., n, n), symmetric positive semi-definite.
    Returns:
        shape (...).
    """
    n = mean_gram.shape[-1]
    if mean_gram.shape[-2] != n:
        raise ValueError(f"mean_gram must be square (..., n, n), got {tuple(mean_gram.shape)}")
    return (_gram_singular_values(mean_gram) - 1.0 / math.sqrt(n)).square().sum(-1)


def exchangeable_mean_gram(mean_offdiagonal: Tensor, n: int) -> Tensor:
    """E[C] = (1/n - c) I_n + c 1 1^T for an exchangeable unit-Frobenius chain, c = E[C_ij], i != j.

    If the law of H_0 is invariant under permuting the n samples, so is the law of every H_l of
    DJB21 Eq. (1) (the chain is equivariant), and E[C_l] has this form; tr C = 1 (Eq. (10)) fixes
    the diagonal at 1/n. Averaging the off-diagonal entries over pairs is then an unbiased,
    lower-variance estimate of E[C] than the entrywise run average.

    Args:
        mean_offdiagonal: c, shape (...).
        n: batch size, >= 2.
    Returns:
        shape (..., n, n).
    """
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    c = mean_offdiagonal[..., None, None]
    eye = torch.eye(n, dtype=mean_offdiagonal.dtype, device=mean_offdiagonal.device)
    return (1.0 / n - c) * eye + c


def bures_w2_squared(a: Tensor, b: Tensor) -> Tensor:
    """W2^2(N(0, A), N(0, B)) = tr A + tr B - 2 tr (A^{1/2} B A^{1/2})^{1/2} (Bures), batched.

    The general formula behind ``conditional_w2_squared`` and ``gelbrich_lower_bound``, by
    eigendecompositions (symmetric PSD inputs); used to test them on small covariances.
    """

    def psd_sqrt(m: Tensor) -> Tensor:
        lam, u = torch.linalg.eigh(m)
        return (u * lam.clamp_min(0.0).sqrt()[..., None, :]) @ u.mT

    root_a = psd_sqrt(a)
    cross = torch.linalg.eigvalsh(root_a @ b @ root_a).clamp_min(0.0).sqrt().sum(-1)
    trace = a.diagonal(dim1=-2, dim2=-1).sum(-1) + b.diagonal(dim1=-2, dim2=-1).sum(-1)
    return trace - 2.0 * cross


def running_alpha_hat(sigma_min: Tensor) -> Tensor:
    """alpha_hat(l) = min over runs and 1 <= k <= max(l, 1) of sigma_n(H_k), Assumption A_1.

    A_1(alpha, l) of DJB21 Thm. 1 (Thesis Thm. 2.1) asks sigma_n(H_k) >= alpha for k = 1..l;
    alpha_hat(l) is the largest alpha for which every simulated run satisfies it. At l = 0 the
    assumption is empty; we use sigma_n(H_1) there (choice; the bound at l = 0 exceeds 2 anyway).

    Args:
        sigma_min: sigma_n(H_k), shape (..., runs, layers) for layers k = 0, 1, ..., L (L >= 1).
    Returns:
        shape (..., layers), non-increasing in l.
    """
    if sigma_min.shape[-1] < 2:
        raise ValueError(f"need layers 0..L with L >= 1, got {sigma_min.shape[-1]} layers")
    per_layer = sigma_min.amin(-2)[..., 1:]
    running = torch.cummin(per_layer, dim=-1).values
    return torch.cat([running[..., :1], running], dim=-1)


def theorem1_rhs(alpha, layer, n: int, d: int):
    """2 (1 - 2 alpha / 3)^l + 3 n / (alpha sqrt d), DJB21 Eq. (3) (Thesis Eq. (2.3)).

    Bounds E[V(H_{l+1})] under A_1(alpha, l). The proof plugs sigma_n^2 >= alpha into Thm. 5, so
    the rigorous reading takes alpha = (lower bound on sigma_n)^2 (our reading of DJB21 Thm. 1).
    Works elementwise on floats, numpy arrays or tensors.
    """
    return 2.0 * (1.0 - 2.0 * alpha / 3.0) ** layer + 3.0 * n / (alpha * math.sqrt(d))


def corollary3_rhs(alpha, layer, n: int, d: int):
    """4 n (1 - 2 alpha / 3)^l + 6 n^2 / (alpha sqrt d), DJB21 Eq. (5) (Thesis Eq. (2.5)).

    Bounds W2^2(law(W_l H_l), law(G / sqrt n)) under A_1(alpha, l): Lemma 2 times Thm. 1. As
    printed the exponent is l, while Thm. 1 at index l - 1 gives l - 1 (one factor looser); we
    draw the printed form. Elementwise, like ``theorem1_rhs``.
    """
    return 4.0 * n * (1.0 - 2.0 * alpha / 3.0) ** layer + 6.0 * n**2 / (alpha * math.sqrt(d))
