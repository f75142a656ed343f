"""Isometry of Gram matrices, Thesis ch. 4 (Joudaki 2024; JDB23b).

Seed sections: Thesis Eq. (4.1) (``gram``), Definition 4.1 / Eq. (4.2) (``isometry``) and the
isometry gap -log I (``isometry_gap``; Thesis Eq. (6.5) restates it), the norm-variation factor
of Thm. 4.3 / Eq. (4.3) (``norm_variation``), the AM/GM ratio of its exact form
(``am_over_gm``), and the parallelepipeds of Fig. 4.1 (``parallelogram``,
``parallelepiped_faces``, ``parallelepiped_isometry``). The normalizations of Cor. 4.4 and 4.5
live in ``sigprop.engine.ops`` (``ln_rms``, ``ln_centered``, ``bn_rms``, ``bn_centered``).

Layout as everywhere in sigprop: samples are the columns of x, shape (..., d, n).
"""

from __future__ import annotations

import itertools
import math

import pandas as pd
import torch
from torch import Tensor

__all__ = [
    "am_over_gm",
    "check_samples",
    "example_table",
    "gram",
    "isometry",
    "isometry_gap",
    "weight_isometry_gap",
    "norm_variation",
    "parallelepiped_faces",
    "parallelepiped_isometry",
    "parallelogram",
]


def check_samples(x: Tensor) -> None:
    """Raise unless x is a batch of samples as columns, shape (..., d, n)."""
    if x.dim() < 2:
        raise ValueError(f"x must have shape (..., d, n), got {tuple(x.shape)}")


def gram(x: Tensor) -> Tensor:
    """Gram matrix G = [<x_i, x_j>]_{i,j <= n} of the n columns of x, Thesis Eq. (4.1).

    Args:
        x: shape (..., d, n); column i is the sample x_i in R^d.
    Returns:
        G = x^T x, shape (..., n, n). For Cor. 4.5 pass x^T to get C = X X^T.
    """
    check_samples(x)
    return x.mT @ x


def isometry_gap(m: Tensor, rtol: float | None = None) -> Tensor:
    """Isometry gap -log I(M) = log((1/n) sum_i lambda_i) - (1/n) sum_i log lambda_i, Thesis
    Def. 4.1 / Eq. (4.2) (Eq. (6.5)); in [0, inf], 0 iff M is proportional to I_n.

    Computed from the eigenvalues of the symmetric PSD M in log space (no determinant, so no
    overflow or underflow for large n). M is singular, gap = inf, when its smallest eigenvalue
    is at most ``rtol`` * lambda_max (or M = 0).

    Args:
        m: shape (..., n, n), symmetric positive semi-definite.
        rtol: relative eigenvalue threshold of singularity; default n * eps of m's dtype (the
            rank rule of ``torch.linalg.matrix_rank``): eigenvalues of an exactly singular M come
            out of the eigensolver as |lambda| <~ n eps lambda_max, not 0.
    Returns:
        shape (...), m's dtype and device.
    Note:
        The thesis's Lemma 4.2 says I = 1 iff M = I_n; by the lemma's own scale invariance
        (property 1) it is iff M = c I_n (our reading).
    """
    if m.dim() < 2 or m.shape[-1] != m.shape[-2] or m.shape[-1] < 1:
        raise ValueError(f"m must be a batch of square matrices (..., n, n), got {tuple(m.shape)}")
    n = m.shape[-1]
    if rtol is None:
        rtol = n * torch.finfo(m.dtype).eps
    if rtol < 0:
        raise ValueError(f"rtol must be >= 0, got {rtol}")
    lam = torch.linalg.eigvalsh(m)  # ascending
    top = lam[..., -1:]
    singular = (lam[..., 0] <= rtol * top[..., 0]) | (top[..., 0] <= 0)
    safe = torch.where(singular[..., None], torch.ones_like(lam), lam / top.clamp_min(1e-300))
    gap = safe.mean(-1).log() - safe.log().mean(-1)
    return torch.where(singular, torch.full_like(gap, math.inf), gap)


def weight_isometry_gap(w: Tensor) -> Tensor:
    """Isometry gap of a weight matrix, Thesis Fig. 6.6a / C.3 ("isometry gap of the weight
    matrices"): ``isometry_gap`` of W W^T (rows <= columns) or of W^T W (rows > columns), the
    Gram of the smaller side, whose eigenvalues are the squared singular values of W.

    0 (to round-off) iff W is a multiple of a (semi-)orthogonal matrix, > 0 otherwise; inf if W
    is rank-deficient. The authors' ``get_measurements`` applies the gap to W W^T of every layer;
    for their square hidden layers and wide first and last layers that is the smaller side too.

    Args:
        w: shape (..., rows, cols).
    Returns:
        shape (...).
    """
    if w.dim() < 2:
        raise ValueError(f"w must have shape (..., rows, cols), got {tuple(w.shape)}")
    return isometry_gap(w @ w.mT if w.shape[-2] <= w.shape[-1] else w.mT @ w)


def isometry(m: Tensor, rtol: float | None = None) -> Tensor:
    """Isometry I(M) = det(M)^{1/n} / (tr(M) / n) = GM / AM of the eigenvalues, Thesis Def. 4.1,
    Eq. (4.2). exp(-``isometry_gap``): in [0, 1], 1 iff M = c I_n, 0 iff M singular (Lemma 4.2).

    Args:
        m: shape (..., n, n), symmetric positive semi-definite.
        rtol: singularity threshold, see ``isometry_gap``.
    Returns:
        shape (...).
    """
    return torch.exp(-isometry_gap(m, rtol))


