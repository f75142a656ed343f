"""Metrics of a representation H, batched over leading dimensions (runs, widths).

All take ``h`` of shape (..., d, n) (rows neurons, columns samples) and return one value per
leading index, in h's dtype and on h's device. Spectral quantities use the smaller of the two
Gram matrices (n x n when n < d): the nonzero eigenvalues of H H^T and H^T H coincide.

Seed sections: Dan+20 footnote 2 (``numerical_rank``), Eq. (3) (``soft_rank``), Eq. (4)
(``rank_lower_bound``), Eq. (43) (``frobenius_drift``), Eq. (46)/(77) (``trace_m_cubed``,
``trace_diag_m2_squared``); DJB21 Eq. (2) = Thesis Eq. (2.2) (``orthogonality_gap``), DJB21
Fig. 1 (``abs_cosine``); Dan+20 Prop. 19, Fig. 10 (``mean_abs_cosine``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from .ops import second_moment
from .trace_identities import frobenius_drift_from_traces

__all__ = [
    "RANK_RTOL_PER_DIM",
    "abs_cosine",
    "frobenius_drift",
    "mean_abs_cosine",
    "frobenius_drift_from_traces",
    "frobenius_m_squared",
    "gram_eigenvalues",
    "numerical_rank",
    "orthogonality_gap",
    "rank_gap",
    "rank_lower_bound",
    "singular_values",
    "smallest_singular_value",
    "soft_rank",
    "spectral_norm",
    "spectral_statistics",
    "trace_diag_m2_squared",
    "trace_m_cubed",
]

RANK_RTOL_PER_DIM = 1e-7
"""Dan+20 footnote 2: singular values below sigma_max * d * 1e-7 count as zero."""


def _small_gram(h: Tensor) -> Tensor:
    """The smaller of H^T H (n x n) and H H^T (d x d); same nonzero spectrum."""
    return h.mT @ h if h.shape[-1] <= h.shape[-2] else h @ h.mT


def gram_eigenvalues(h: Tensor) -> Tensor:
    """Eigenvalues of M(H) = H H^T / N (Dan+20 Eq. (2)), descending, zeros omitted past min(d, n).

    Returns:
        shape (..., min(d, n)); equals sigma_i(H)^2 / N, the lambda_i of Dan+20 Eq. (15).
    """
    n = h.shape[-1]
    return torch.linalg.eigvalsh(_small_gram(h) / n).flip(-1)


def numerical_rank(h: Tensor, rtol_per_dim: float = RANK_RTOL_PER_DIM) -> Tensor:
    """Numerical rank: #{i : sigma_i(H) > sigma_max(H) * max(d, n) * 1e-7}, Dan+20 footnote 2.

    The seed describes ``torch.matrix_rank``, whose rule is sigma_max * d * 1e-7; we fix the
    1e-7 rather than use the dtype's epsilon so float32 and float64 runs count alike (our
    choice). For d = n this is exactly the footnote's rule.

    Args:
        h: shape (..., d, n).
    Returns:
        integer-valued tensor of shape (...), in h's dtype, between 1 and min(d, n) for h != 0.
    """
    sigma = torch.linalg.svdvals(h)
    tol = sigma[..., :1] * max(h.shape[-2:]) * rtol_per_dim
    return (sigma > tol).sum(dim=-1).to(h.dtype)


def soft_rank(h: Tensor, tau: float) -> Tensor:
    """rank_tau(H) = sum_i 1(sigma_i^2 / N >= tau), Dan+20 Eq. (3) (= h_tau(lambda), Eq. (15)).

    On BN states (Tr M = d) it counts eigenvalues of M at least tau times their mean, and
    rank_tau(H) >= (1 - tau)^2 r(H) (Dan+20 Lemma 1).

    Args:
        h: shape (..., d, n).
        tau: threshold in [0, 1]; with tau = 0 round-off negatives are clipped first.
    """
    if not 0.0 <= tau:
        raise ValueError(f"tau must be >= 0, got {tau}")
    lam = gram_eigenvalues(h).clamp_min(0.0)
    count = (lam >= tau).sum(dim=-1)
    if tau == 0.0:  # eigenvalues beyond min(d, n) are exactly zero and count as well
        count = count + max(h.shape[-2] - h.shape[-1], 0)
    return count.to(h.dtype)


def rank_lower_bound(h: Tensor) -> Tensor:
    """r(H) = Tr(M)^2 / ||M||_F^2 with M = H H^T / N, Dan+20 Eq. (4).

    The participation ratio of the eigenvalues of M (not the usual stable rank):
    1 <= r(H) <= rank(H) (Dan+20 Lemma 1); scale invariant; d^2 / ||M||_F^2 on BN states
    (Eq. (41)).

    Args:
        h: shape (..., d, n).
    """
    gram = _small_gram(h)
    trace = gram.diagonal(dim1=-2, dim2=-1).sum(-1)
    return trace.square() / gram.square().sum(dim=(-2, -1))


def orthogonality_gap(h: Tensor) -> Tensor:
    """V(H) = || H^T H / ||H||_F^2 - I_n / n ||_F, DJB21 Eq. (2) (Thesis Eq. (2.2)).

    Zero iff the n samples are orthogonal with equal norms; at most sqrt((n - 1) / n), attained
    by rank-one H. Scale invariant.

    Args:
        h: shape (..., d, n); columns are the n samples.
    Returns:
        V(H), shape (...).
    """
    n = h.shape[-1]
    gram = h.mT @ h
    gram = gram / gram.diagonal(dim1=-2, dim2=-1).sum(-1)[..., None, None]
    eye = torch.eye(n, dtype=h.dtype, device=h.device)
    return torch.linalg.matrix_norm(gram - eye / n)


def abs_cosine(h: Tensor, i: int = 0, j: int = 1) -> Tensor:
    """|cos(h_i, h_j)| = |<h_i, h_j>| / (||h_i|| ||h_j||) of two samples (columns), DJB21 Fig. 1.

    Args:
        h: shape (..., d, n) with n > max(i, j).
    Returns:
        shape (...), in [0, 1].
    """
    a, b = h[..., :, i], h[..., :, j]
    return (a * b).sum(-1).abs() / (a.norm(dim=-1) * b.norm(dim=-1))


def mean_abs_cosine(h: Tensor) -> Tensor:
    """Mean |cos(h_i, h_j)| over the distinct pairs i != j of the n columns; pairs with a zero
    column (no direction) are left out, NaN if no pair is left. 1 iff the nonzero columns are
    collinear (Dan+20 Prop. 19: per-sample gradients of a rank-one H_L).

    Args:
        h: shape (..., d, n), n >= 2.
    Returns:
        shape (...), in [0, 1].
    """
    norms = h.norm(dim=-2)
    unit = h / torch.where(norms > 0, norms, 1.0)[..., None, :]
    cos = (unit.mT @ unit).abs()
    n = h.shape[-1]
    off = ~torch.eye(n, dtype=torch.bool, device=h.device)
    valid = off & (norms[..., :, None] > 0) & (norms[..., None, :] > 0)
    return (cos * valid).sum((-2, -1)) / valid.sum((-2, -1))


def frobenius_m_squared(h: Tensor) -> Tensor:
    """||M(H)||_F^2 with M = H H^T / N, Dan+20 Lemma 13 and Fig. 9 (= d^2 / r(H) on BN states)."""
    return _small_gram(h).square().sum(dim=(-2, -1)) / h.shape[-1] ** 2


def trace_m_cubed(h: Tensor) -> Tensor:
    """Tr(M(H)^3) = ||lambda||_3^3, the g_1 of Dan+20 App. E (denominator of alpha, Eq. (46))."""
    gram = _small_gram(h) / h.shape[-1]
    return (gram @ gram * gram).sum(dim=(-2, -1))


def trace_diag_m2_squared(h: Tensor) -> Tensor:
    """Tr(diag(M^2)^2) = sum_i (sum_k M_ik^2)^2, Dan+20 Eq. (77); the g_2 of App. E (Eq. (46)).

    Needs the d x d matrix M (squared row norms of M), no eigendecomposition.
    """
    return second_moment(h).square().sum(dim=-1).square().sum(dim=-1)


def frobenius_drift(h: Tensor) -> Tensor:
    """delta_F(M) = 2 d^2 - 2 ||M||_F^2 - 8 Tr(M^3) + 8 Tr(diag(M^2)^2), Dan+20 Eq. (43).

    The leading term of (E_W ||M_+||_F^2 - ||M||_F^2) / gamma^2 for one BN layer (Lemma 7);
    its average under the invariant law is O(gamma) (Eq. (52)).
    """
    return frobenius_drift_from_traces(
        h.shape[-2], frobenius_m_squared(h), trace_m_cubed(h), trace_diag_m2_squared(h)
    )


def spectral_statistics(h: Tensor, taus: list[float], top: int = 0) -> dict[str, Tensor]:
    """The rank and moment statistics of M(H) that Dan+20 Figs. 3, 8 and 9 average over layers.

    One eigendecomposition serves every tau: ``soft_rank_<tau>`` (Eq. (3)) for each tau,
    ``rank_lower_bound`` r(H) (Eq. (4)), ``trace_m_cubed`` and ``trace_diag_m2_squared`` (the g_1
    and g_2 of the regularity constant, Eq. (46)), ``frobenius_m_squared`` (Lemma 13), and with
    ``top`` > 0 the largest singular values of H / sqrt(N), ``sigma_1`` .. ``sigma_<top>``
    (Fig. 3b), i.e. sqrt(lambda_k(M)).

    Args:
        h: shape (..., d, n).
    Returns:
        name -> tensor of shape (...).
    """
    lam = gram_eigenvalues(h).clamp_min(0.0)
    out = {f"soft_rank_{tau:g}": (lam >= tau).sum(-1).to(h.dtype) for tau in taus}
    frobenius = lam.square().sum(-1)
    out["rank_lower_bound"] = lam.sum(-1).square() / frobenius
    out["frobenius_m_squared"] = frobenius
    out["trace_m_cubed"] = lam.pow(3).sum(-1)
    out["trace_diag_m2_squared"] = trace_diag_m2_squared(h)
    for k in range(min(top, lam.shape[-1])):
        out[f"sigma_{k + 1}"] = lam[..., k].sqrt()
    return out


def rank_gap(h: Tensor) -> Tensor:
    """Orthogonality gap on the smaller Gram matrix: V(H) if n <= d, else V(H^T), Eq. (2).

    With k = min(d, n) and p_i = sigma_i^2 / sum_j sigma_j^2 the normalized squared spectrum,
    rank_gap(H)^2 = sum_{i <= k} (p_i - 1/k)^2: the gap of App. E's algebra (DJB21 Eq. (18),
    Thesis Eq. (A.20)), restricted to the k nonzero singular values. Equals ``orthogonality_gap``
    when n <= d; when n > d it discounts the rank floor sqrt((n - d) / (n d)) that Eq. (2) cannot
    go below when rank H <= d < n (our derivation). Zero iff the k nonzero singular
    values are equal.

    Args:
        h: shape (..., d, n).
    """
    return orthogonality_gap(h) if h.shape[-1] <= h.shape[-2] else orthogonality_gap(h.mT)


def singular_values(h: Tensor) -> Tensor:
    """sigma_1 >= ... >= sigma_n of H in R^{d x n} (d >= n) from the n x n Gram, batched.

    Args:
        h: shape (..., d, n) with d >= n.
    Returns:
        shape (..., n), descending; sqrt of the eigenvalues of H^T H (round-off negatives -> 0).
    Raises:
        ValueError: if d < n (H would have fewer than n singular values).
    """
    d, n = h.shape[-2:]
    if d < n:
        raise ValueError(f"need d >= n (DJB21 assumes width >= batch size), got d={d}, n={n}")
    return torch.linalg.eigvalsh(h.mT @ h).flip(-1).clamp_min(0.0).sqrt()


def spectral_norm(a: Tensor) -> Tensor:
    """||A||_op = sigma_max(A), batched over leading dims: sqrt of the largest eigenvalue of the
    smaller Gram matrix.

    LAPACK's SVD (``torch.linalg.matrix_norm(ord=2)``) can fail to converge on a batch of
    singular matrices, as the BN Jacobians of Thesis Lemmas C.16-C.21 at the paper's 300 cases
    did; the symmetric eigenproblem always converges. sigma_max keeps a relative error ~eps.
    """
    return torch.linalg.eigvalsh(_small_gram(a))[..., -1].clamp_min(0.0).sqrt()


def smallest_singular_value(h: Tensor) -> Tensor:
    """sigma_n(H) for H in R^{d x n}, d >= n: sqrt of the smallest eigenvalue of H^T H, batched.

    Accuracy (||H||_F = 1): the eigenvalue carries an absolute error ~eps, so sigma_n near a
    value t has relative error ~eps / (2 t^2), and values below ~sqrt(eps) (1.5e-8 in float64,
    3.5e-4 in float32) are noise; the chain's own Gram square root (``chains.gram_sqrt``) has
    the same floor. ``a1_grid`` warns where threshold * alpha_0 < 10 sqrt(eps) (error > 0.5%).

    Returns:
        shape (...) for h of shape (..., d, n), in h's dtype.
    Raises:
        ValueError: if d < n (then sigma_n(H) = 0 for every H; DJB21 assumes d >= n).
    """
    return singular_values(h)[..., -1]
