"""Mean-field Gram dynamics of a BN-MLP at finite width (Thesis ch. 3 and app. B; JDB23a).

Chain (Thesis Eq. (3.1)): h_{l+1} = W_l phi(BN(h_l)), W_l i.i.d. N(0, 1/d) in R^{d x d},
h_l in R^{d x n} (rows = features, columns = the batch). BN is the *centred* BN of ch. 3,
row-wise over the batch with the 1/n variance and no epsilon (``ops.bn_centered``), so every
row of BN(h) has squared norm exactly n. The Gram of Eq. (3.2) is the n x n matrix
G_l = A_l^T A_l / d with A_l = phi(BN(h_l)) (the thesis prints the transpose on the wrong side).

Mean-field map (Eq. (3.3)): F(G) = E_{w ~ N(0, G)} phi(BN(w)) phi(BN(w))^T with
BN(w) = sqrt(n) M w / ||M w||, M = I - 11^T / n. Conditioned on h_l the rows of h_{l+1} are
i.i.d. N(0, G_l), so E[G_{l+1} | G_l] = F(G_l) exactly, and the chain is sampled exactly in law
by ``chains.GaussianGramProduct`` (W A = Z R(A), O(d n^2) per layer).

Fixed point G_* = F(G_*) (Eq. (B.36); Sec. 3.3.2), computed three ways:
    (a) sphere average: for a permutation-symmetric ("BSB1") G_*, M w is isotropic in 1-perp, so
        G_* = E_u phi(u) phi(u)^T with u uniform on {1^T u = 0, ||u||^2 = n}; u = BN(z) for
        z ~ N(0, I_n). Exact for linear phi: n / (n - 1) M. Its diagonal is also a 1-D integral:
        u_1 = sqrt(n - 1) t, t with density proportional to (1 - t^2)^((n - 4) / 2) on [-1, 1].
    (b) iterating F by Monte Carlo from a non-symmetric start;
    (c) a very wide chain, time-averaged after burn-in.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from scipy import integrate, special
from torch import Tensor

from ...engine import chains, ops, seeding
from ...engine.inputs import gaussian_inputs

__all__ = [
    "FixedPoint",
    "MapEstimate",
    "ar1_correlation",
    "bn_activation",
    "bsb1",
    "bsb1_eigenvalues",
    "centering",
    "condition_number",
    "correlated_inputs",
    "diagonal_quadrature",
    "frobenius",
    "gram",
    "iterate_mean_field",
    "linear_fixed_point",
    "linear_step",
    "mean_field_map",
    "replica_mean",
    "seeded_fixed_point",
    "sphere_draws",
    "sphere_fixed_point",
    "wide_chain_gram",
]

_CHUNK_ELEMENTS = 2**21
"""Monte Carlo draws are made in chunks of about this many entries (memory bound); part of the
stream contract of ``sphere_fixed_point`` and ``mean_field_map``."""


def centering(n: int, dtype: torch.dtype = torch.float64, device="cpu") -> Tensor:
    """M = I_n - 11^T / n, the projection onto 1-perp (Thesis ch. 3 notation)."""
    if n < 2:
        raise ValueError(f"batch size n must be >= 2, got {n}")
    return torch.eye(n, dtype=dtype, device=device) - 1.0 / n


def bn_activation(h: Tensor, activation: str) -> Tensor:
    """A = phi(BN(h)), centred BN of Thesis ch. 3 (``ops.bn_centered``); shape (..., d, n)."""
    return ops.activation(activation)(ops.bn_centered(h))


def gram(a: Tensor) -> Tensor:
    """G = A^T A / d, Thesis Eq. (3.2) in its n x n form; a of shape (..., d, n)."""
    return a.mT @ a / a.shape[-2]


def linear_fixed_point(n: int, dtype: torch.dtype = torch.float64, device="cpu") -> Tensor:
    """G_* = n / (n - 1) M for phi = id with centred BN: exact, and singular (kappa = inf)."""
    return centering(n, dtype, device) * (n / (n - 1))


def bsb1(diag: float, offdiag: float, n: int, dtype=torch.float64, device="cpu") -> Tensor:
    """The permutation-symmetric matrix with the given diagonal and off-diagonal entries."""
    off = torch.full((n, n), float(offdiag), dtype=dtype, device=device)
    return off + torch.eye(n, dtype=dtype, device=device) * (float(diag) - float(offdiag))


def bsb1_eigenvalues(diag: float, offdiag: float, n: int) -> tuple[float, float]:
    """Eigenvalues of ``bsb1``: (on 1-perp, multiplicity n - 1; on 1)."""
    return diag - offdiag, diag + (n - 1) * offdiag


def condition_number(g: Tensor) -> Tensor:
    """kappa(G) = largest / smallest eigenvalue of a symmetric PSD G (inf when singular)."""
    lam = torch.linalg.eigvalsh(g)
    small = lam[..., 0]
    tiny = lam[..., -1] * 1e-12
    return torch.where(small > tiny, lam[..., -1] / small.clamp_min(1e-300), math.inf)


def sphere_draws(g: torch.Generator, samples: int, n: int, dtype=torch.float64) -> Tensor:
    """u uniform on {1^T u = 0, ||u||^2 = n}: BN of i.i.d. N(0, I_n) rows, shape (samples, n)."""
    z = torch.randn(samples, n, generator=g, dtype=torch.float64).to(dtype)
    return ops.bn_centered(z)


@dataclass(frozen=True)
class FixedPoint:
    """A permutation-symmetric fixed point: diagonal, off-diagonal and their MC standard errors."""

    n: int
    diag: float
    offdiag: float
    diag_se: float
    offdiag_se: float

    def matrix(self, dtype=torch.float64, device="cpu") -> Tensor:
        return bsb1(self.diag, self.offdiag, self.n, dtype, device)

    @property
    def eigenvalues(self) -> tuple[float, float]:
        return bsb1_eigenvalues(self.diag, self.offdiag, self.n)

    @property
    def kappa(self) -> float:
        lam = [v for v in self.eigenvalues]
        return max(lam) / min(lam) if min(lam) > 1e-12 * max(lam) else math.inf

    @property
    def frobenius_se(self) -> float:
        """RMS Frobenius norm of the MC error of ``matrix()``: sqrt(n se_d^2 + n(n-1) se_o^2)."""
        n = self.n
        return math.sqrt(n * self.diag_se**2 + n * (n - 1) * self.offdiag_se**2)


def sphere_fixed_point(
    activation: str, n: int, samples: int, g: torch.Generator, dtype=torch.float64
) -> FixedPoint:
    """Route (a): G_* = E_u phi(u) phi(u)^T, u uniform on the centred sphere of radius sqrt(n).

    Symmetrized estimator: per draw, the mean of phi(u_i)^2 over i (diagonal) and of
    phi(u_i) phi(u_j) over i != j (off-diagonal); draws are i.i.d., so the SE is exact.
    For ``activation="linear"`` the values are exact (1 and -1 / (n - 1), SE 0).
    """
    if samples < 2:
        raise ValueError(f"samples must be >= 2, got {samples}")
    if activation == "linear":
        centering(n)  # validates n
        return FixedPoint(n, n / (n - 1) * (1 - 1 / n), -1.0 / (n - 1), 0.0, 0.0)
    phi = ops.activation(activation)
    chunk = max(1, _CHUNK_ELEMENTS // n)
    d_vals, o_vals = [], []
    for start in range(0, samples, chunk):
        f = phi(sphere_draws(g, min(chunk, samples - start), n, dtype))
        sq = f.square().sum(-1)
        d_vals.append(sq / n)
        o_vals.append((f.sum(-1).square() - sq) / (n * (n - 1)))
    dv, ov = torch.cat(d_vals), torch.cat(o_vals)
    return FixedPoint(
        n,
        dv.mean().item(),
        ov.mean().item(),
        (dv.std() / math.sqrt(samples)).item(),
        (ov.std() / math.sqrt(samples)).item(),
    )


def seeded_fixed_point(experiment_id: str, activation: str, n: int, samples: int) -> FixedPoint:
    """``sphere_fixed_point`` (route (a), Eq. (B.36)) of ``activation`` at batch size ``n``, drawn
    from stream (``<experiment_id>.<activation>.n<n>``, 0, "sphere")."""
    g = seeding.generator(f"{experiment_id}.{activation}.n{n}", 0, "sphere")
    return sphere_fixed_point(activation, n, samples, g)


def diagonal_quadrature(activation: str, n: int) -> float:
    """Exact diagonal of G_*: E phi(sqrt(n - 1) t)^2, t ~ (1 - t^2)^((n - 4) / 2) on [-1, 1].

    t is one coordinate of a uniform point on the unit sphere of the (n - 1)-dimensional space
    1-perp, so u_1 = sqrt(n - 1) t (the spherical-coordinate marginal). Needs n >= 3.
    """
    if n < 3:
        raise ValueError(f"the 1-D diagonal integral needs n >= 3, got {n}")
    phi = ops.activation(activation)
    a = (n - 2) / 2.0  # t^2 ~ Beta(1/2, a)

    def f(t: float) -> float:
        v = phi(torch.tensor(math.sqrt(n - 1) * t, dtype=torch.float64)).item()
        return v * v * (1.0 - t * t) ** (a - 1.0)

    value, _ = integrate.quad(f, -1.0, 1.0, limit=200, points=[0.0])
    return value / special.beta(0.5, a)


def _psd_sqrt(g: Tensor) -> Tensor:
    """Symmetric R with R^T R = G (negative round-off eigenvalues clamped to 0)."""
    lam, u = torch.linalg.eigh((g + g.mT) / 2)
    return (u * lam.clamp_min(0.0).sqrt()[..., None, :]) @ u.mT


@dataclass(frozen=True)
class MapEstimate:
    """A Monte Carlo value of the mean-field map and the variance of each of its entries."""

    value: Tensor
    variance: Tensor

    @property
    def frobenius_se(self) -> float:
        return self.variance.sum().sqrt().item()


def mean_field_map(
    g_mat: Tensor, activation: str, samples: int, gen: torch.Generator
) -> MapEstimate:
    """Thesis Eq. (3.3): F(G) = E_{w ~ N(0, G)} phi(BN(w))^{(x)2}, by ``samples`` i.i.d. draws.

    Returns the sample mean and the per-entry variance of that mean (i.i.d. draws).
    """
    if samples < 2:
        raise ValueError(f"samples must be >= 2, got {samples}")
    n = g_mat.shape[-1]
    if g_mat.shape != (n, n):
        raise ValueError(f"G must be a square matrix, got shape {tuple(g_mat.shape)}")
    phi = ops.activation(activation)
    r = _psd_sqrt(g_mat)
    chunk = max(1, _CHUNK_ELEMENTS // n)
    first = torch.zeros_like(g_mat)
    second = torch.zeros_like(g_mat)
    for start in range(0, samples, chunk):
        z = torch.randn(min(chunk, samples - start), n, generator=gen, dtype=torch.float64)
        f = phi(ops.bn_centered(z.to(g_mat.dtype) @ r))
        first += f.mT @ f
        f2 = f.square()
        second += f2.mT @ f2
    mean = first / samples
    var = (second / samples - mean.square()).clamp_min(0.0) / (samples - 1)
    return MapEstimate(mean, var)


def iterate_mean_field(
    g0: Tensor,
    activation: str,
    iterations: int,
    average_last: int,
    samples: int,
    experiment_id: str,
    replicas: Sequence[int] = (0,),
) -> tuple[Tensor, Tensor]:
    """Route (b): iterate F (Eq. (3.3), ``samples`` draws per step) from ``g0``, per replica.

    Each replica r averages its last ``average_last`` iterates; iterate k of replica r draws
    from ``seeding.generator(f"{experiment_id}.r{r}", k, "map")``. The iterates of one replica
    are autocorrelated (F contracts slowly), so the MC error is judged from the spread between
    independent replicas (``replica_mean``), never from within one path.

    Returns:
        per-replica averages, shape (replicas, n, n), and the path ||G_{k+1} - G_k||_F of
        replica 0, shape (iterations,).
    """
    if not 1 <= average_last <= iterations:
        raise ValueError(f"average_last must be in [1, iterations={iterations}]")
    averages, path = [], []
    for rep in replicas:
        g, acc = g0, torch.zeros_like(g0)
        for k in range(iterations):
            gen = seeding.generator(f"{experiment_id}.r{rep}", k, "map")
            nxt = mean_field_map(g, activation, samples, gen).value
            if rep == replicas[0]:
                path.append(frobenius(nxt - g))
            g = nxt
            if k >= iterations - average_last:
                acc += g
        averages.append(acc / average_last)
    return torch.stack(averages), torch.tensor(path)


def replica_mean(stack: Tensor) -> tuple[Tensor, Tensor]:
    """Mean over independent replicas (dim 0) and the per-entry variance of that mean."""
    if stack.shape[0] < 2:
        raise ValueError("an error estimate needs >= 2 independent replicas")
    return stack.mean(0), stack.var(0) / stack.shape[0]


def ar1_correlation(n: int, rho: float, dtype=torch.float64, device="cpu") -> Tensor:
    """C_ij = rho^|i - j|: a non-permutation-symmetric correlation of the input batch."""
    if not -1 < rho < 1:
        raise ValueError(f"input correlation rho must be in (-1, 1), got {rho}")
    idx = torch.arange(n, dtype=dtype, device=device)
    return float(rho) ** (idx[:, None] - idx[None, :]).abs()


def correlated_inputs(
    experiment_id: str,
    runs: Sequence[int],
    d: int,
    n: int,
    rho: float,
    dtype=torch.float64,
    device="cpu",
) -> Tensor:
    """h_0 in R^{d x n} per run with rows i.i.d. N(0, C), C = ``ar1_correlation(n, rho)``.

    Standard normals come from ``inputs.gaussian_inputs`` (stream ``"input"``); shape (R, d, n).
    """
    z = gaussian_inputs(experiment_id, list(runs), d, n, dtype, device)
    chol = torch.linalg.cholesky(ar1_correlation(n, rho, dtype, device))
    return z @ chol.mT


def linear_step(h: Tensor, product: Callable[[Tensor], Tensor]) -> Tensor:
    """The no-BN linear chain h_{l+1} = W_l h_l (Thesis Fig. 3.1, "without BN"): no rescaling.

    Its mean-field Gram recursion is G_{l+1} = G_l, so the prediction is G_0 at every layer.
    """
    return product(h)


class _GramAverage:
    """Observer: accumulates the per-run Gram G_l (no reduction); returns zeros to the engine."""

    def __init__(self):
        self.total: Tensor | None = None
        self.count = 0

    def __call__(self, a: Tensor) -> Tensor:
        g = gram(a)
        self.total = g.clone() if self.total is None else self.total + g
        self.count += 1
        return torch.zeros(a.shape[0], dtype=a.dtype, device=a.device)


def wide_chain_gram(
    activation: str,
    n: int,
    d: int,
    depth: int,
    burn_in: int,
    runs: Sequence[int],
    rho: float,
    experiment_id: str,
    dtype=torch.float64,
    device="cpu",
) -> Tensor:
    """Route (c): per-run time average of G_l over layers burn_in..depth of a width-d chain.

    Input rows i.i.d. N(0, AR(1) rho) (non-symmetric); W_l h sampled by
    ``chains.GaussianGramProduct`` (exact in law). Returns the per-run averages, shape
    (runs, n, n); runs are independent replicas (``replica_mean``).
    """
    if len(runs) < 2:
        raise ValueError("the wide chain needs >= 2 runs for an error estimate")
    h0 = correlated_inputs(experiment_id, runs, d, n, rho, dtype, device)
    product = chains.GaussianGramProduct(experiment_id, runs, d, n, 1.0 / d, dtype, device)
    avg = _GramAverage()
    layers = chains.record_layers(depth, burn_in=burn_in)
    chains.simulate(
        bn_activation(h0, activation),
        chains.Step("bn_centered", activation),
        product,
        depth,
        {"gram": avg},
        layers,
        runs,
        desc=experiment_id,
    )
    return (avg.total / avg.count).cpu()


def frobenius(a: Tensor) -> float:
    """||A||_F as a float."""
    return torch.linalg.matrix_norm(a).item()