def norm_variation(a: Tensor) -> Tensor:
    """1 + var(a) / mean(a)^2 with the population variance (1/n), the factor of Thesis Thm. 4.3,
    Eq. (4.3) (and Cor. 4.4, 4.5); equals mean(a^2) / mean(a)^2 >= 1.

    Args:
        a: positive norms, shape (..., n).
    Returns:
        shape (...).
    """
    mean = a.mean(-1)
    return 1.0 + a.var(-1, correction=0) / mean.square()


def am_over_gm(v: Tensor) -> Tensor:
    """Arithmetic over geometric mean of positive values, mean(v) / exp(mean(log v)) >= 1.

    The exact form of Thesis Thm. 4.3: I(G~) / I(G) = AM(a^2) / GM(a^2)
    = (1 + var(a) / abar^2) (AM(a) / GM(a))^2 (our derivation from the proof of Thm. 4.3:
    Eq. (4.5) is AM(a^2) / GM(a^2), and the step from Eq. (4.6) to (4.7) drops the factor
    (AM(a) / GM(a))^2 >= 1).

    Args:
        v: shape (..., n), positive.
    Returns:
        shape (...).
    """
    return v.mean(-1) / v.log().mean(-1).exp()


def parallelogram(a: float, b: float, theta: float) -> Tensor:
    """The two vectors of Thesis Fig. 4.1 (n = 2): x_1 = (a, 0), x_2 = b (cos theta, sin theta).

    Their isometry is 2 a b sin(theta) / (a^2 + b^2) (the thesis prints a b sin(theta) /
    (a^2 + b^2), the volume-to-scale ratio, = I / 2; both peak at a = b, theta = pi / 2).

    Returns:
        shape (2, 2), the columns are x_1 and x_2 (sigprop's (d, n) layout).
    """
    if a <= 0 or b <= 0:
        raise ValueError(f"the lengths a, b must be > 0, got {a}, {b}")
    return torch.tensor([[a, b * math.cos(theta)], [0.0, b * math.sin(theta)]], dtype=torch.float64)


def parallelepiped_faces(x: Tensor) -> Tensor:
    """The 2-faces of the parallelepiped spanned by the columns of x (Thesis Fig. 4.1).

    The face spanned by x_i, x_j (i < j) at offset sum_{k in S} x_k, S a subset of the other
    columns, has corners o, o + x_i, o + x_i + x_j, o + x_j; there are C(n, 2) 2^(n-2) faces.

    Args:
        x: shape (d, n), n >= 2.
    Returns:
        shape (faces, 4, d): each face's corners in drawing order.
    """
    if x.dim() != 2 or x.shape[-1] < 2:
        raise ValueError(f"x must have shape (d, n) with n >= 2, got {tuple(x.shape)}")
    n = x.shape[-1]
    faces = []
    for i, j in itertools.combinations(range(n), 2):
        others = [k for k in range(n) if k not in (i, j)]
        for r in range(len(others) + 1):
            for subset in itertools.combinations(others, r):
                o = x[:, list(subset)].sum(-1)
                xi, xj = x[:, i], x[:, j]
                faces.append(torch.stack([o, o + xi, o + xi + xj, o + xj]))
    return torch.stack(faces)


def parallelepiped_isometry(x: Tensor) -> Tensor:
    """I(G) of the columns of x (Eq. (4.1), (4.2)): what Fig. 4.1 annotates. Shape (...)."""
    return isometry(gram(x))


def example_table(
    labels: list[str],
    parallelograms: list[list[float]],
    parallelepipeds: list[list[list[float]]],
) -> pd.DataFrame:
    """The examples of Thesis Fig. 4.1 with their isometry I(G) (Eq. (4.1), (4.2)), long format.

    Args:
        labels: one name per example column of the figure.
        parallelograms: per label (a, b, theta in degrees): n = 2 vectors (``parallelogram``).
        parallelepipeds: per label three vectors in R^3: n = 3.
    Returns:
        one row per (example, vector): label, n, vector, x, y, z, norm, isometry, and for n = 2
        the a, b, theta_deg it was built from.
    """
    if not len(labels) == len(parallelograms) == len(parallelepipeds):
        raise ValueError(
            f"need one parallelogram and one parallelepiped per label, got {len(labels)} labels, "
            f"{len(parallelograms)} parallelograms, {len(parallelepipeds)} parallelepipeds"
        )
    rows = []
    for label, (a, b, theta), vectors in zip(labels, parallelograms, parallelepipeds, strict=True):
        x2 = torch.cat(
            [parallelogram(a, b, math.radians(theta)), torch.zeros(1, 2, dtype=torch.float64)]
        )
        x3 = torch.tensor(vectors, dtype=torch.float64).T
        if x3.shape != (3, 3):
            raise ValueError(f"a parallelepiped needs three vectors in R^3, got {vectors}")
        for n, x, extra in ((2, x2, dict(a=a, b=b, theta_deg=theta)), (3, x3, {})):
            value = parallelepiped_isometry(x).item()
            for i in range(n):
                rows.append(
                    dict(
                        label=label, n=n, vector=i, x=x[0, i].item(), y=x[1, i].item(),
                        z=x[2, i].item(), norm=torch.linalg.vector_norm(x[:, i]).item(),
                        isometry=value, **extra,
                    )
                )  # fmt: skip
    return pd.DataFrame(rows)
