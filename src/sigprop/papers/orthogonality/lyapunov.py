"""The Lyapunov function and one-step drift of the BN chain, DJB21 App. A.3-C (Thesis A.2-A.3).

Definitions, each as its seed writes it (DJB21 Eq. (11) and App. C; Thesis Eq. (A.5) and App. A.3):

- ``lyapunov_gap``: V_hat(H) = 1/n - sigma_n(H)^2, DJB21 Eq. (11) (Thesis Eq. (A.5)).
- ``p_coefficients``: p_i(sigma) = E[sigma_i^2 w_i^2 / sum_k sigma_k^2 w_k^2], w ~ N(0, I_n),
  the diagonal of E_W[C_{l+1}] in the rotated frame, DJB21 Eq. (13) (Thesis Eq. (A.8); the seed
  prints sigma_n^2 w_n^2 in the numerator, a typo), computed by Sawa's lemma (Lemma 9,
  Eq. (15) = Thesis Eq. (A.10)) as a one-dimensional integral.
- ``f_coefficients``: f_i(sigma) = p_i / sigma_i^2, so f_n is the f_n(sigma) of Eq. (15).
- ``g_integral``: g(delta) = f_n at sigma_n^2 = 1/n - delta, sigma_j^2 = 1/n + delta / (n - 1),
  DJB21 Eq. (16) (Thesis Eq. (A.11); the thesis names the integral g, as we do).
- ``one_step_gram``: draws of C_{l+1} = H_{l+1}^T H_{l+1} given the singular values sigma of
  H_l, in the rotated frame of App. C.1-C.2: C = (1/d) sum_i u_i u_i^T, u_i = w_i * sigma /
  ||w_i * sigma||, w_i ~ N(0, I_n) i.i.d. (Eq. (12) and the display before Lemma 6).

Quadrature. With t = e^u the Sawa integral
    f_i(sigma) = int_0^inf (1 + 2 t s_i)^{-1} prod_j (1 + 2 t s_j)^{-1/2} dt,  s = sigma^2,
becomes an integral over the real line of a function that is analytic in the strip
|Im u| < pi (its singularities sit at u = -log(2 s_j) +- i pi) and decays exponentially at both
ends, so the trapezoid rule with step h converges like exp(-2 pi^2 / h) whatever the spread of
s. We use h = 1/4 and evaluate the integrand in logs, so a tiny sigma_n^2 (1e-12, where plain
``scipy.integrate.quad`` on [0, inf) loses accuracy) costs a few more nodes but no
accuracy. Step and ends: ``QUADRATURE_STEP``, ``_LOWER_U``, ``_TAIL``. Everything is batched
over leading dimensions, float64.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from .drift_spec import drift_contraction

__all__ = [
    "QUADRATURE_STEP",
    "drift_contraction",
    "f_coefficients",
    "g_integral",
    "lyapunov_gap",
    "lyapunov_gap_gram",
    "one_step_gram",
    "one_step_statistics",
    "p_coefficients",
]

QUADRATURE_STEP = 0.25
"""Trapezoid step in u = log t. The integrand is analytic for |Im u| < pi, with branch points on
|Im u| = pi; with exponents 1/2 it is <= ~20 times its real-axis size on |Im u| = 3, so the
discretisation error is <= ~20 exp(-2 pi 3 / h) ~ 1e-31. Large exponents (g with n - 1 equal
values) grow faster off the axis: h = 1/3 left 7e-14 in g(0) = 1 at n = 100, h = 1/4 leaves
<= 2e-16 up to n = 400 (tested)."""

_LOWER_U = -40.0
"""Lower end of the u grid: the integrand is <= e^u there, e^-40 ~ 4e-18."""

_TAIL = 45.0
"""The u grid ends 45 / r past the last bend u = -log(2 s_min), where r > 0 is the slowest
exponential decay rate of an integrand beyond it (sum of the exponents of the positive s_j,
minus 1 for a coordinate with s_i = 0): a tail of at most e^-45 ~ 3e-20 is cut."""

_CHUNK_ELEMENTS = 2**22
"""``one_step_gram`` draws at most this many Gaussian numbers per generator call."""


def _as_float64(x) -> Tensor:
    x = torch.as_tensor(x)
    return x.to(torch.float64) if x.is_floating_point() else x.to(torch.float64)


def lyapunov_gap_gram(c: Tensor) -> Tensor:
    """V_hat from a Gram matrix C = H^T H: 1/n - lambda_min(C) / Tr C (DJB21 Eq. (11)).

    Args:
        c: shape (..., n, n), symmetric positive semi-definite, not all zero.
    Returns:
        shape (...), in [0, 1/n] up to round-off (lambda_min is clipped at 0).
    """
    n = c.shape[-1]
    trace = c.diagonal(dim1=-2, dim2=-1).sum(-1)
    smallest = torch.linalg.eigvalsh(c)[..., 0].clamp_min(0.0)
    return 1.0 / n - smallest / trace


def lyapunov_gap(h: Tensor) -> Tensor:
    """V_hat(H) = 1/n - sigma_n(H)^2 / ||H||_F^2, DJB21 Eq. (11) (Thesis Eq. (A.5)).

    The seed defines V_hat for the unit-Frobenius states of the chain (Eq. (10)); dividing by
    ||H||_F^2 makes it scale invariant and equal to the seed's on those states. sigma_n is the
    n-th (smallest) singular value; it is 0 when d < n. Result in [0, 1/n].

    Args:
        h: shape (..., d, n); columns are the n samples.
    Returns:
        shape (...).
    """
    return lyapunov_gap_gram(h.mT @ h)


def _check_spectrum(sigma2: Tensor) -> Tensor:
    sigma2 = _as_float64(sigma2)
    if sigma2.dim() < 1 or sigma2.shape[-1] < 2:
        raise ValueError(f"sigma2 needs a last dimension n >= 2, got shape {tuple(sigma2.shape)}")
    if not bool(torch.isfinite(sigma2).all()) or bool((sigma2 < 0).any()):
        raise ValueError("sigma2 must be finite and >= 0 (squared singular values)")
    if bool((sigma2.sum(-1) <= 0).any()):
        raise ValueError("sigma2 must have a positive entry in every spectrum")
    return sigma2


def _u_grid(sigma2: Tensor, half: Tensor) -> Tensor:
    """Nodes u of the trapezoid rule covering every spectrum of the batch (see ``_TAIL``)."""
    positive = sigma2 > 0
    last_bend = -math.log(2.0 * sigma2[positive].min().item())
    rate = (half * positive).sum(-1) - (~positive).any(-1).to(half.dtype)
    rate = max(rate.min().item(), 0.05)  # rate <= 0: divergent (inf), any grid will do
    top = max(last_bend, 0.0) + _TAIL / rate
    count = int(math.ceil((top - _LOWER_U) / QUADRATURE_STEP)) + 1
    return _LOWER_U + QUADRATURE_STEP * torch.arange(count, dtype=torch.float64)


def f_coefficients(sigma2, exponents: Tensor | None = None) -> Tensor:
    """f_i(sigma) = int_0^inf (1 + 2 t s_i)^{-1} prod_j (1 + 2 t s_j)^{-1/2} dt, s = sigma^2.

    DJB21 Eq. (15) (Thesis Eq. (A.10)): p_i(sigma) = sigma_i^2 f_i(sigma); f_n is the seed's
    f_n(sigma). Scale: f_i(c s) = f_i(s) / c, so spectra are best passed normalized (sum 1).

    Args:
        sigma2: squared singular values, shape (..., n), >= 0, not all zero; any order.
        exponents: optional shape (..., n) replacing the exponents 1/2 of the product (used
            for ``g_integral`` with its n - 1 equal factors); default all 1/2.
    Returns:
        shape (..., n), float64. f_i is finite whenever the product decays faster than 1/t,
        i.e. for every i when at least two s_j > 0 (n >= 3) or s > 0 elementwise; infinite
        values are returned as inf.
    """
    s = _check_spectrum(sigma2)
    half = torch.full_like(s, 0.5) if exponents is None else _as_float64(exponents).expand_as(s)
    u = _u_grid(s, half)  # (T,)
    t = torch.exp(u)
    # log(1 + 2 t s_j), shape (..., n, T)
    log_terms = torch.log1p(2.0 * s[..., :, None] * t)
    log_product = -(half[..., :, None] * log_terms).sum(-2, keepdim=True)  # (..., 1, T)
    log_integrand = u + log_product - log_terms  # (..., n, T): t dt/du = e^u
    integrand = torch.exp(log_integrand)
    # trapezoid on a uniform grid: both ends are negligible, so a plain sum times h
    total = integrand.sum(-1) * QUADRATURE_STEP
    # a product decaying no faster than 1/t (too few positive s) has no finite integral
    decay = (half * (s > 0)).sum(-1, keepdim=True) + (s > 0).to(s.dtype)
    return torch.where(decay > 1.0, total, torch.full_like(total, math.inf))


def p_coefficients(sigma2) -> Tensor:
    """p_i(sigma) = E[s_i w_i^2 / sum_k s_k w_k^2], w ~ N(0, I_n), s = sigma^2 (DJB21 Eq. (13)).

    E_W[C_{l+1}] = diag(p(sigma)) in the rotated frame (Lemma 6); computed by Sawa's lemma
    (Lemma 9, Eq. (15)) as p_i = s_i f_i(sigma) with ``f_coefficients``. Scale invariant in
    sigma; sum_i p_i = 1; p_i = 0 where s_i = 0; p is increasing in s_i.

    Args:
        sigma2: squared singular values, shape (..., n), >= 0, not all zero.
    Returns:
        shape (..., n), float64.
    """
    s = _check_spectrum(sigma2)
    s = s / s.sum(-1, keepdim=True)
    f = f_coefficients(s)
    return torch.where(s > 0, s * f, torch.zeros_like(s))


def g_integral(delta, n: int) -> Tensor:
    """g(delta) = f_n at sigma_n^2 = 1/n - delta, sigma_j^2 = 1/n + delta/(n - 1) (j != n).

    DJB21 Eq. (16) (Thesis Eq. (A.11)):
    g(delta) = int_0^inf (1 + 2 t (1/n - delta))^{-3/2} (1 + 2 t (1/n + delta/(n-1)))^{-(n-1)/2} dt.
    g(0) = 1, g'(0) = 2n/(n+2); convex on [0, 1/n] (Lemma 10). At delta = 1/n it is finite
    only for n >= 4.

    Args:
        delta: shape (...), each in [-1/(n(n-1)), 1/n] (so that every sigma^2 >= 0).
        n: batch size, >= 2.
    Returns:
        shape (...), float64.
    """
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    delta = _as_float64(delta)
    lo, hi = -1.0 / (n * (n - 1)), 1.0 / n
    if bool((delta < lo - 1e-15).any()) or bool((delta > hi + 1e-15).any()):
        raise ValueError(f"delta must lie in [{lo:.3g}, {hi:.3g}] for n={n}")
    small = (1.0 / n - delta).clamp_min(0.0)
    large = (1.0 / n + delta / (n - 1)).clamp_min(0.0)
    # two "coordinates": sigma_n^2 with exponent 1/2 (times the extra 1 of f_i) and one merged
    # coordinate for the n - 1 equal values, exponent (n - 1)/2
    s = torch.stack([small, large], dim=-1)
    exponents = torch.tensor([0.5, (n - 1) / 2.0], dtype=torch.float64)
    return f_coefficients(s, exponents)[..., 0]


def one_step_gram(
    sigma,
    d: int,
    n_draws: int,
    generator: torch.Generator,
    chunk_elements: int = _CHUNK_ELEMENTS,
    device: str | torch.device = "cpu",
) -> Tensor:
    """Monte-Carlo draws of C_{l+1} = H_{l+1}^T H_{l+1} given sigma = singular values of H_l.

    Rotated frame of DJB21 App. C.1-C.2 (Eq. (12)): C = (1/d) sum_{i<=d} u_i u_i^T with
    u_i = (w_i * sigma) / ||w_i * sigma||_2 and w_i ~ N(0, I_n) i.i.d. (the rows of W_l U).
    In the original frame C is conjugated by V, which changes none of its eigenvalues.

    Draws are made in chunks of about ``chunk_elements`` numbers over all spectra (float32
    draws from ``generator``, cast to float64, as ``chains`` does); all leading spectra of
    ``sigma`` share the same w (common random numbers), so each spectrum's draws are i.i.d. in
    law and comparisons between spectra are less noisy. The chunking depends on the shapes only
    (part of the stream contract).

    Args:
        sigma: singular values, shape (..., n), >= 0, not all zero (any scale and order).
        d: width, >= 1. n_draws: number of draws, >= 1.
        generator: the random stream (``seeding.generator``, a CPU generator).
        device: where the draws are moved and C is computed.
    Returns:
        shape (..., n_draws, n, n), float64, trace 1 per draw.
    """
    sigma = _as_float64(sigma)
    if d < 1 or n_draws < 1:
        raise ValueError(f"d and n_draws must be >= 1, got d={d}, n_draws={n_draws}")
    _check_spectrum(sigma.square())
    n = sigma.shape[-1]
    lead = sigma.shape[:-1]
    sigma = sigma.to(device)
    per_draw = d * n * max(1, math.prod(lead))
    block = max(1, min(n_draws, chunk_elements // per_draw))
    out = torch.empty(*lead, n_draws, n, n, dtype=torch.float64, device=device)
    flat = sigma.reshape(-1, n)  # (S, n)
    scale = (flat[:, :, None] * flat[:, None, :] / d).reshape(*lead, 1, n, n)
    for start in range(0, n_draws, block):
        count = min(block, n_draws - start)
        w = torch.randn(count, d, n, generator=generator).to(device).to(torch.float64)
        # ||w_i * sigma||^2 for every state at once: (count, d, S)
        norms = w.square() @ flat.square().mT
        # sum_i w_i w_i^T / ||w_i * sigma||^2, then C = diag(sigma) (that) diag(sigma) / d
        core = torch.einsum("cdn,cds,cdm->scnm", w, norms.reciprocal(), w)  # (S, count, n, n)
        out[..., start : start + count, :, :] = core.reshape(*lead, count, n, n) * scale
    return out


class _Moments:
    """Running mean and sum of squared deviations over draws (Chan et al.'s pairwise update),
    so that standard errors stay accurate when the spread is 1e-12 of the mean."""

    def __init__(self):
        self.count, self.mean, self.m2 = 0, None, None

    def add(self, x: Tensor, dim: int) -> None:
        k = x.shape[dim]
        mean = x.mean(dim)
        m2 = (x - mean.unsqueeze(dim)).square().sum(dim)
        if self.mean is None:
            self.count, self.mean, self.m2 = k, mean, m2
            return
        total = self.count + k
        delta = mean - self.mean
        self.mean = self.mean + delta * (k / total)
        self.m2 = self.m2 + m2 + delta.square() * (self.count * k / total)
        self.count = total

    def mean_se(self) -> tuple[Tensor, Tensor]:
        if self.count < 2:
            return self.mean, torch.full_like(self.mean, math.nan)
        return self.mean, (self.m2 / (self.count - 1)).sqrt() / math.sqrt(self.count)


def one_step_statistics(
    sigma2,
    d: int,
    n_draws: int,
    generator: torch.Generator,
    block_elements: int = 2**21,
    device: str | torch.device = "cpu",
) -> dict:
    """Monte-Carlo statistics of one BN layer from fixed spectra (DJB21 Thm. 5, Lemmas 6-7).

    The single definition of the drift Monte Carlo: ``one_step_gram`` draws C_{l+1} from
    sigma = sqrt(sigma2), and per spectrum we return (means over draws, with their standard
    errors ``*_se`` = sample SD / sqrt(n_draws)):

    - ``vhat_next``: V_hat(H_{l+1}) = 1/n - lambda_min(C_{l+1}) (Eq. (11); Tr C = 1);
    - ``msd``: (V_hat(H_{l+1}) - (1/n - p_n))^2, the quantity of Lemma 7;
    - ``frob``: ||C_{l+1} - diag(p)||_F^2, the quantity of Lemma 6;
    - ``weyl_margin``: min over draws of frob - (lambda_min(C) - p_n)^2, >= 0 by Weyl's
      inequality (proof of Lemma 7), per draw;
    - ``diag`` / ``diag_se``: mean diagonal of C, shape (..., n): Monte Carlo of p_i (Eq. (13)).

    Draws are made in blocks of about ``block_elements`` entries of C over all spectra (memory
    stays bounded at any n_draws), each block by one ``one_step_gram`` call on ``generator``.

    Args:
        sigma2: squared singular values, shape (..., n), normalized to sum 1 here.
        d, n_draws, generator: as ``one_step_gram``.
    Returns:
        dict of tensors of shape (...) (``diag``: (..., n)), plus ``p`` (quadrature, (..., n)).
    """
    s = _check_spectrum(sigma2)
    s = s / s.sum(-1, keepdim=True)
    n = s.shape[-1]
    p = p_coefficients(s)
    # the rotated frame is the frame of the sorted spectrum; p_n is the smallest p
    p_min = p.min(-1).values
    moments = {name: _Moments() for name in ("vhat_next", "msd", "frob", "diag")}
    weyl = None
    block = max(1, block_elements // (n * n * max(1, math.prod(s.shape[:-1]))))
    for start in range(0, n_draws, block):
        count = min(block, n_draws - start)
        c = one_step_gram(s.sqrt(), d, count, generator, device=device).cpu()
        lam_min = torch.linalg.eigvalsh(c)[..., 0]
        dev = lam_min - p_min[..., None]
        frob = (c - torch.diag_embed(p)[..., None, :, :]).square().sum((-2, -1))
        moments["vhat_next"].add(1.0 / n - lam_min, -1)
        moments["msd"].add(dev.square(), -1)
        moments["frob"].add(frob, -1)
        moments["diag"].add(c.diagonal(dim1=-2, dim2=-1), -2)
        margin = (frob - dev.square()).min(-1).values
        weyl = margin if weyl is None else torch.minimum(weyl, margin)
    out = {"p": p, "weyl_margin": weyl}
    for name, m in moments.items():
        out[name], out[f"{name}_se"] = m.mean_se()
    return out
