"""Isometry-gap decay of the BN chain with Haar weights, Thesis ch. 6 and app. C.1-C.2.

Definitions used by Fig. 6.1 (Thm. 6.1) and the lemma checks (Thesis Sec. 6.2, app. C.1-C.2).
Layout: X is d x n with n = d, rows are features; BN is ``ops.bn_unit`` (Thesis Eq. (6.4)),
so a BN output has unit rows and trace(X X^T) = d. psi = -log I is Thesis Eq. (6.5), computed by
``bn_mlp.representation_gap`` (eigenvalues of the sample Gram, float64).

- ``rotation_factor``: 1 - sum_k (lambda_k - 1)^2 / (2 d^2 (d + 2)) of Thm. 6.3 / C.4 (Eq. (6.8),
  (C.13)) and Cor. 6.4 / C.6 (Eq. (6.9), (C.40)).
- ``sigma_lambda``: (1/d) sum_k eps_k^2, lambda_k = 1 + eps_k, Eq. (C.51).
- ``proof_rate``: k = max(2 d^2, 32 d^3 psi_0) of the proof of Thm. 6.1 (Eq. (C.72)-(C.75)).
- ``authors_rate``: k = C d^2 (1 + d psi_0) of Eq. (6.6) with the authors' plotted C = 0.015
  (defined torch-free in ``isometry_chain_judges``, as is ``proof_rate``).
- ``weingarten_e1``, ``weingarten_e2``: E[W_ik^2 W_jq^2] (k != q) and E[W_ik^2 W_jk^2], i != j,
  for Haar W on O(d), Eq. (C.29)-(C.31).
- ``near_identity_input``: the Fig. 6.1 input (1 - f) I + f u v^T, u, v ~ U[0, 1]^d.
- ``bn_haar_chain``: psi(X_l), l = 0..L, of X_{l+1} = BN(W_l X_l), Eq. (6.3), batched over runs.
- ``haar_step``: psi and I of BN(W X) for many Haar W at fixed X (the Monte Carlo of Thm. 6.3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor

from ...engine import gram_isometry, ops, seeding, stats
from ...nets.initializations import haar_from_gaussian, haar_weights
from . import bn_mlp
from .isometry_chain_spec import AUTHORS_C, authors_rate, proof_rate

__all__ = [
    "AUTHORS_C",
    "authors_rate",
    "bn_haar_chain",
    "fitted_rate",
    "haar_batch",
    "haar_step",
    "isometry_of",
    "near_identity_input",
    "normalized_eigenvalues",
    "proof_rate",
    "rotation_factor",
    "sigma_lambda",
    "weingarten_e1",
    "weingarten_e2",
]


def normalized_eigenvalues(x: Tensor) -> Tensor:
    """Eigenvalues of X X^T scaled to sum d (= those of a BN output), ascending, shape (..., d)."""
    gram_isometry.check_samples(x)
    lam = torch.linalg.eigvalsh(x @ x.mT)
    return lam * (lam.shape[-1] / lam.sum(-1, keepdim=True))


def rotation_factor(lam: Tensor) -> Tensor:
    """1 - sum_k (lambda_k - 1)^2 / (2 d^2 (d + 2)), Thesis Eq. (6.8)/(C.13), in (0, 1].

    Args:
        lam: eigenvalues of X X^T for X = BN(.), i.e. summing to d, shape (..., d).
    """
    d = lam.shape[-1]
    return 1.0 - (lam - 1.0).square().sum(-1) / (2.0 * d * d * (d + 2))


def sigma_lambda(lam: Tensor) -> Tensor:
    """sigma_lambda = (1/d) sum_k eps_k^2 with lambda_k = 1 + eps_k, Thesis Eq. (C.51)."""
    return (lam - 1.0).square().mean(-1)


def weingarten_e1(d: int) -> float:
    """E[W_ik^2 W_jq^2] = (d + 1) / (d (d + 2) (d - 1)), i != j, k != q (Wg^O([1, 1])), (C.29)."""
    if d < 2:
        raise ValueError(f"d must be >= 2, got {d}")
    return (d + 1) / (d * (d + 2) * (d - 1))


def weingarten_e2(d: int) -> float:
    """E[W_ik^2 W_jk^2] = Wg^O([1,1]) + 2 Wg^O([2]) = 1 / (d (d + 2)), i != j, Eq. (C.29)-(C.31)."""
    if d < 2:
        raise ValueError(f"d must be >= 2, got {d}")
    return 1.0 / (d * (d + 2))


def near_identity_input(
    d: int,
    fraction: float,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
) -> Tensor:
    """X_0 = (1 - f) I_d + f u v^T, u, v ~ U[0, 1]^d: the "randomly generated data" of Fig. 6.1
    (authors' notebook for Fig. 6.1, f = 0.005). Shape (d, d)."""
    if d < 1 or not 0.0 <= fraction < 1.0:
        raise ValueError(f"need d >= 1 and 0 <= fraction < 1, got d={d}, fraction={fraction}")
    u = torch.rand(d, 1, generator=generator, dtype=dtype).to(device)
    v = torch.rand(d, 1, generator=generator, dtype=dtype).to(device)
    return (1.0 - fraction) * torch.eye(d, dtype=dtype, device=device) + fraction * (u @ v.mT)


def bn_haar_chain(x0: Tensor, depth: int, experiment_id: str, runs: Sequence[int]) -> Tensor:
    """psi(X_l) for l = 0..depth of X_{l+1} = BN(W_l X_l), W_l Haar on O(d), Thesis Eq. (6.3).

    Identity activation, theory BN (``ops.bn_unit``). psi(W_l X_l) = psi(X_l) (Lemma 6.2), so
    this is also psi of the authors' ``fc_l`` outputs. Run r's weights come from
    ``seeding.generator(experiment_id, r, "weights")``, layer after layer.

    Args:
        x0: the input, shape (d, n), shared by all runs.
    Returns:
        shape (runs, depth + 1), x0's dtype.
    """
    if x0.dim() != 2 or depth < 0 or not runs:
        raise ValueError(
            f"need x0 (d, n), depth >= 0 and runs, got {tuple(x0.shape)}, {depth}, {runs}"
        )
    d = x0.shape[0]
    gens = seeding.generators(experiment_id, list(runs), "weights")
    x = x0.expand(len(runs), *x0.shape)
    gaps = [bn_mlp.representation_gap(x)]
    for _ in range(depth):
        w = haar_weights(gens, d, d, x0.dtype, x0.device)
        x = ops.bn_unit(w @ x)
        gaps.append(bn_mlp.representation_gap(x))
    return torch.stack(gaps, dim=-1)


def haar_step(x: Tensor, draws: int, generator: torch.Generator) -> dict[str, Tensor]:
    """One BN layer with ``draws`` independent Haar W at fixed X: psi' and I' of BN(W X).

    Args:
        x: shape (d, n).
    Returns:
        ``psi``, ``isometry``: shape (draws,).
    """
    if x.dim() != 2 or draws < 2:
        raise ValueError(f"need x (d, n) and draws >= 2, got {tuple(x.shape)}, {draws}")
    d = x.shape[0]
    w = haar_batch(draws, d, generator, x.dtype, x.device)
    psi = bn_mlp.representation_gap(ops.bn_unit(w @ x))
    return {"psi": psi, "isometry": torch.exp(-psi)}


def haar_batch(
    count: int, d: int, generator: torch.Generator, dtype=torch.float64, device="cpu"
) -> Tensor:
    """``count`` Haar orthogonal d x d matrices from one generator (QR with sign fix, as
    ``nets.initializations.haar_weights``). Shape (count, d, d)."""
    g = torch.randn(count, d, d, generator=generator, dtype=dtype).to(device)
    return haar_from_gaussian(g)


def fitted_rate(layers: Tensor, mean_gap: Tensor) -> float:
    """k of mean psi_l ~ a e^{-l / k}: -1 / (``stats.ols_slope`` of log mean psi on l)."""
    slope = stats.ols_slope(layers.double().cpu().numpy(), mean_gap.double().log().cpu().numpy())
    return -1.0 / slope.value if slope.value != 0 else math.inf


def isometry_of(x: Tensor) -> Tensor:
    """I(X) = exp(-psi(X)), Thesis Eq. (6.5); shape (...)."""
    return gram_isometry.isometry(gram_isometry.gram(x))
