"""Hermite expansions, kernel maps and their fixed points (Thesis ch. 5; Joudaki & Hofmann 2025).

A unit-width activation phi acts on correlated standard Gaussians; in the mean-field limit the
cosine of two inputs evolves by the kernel map rho_l = kappa(rho_{l-1}) (Thesis Eq. (5.4)), with

    kappa(rho) = E phi(X) phi(Y) / E phi(X)^2,    X, Y ~ N(0, 1), E XY = rho    (Eq. (5.3)),

the activation normalized to E phi^2 = 1 (stability condition). Everything here is float64 numpy
and exact up to quadrature round-off: expectations are Gauss-Legendre sums over pieces of
[-L, L] split at the activation's kinks (Gaussian tail beyond L = 10 below 1e-22), so ReLU-type
activations integrate to ~1e-14 where plain Gauss-Hermite converges only algebraically. The
truncated Hermite series (Cor. 5.7) is kept beside the exact map because the thesis's case
labels come from it: Fig. 5.2(b) puts ReLU in case 2 of Thm. 5.11 (kappa'(1) < 1), true only of
the series truncated at order 25 as in the authors' public code (ajoudaki/kernel-global); exactly,
kappa'(1) = E phi'^2 / E phi^2 = 1 for ReLU, which is case 3 (our derivation).

Entry points: ``activation(name)``, ``hermite_coefficients``, ``kernel_map(activation)`` ->
``KernelMap`` with callables ``kappa`` and ``dkappa``, ``analyse`` -> ``KernelSummary`` (rho*,
Thm. 5.11 case, rate alpha), ``iterate`` and ``convergence_bound``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.polynomial.legendre import leggauss
from scipy.optimize import brentq
from scipy.special import expit, roots_hermitenorm

__all__ = [
    "ACTIVATIONS",
    "Activation",
    "KernelMap",
    "KernelSummary",
    "activation",
    "analyse",
    "check_cosines",
    "CLOSED_FORMS",
    "FIG5_1",
    "fig5_1_activation",
    "closed_form_kernel",
    "convergence_bound",
    "gauss_hermite",
    "gaussian_expectation",
    "he",
    "hermite_activation",
    "hermite_coefficients",
    "hermite_he",
    "iterate",
    "kernel_map",
    "monte_carlo_kernel",
    "potential",
    "printed_case1_bound",
    "series_kernel",
    "sign_changes",
    "thm511_case",
    "thm511_rate",
    "truncated_kernel_endpoints",
]

LIMIT = 10.0
"""Integration range [-L, L]; the Gaussian mass outside is erfc(L / sqrt 2) ~ 1.5e-23."""
_PIECE = 2.0
_ORDER = 16
_T, _W = leggauss(_ORDER)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _three_term_recursion(k: int, x: np.ndarray, step: Callable) -> np.ndarray:
    """Polynomials p_0 = 1, p_1 = x, p_j = step(j, x, p_{j-1}, p_{j-2}) for j = 2..k at x.

    Returns:
        shape (k + 1, *x.shape).
    """
    if k < 0:
        raise ValueError(f"order k must be >= 0, got {k}")
    x = np.asarray(x, dtype=np.float64)
    out = np.empty((k + 1, *x.shape))
    out[0] = 1.0
    if k >= 1:
        out[1] = x
    for j in range(2, k + 1):
        out[j] = step(j, x, out[j - 1], out[j - 2])
    return out


def hermite_he(k: int, x: np.ndarray) -> np.ndarray:
    """Probabilists' Hermite polynomials He_0..He_k at x, Thesis Def. 5.4.

    Recursion He_j = x He_{j-1} - (j - 1) He_{j-2}, He_0 = 1, He_1 = x.

    Returns:
        shape (k + 1, *x.shape).
    """
    return _three_term_recursion(k, x, lambda j, x, h1, h2: x * h1 - (j - 1) * h2)


def he(k: int, x: np.ndarray) -> np.ndarray:
    """Normalized Hermite polynomials he_j = He_j / sqrt(j!), j = 0..k (Thesis Def. 5.4, Eq. (5.5):
    E he_j(X) he_l(X) = delta_jl), by the normalized recursion (no factorials).

    Returns:
        shape (k + 1, *x.shape).
    """
    # he_j = (x he_{j-1} - sqrt(j - 1) he_{j-2}) / sqrt(j)
    return _three_term_recursion(
        k, x, lambda j, x, h1, h2: (x * h1 - math.sqrt(j - 1) * h2) / math.sqrt(j)
    )


def gauss_hermite(n: int) -> tuple[np.ndarray, np.ndarray]:
    """n-point Gauss-Hermite rule for E f(X), X ~ N(0, 1): nodes and weights summing to 1.

    Exact for polynomials of degree <= 2n - 1 (scipy.special.roots_hermitenorm).
    """
    x, w = roots_hermitenorm(n)
    return x, w / _SQRT_2PI


def _pieces(breaks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and Gaussian-weighted weights on consecutive pieces of sorted
    breakpoints ``breaks`` (..., P): int f(x) phi(x) dx ~ sum w f(x). Shapes (..., (P-1) m)."""
    a, b = breaks[..., :-1, None], breaks[..., 1:, None]
    half = 0.5 * (b - a)
    x = a + half * (_T + 1.0)
    w = half * _W * np.exp(-0.5 * x * x) / _SQRT_2PI
    shape = breaks.shape[:-1] + (-1,)
    return x.reshape(shape), w.reshape(shape)


def _breaks_with(kinks: np.ndarray, limit: float = LIMIT) -> np.ndarray:
    """Breakpoints of [-limit, limit] plus kinks (clipped), sorted along the last axis."""
    kinks = np.clip(kinks, -limit, limit)
    grid = np.linspace(-limit, limit, int(round(2 * limit / _PIECE)) + 1)
    base = np.broadcast_to(grid, kinks.shape[:-1] + grid.shape)
    return np.sort(np.concatenate([base, kinks], axis=-1), axis=-1)


def gaussian_expectation(f: Callable, kinks: Sequence[float] = ()) -> float:
    """E f(X), X ~ N(0, 1), by piecewise Gauss-Legendre split at the kinks of f (vectorized f)."""
    x, w = _pieces(_breaks_with(np.asarray(kinks, dtype=np.float64)))
    return float(np.sum(w * f(x)))


@dataclass(frozen=True)
class Activation:
    """An activation phi with its derivative (a.e.) and the points where either is not smooth.

    Attributes:
        name: label used in tables and figures.
        phi, dphi: vectorized numpy callables.
        kinks: points where phi or phi' is not smooth (quadrature splits there).
        hermite: exact Hermite coefficients c_k when phi is a finite he-series (else None).
    """

    name: str
    phi: Callable[[np.ndarray], np.ndarray]
    dphi: Callable[[np.ndarray], np.ndarray]
    kinks: tuple[float, ...] = ()
    hermite: tuple[float, ...] | None = field(default=None)


_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805
_GELU_C = math.sqrt(2.0 / math.pi)


def _gelu(x):
    return 0.5 * x * (1.0 + np.tanh(_GELU_C * (x + 0.044715 * x**3)))


def _dgelu(x):
    t = np.tanh(_GELU_C * (x + 0.044715 * x**3))
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _GELU_C * (1.0 + 3 * 0.044715 * x * x)


_LEAKY_SLOPE = 0.01


def _leaky(slope):
    return Activation(
        "leaky_relu",
        lambda x: np.where(x > 0, x, slope * x),
        lambda x: np.where(x > 0, 1.0, slope),
        (0.0,),
    )


ACTIVATIONS: dict[str, Activation] = {
    "identity": Activation("identity", lambda x: x, np.ones_like, (), (0.0, 1.0)),
    "relu": Activation(
        "relu", lambda x: np.maximum(x, 0.0), lambda x: (x > 0).astype(np.float64), (0.0,)
    ),
    "leaky_relu": _leaky(_LEAKY_SLOPE),
    "tanh": Activation("tanh", np.tanh, lambda x: 1.0 - np.tanh(x) ** 2),
    "sin": Activation("sin", np.sin, np.cos),
    "sigmoid": Activation("sigmoid", expit, lambda x: expit(x) * (1.0 - expit(x))),
    "exp": Activation("exp", np.exp, np.exp),
    "selu": Activation(
        "selu",
        lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(np.minimum(x, 0.0))),
        lambda x: _SELU_SCALE * np.where(x > 0, 1.0, _SELU_ALPHA * np.exp(np.minimum(x, 0.0))),
        (0.0,),
    ),
    "gelu": Activation("gelu", _gelu, _dgelu),
    "elu": Activation(
        "elu",
        lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
        lambda x: np.where(x > 0, 1.0, np.exp(np.minimum(x, 0.0))),
        (0.0,),
    ),
}
"""Thesis ch. 5 activations (Sec. 5.7 names tanh, ReLU, exp and GELU) and further ones; the
settings follow the authors' public code (ajoudaki/kernel-global), which the thesis does not
print: leaky ReLU slope 0.01, SELU (1.6733, 1.0507), GELU = tanh approximation, ELU alpha = 1
(= CELU(1)), logistic sigmoid."""


def hermite_activation(name: str, coefficients: Sequence[float]) -> Activation:
    """phi = sum_k c_k he_k (Thesis Def. 5.5), with phi' = sum_k c_k sqrt(k) he_{k-1}."""
    c = np.asarray(coefficients, dtype=np.float64)
    if c.ndim != 1 or c.size == 0:
        raise ValueError("coefficients must be a non-empty 1-D sequence")
    k = len(c) - 1
    dc = c[1:] * np.sqrt(np.arange(1, k + 1))

    def phi(x):
        return np.tensordot(c, he(k, x), axes=1)

    def dphi(x):
        if k == 0:
            return np.zeros_like(np.asarray(x, dtype=np.float64))
        return np.tensordot(dc, he(k - 1, x), axes=1)

    return Activation(name, phi, dphi, (), tuple(float(v) for v in c))


def activation(name: str) -> Activation:
    """Look up an activation of ACTIVATIONS, raising a ValueError listing the valid names."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {name!r}") from None


def hermite_coefficients(act: Activation, order: int) -> np.ndarray:
    """The first ``order`` coefficients c_k = E[phi(X) he_k(X)], k = 0..order-1, Thesis Def. 5.5
    (un-normalized phi).

    ``order`` counts coefficients, as the truncation order of the authors' public code
    (``compute_hermite_coefs_integration(f, order=25)`` returns c_0..c_24): the series
    sum_k c_k^2 rho^k then has degree order - 1. Exact for a finite he-series; otherwise
    piecewise Gauss-Legendre split at the kinks, on [-L', L'] with L' = L + 2 sqrt(order) (he_k
    oscillates out to about 2 sqrt(k))."""
    if order < 1:
        raise ValueError(f"order (the number of coefficients) must be >= 1, got {order}")
    if act.hermite is not None:
        c = np.zeros(order)
        n = min(order, len(act.hermite))
        c[:n] = act.hermite[:n]
        return c
    limit = LIMIT + 2.0 * math.sqrt(order)
    x, w = _pieces(_breaks_with(np.asarray(act.kinks, dtype=np.float64), limit))
    return he(order - 1, x) @ (w * act.phi(x))


def series_kernel(c: np.ndarray, rho, derivative: int = 0) -> np.ndarray:
    """kappa(rho) = sum_k c_k^2 rho^k (Thesis Cor. 5.7) or its r-th derivative, for given c."""
    a = np.asarray(c, dtype=np.float64) ** 2
    poly = np.polynomial.Polynomial(a)
    for _ in range(derivative):
        poly = poly.deriv()
    return poly(np.asarray(rho, dtype=np.float64))


def _pair_expectation(f: Callable, g: Callable, kinks: tuple[float, ...], rho) -> np.ndarray:
    """E f(X) g(Y), E XY = rho, by iterated piecewise quadrature: Y = rho X + s Z,
    s = sqrt(1 - rho^2); the Z pieces split where rho x + s z hits a kink of g (vectorized)."""
    rho = np.asarray(rho, dtype=np.float64)
    if np.any(np.abs(rho) > 1 + 1e-12):
        raise ValueError("rho must lie in [-1, 1]")
    flat = np.clip(rho.reshape(-1), -1.0, 1.0)
    kink = np.asarray(kinks, dtype=np.float64)
    x, wx = _pieces(_breaks_with(kink))  # (Nx,)
    out = np.empty(flat.shape)
    for i, r in enumerate(flat):
        s = math.sqrt(max(0.0, 1.0 - r * r))
        if s < 1e-12:
            out[i] = np.sum(wx * f(x) * g(r * x))
            continue
        zk = (kink[None, :] - r * x[:, None]) / s  # (Nx, K)
        z, wz = _pieces(_breaks_with(zk))  # (Nx, Nz)
        inner = np.sum(wz * g(r * x[:, None] + s * z), axis=1)
        out[i] = np.sum(wx * f(x) * inner)
    return out.reshape(rho.shape)


@dataclass(frozen=True)
class KernelMap:
    """The kernel map of phi / C, C = sqrt(E phi^2) (Thesis Def. 5.3 with the stability
    normalization): ``kappa(rho)`` and ``dkappa(rho)`` = E phi'(X) phi'(Y) / C^2 (Stein),
    vectorized over rho in [-1, 1]. Exact: a finite he-series is summed, a closed form is used
    where one is known (``method="closed_form"``), otherwise 2-D quadrature.

    Attributes:
        activation: the un-normalized phi.
        scale: C = sqrt(E phi(X)^2).
        mean, mean_derivative, mean_square_derivative: E phi, E phi', E phi'^2 (un-normalized).
        method: "series", "closed_form" or "quadrature".
    """

    activation: Activation
    scale: float
    mean: float
    mean_derivative: float
    mean_square_derivative: float
    method: str = "quadrature"

    def _evaluate(self, rho, derivative: int) -> np.ndarray:
        a = self.activation
        if self.method == "series":
            return series_kernel(np.asarray(a.hermite) / self.scale, rho, derivative)
        if self.method == "closed_form":
            return closed_form_kernel(a.name, rho, derivative)
        f = a.dphi if derivative else a.phi
        return _pair_expectation(f, f, a.kinks, rho) / self.scale**2

    def kappa(self, rho) -> np.ndarray:
        """kappa(rho) = E phi(X) phi(Y) / C^2, Thesis Eq. (5.3)."""
        return self._evaluate(rho, 0)

    def dkappa(self, rho) -> np.ndarray:
        """kappa'(rho) = E phi'(X) phi'(Y) / C^2 (Stein's lemma; = sum_k k c_k^2 rho^{k-1})."""
        return self._evaluate(rho, 1)

    @property
    def kappa0(self) -> float:
        """kappa(0) = (E phi)^2 / C^2 = c_0^2 (exact, Stein)."""
        return self.mean**2 / self.scale**2

    @property
    def dkappa0(self) -> float:
        """kappa'(0) = (E phi')^2 / C^2 = c_1^2."""
        return self.mean_derivative**2 / self.scale**2

    @property
    def dkappa1(self) -> float:
        """kappa'(1) = E phi'^2 / C^2 = sum_k k c_k^2 (no truncation)."""
        return self.mean_square_derivative / self.scale**2


def kernel_map(act: Activation | str, method: str = "auto") -> KernelMap:
    """The exact normalized kernel map of an activation (or its name); see ``KernelMap``.

    Args:
        method: "auto" (series for a finite he-series, else closed form for a registered
            activation of CLOSED_FORMS, else quadrature), or "quadrature" to force 2-D quadrature.
    """
    if method not in ("auto", "quadrature"):
        raise ValueError(f"method must be 'auto' or 'quadrature', got {method!r}")
    if isinstance(act, str):
        act = activation(act)
    if act.hermite is not None and method == "auto":
        c = np.asarray(act.hermite)
        k = np.arange(len(c))
        return KernelMap(
            act,
            float(np.sqrt(np.sum(c**2))),
            float(c[0]),
            float(c[1]) if len(c) > 1 else 0.0,
            float(np.sum(k * c**2)),
            "series",
        )
    second = gaussian_expectation(lambda x: act.phi(x) ** 2, act.kinks)
    if not second > 0:
        raise ValueError(f"{act.name}: E phi^2 must be positive, got {second}")
    return KernelMap(
        act,
        math.sqrt(second),
        gaussian_expectation(act.phi, act.kinks),
        gaussian_expectation(act.dphi, act.kinks),
        gaussian_expectation(lambda x: act.dphi(x) ** 2, act.kinks),
        "closed_form"
        if method == "auto" and act.name in CLOSED_FORMS and ACTIVATIONS.get(act.name) is act
        else "quadrature",
    )


CLOSED_FORMS = ("identity", "relu", "leaky_relu", "exp", "sin")
"""Activations whose normalized kernel map ``closed_form_kernel`` knows."""


def _abs_kernel(rho, derivative):
    """E|X||Y| = (2 / pi)(sqrt(1 - rho^2) + rho arcsin rho), or its derivative."""
    r = np.clip(rho, -1.0, 1.0)
    if derivative:
        return 2.0 / np.pi * np.arcsin(r)
    return 2.0 / np.pi * (np.sqrt(1.0 - r * r) + r * np.arcsin(r))


def closed_form_kernel(name: str, rho, derivative: int = 0) -> np.ndarray:
    """Normalized kernel map kappa (derivative 0) or kappa' (1) in closed form.

    (Leaky) ReLU phi = b x + c |x|, b = (1 + a) / 2, c = (1 - a) / 2:
    kappa = (b^2 rho + c^2 E|X||Y|) / (b^2 + c^2), for a = 0 the arc-cosine kernel
    (sqrt(1 - rho^2) + (pi - arccos rho) rho) / pi;
    exp: e^{rho - 1}; sin: sinh(rho) / sinh(1); identity: rho (standard closed forms, not printed
    in the thesis; our derivation from Eq. (5.3))."""
    if derivative not in (0, 1):
        raise ValueError(f"derivative must be 0 or 1, got {derivative}")
    rho = np.asarray(rho, dtype=np.float64)
    if name in ("relu", "leaky_relu"):
        a = 0.0 if name == "relu" else _LEAKY_SLOPE
        b2, c2 = ((1.0 + a) / 2) ** 2, ((1.0 - a) / 2) ** 2
        linear = np.ones_like(rho) if derivative else rho
        return (b2 * linear + c2 * _abs_kernel(rho, derivative)) / (b2 + c2)
    if name == "exp":
        return np.exp(rho - 1.0)
    if name == "sin":
        return (np.cosh(rho) if derivative else np.sinh(rho)) / math.sinh(1.0)
    if name == "identity":
        return np.ones_like(rho) if derivative else rho.copy()
    raise ValueError(f"no closed form for {name!r}; known: {', '.join(CLOSED_FORMS)}")


def monte_carlo_kernel(act: Activation, rho, n_samples: int, seed: int) -> tuple:
    """Monte Carlo kappa(rho) of phi / C (C from quadrature) with its standard error.

    Returns:
        (estimate, standard error), arrays shaped like rho.
    """
    km = kernel_map(act)
    rng = np.random.default_rng(seed)
    rho = np.asarray(rho, dtype=np.float64)
    x = rng.standard_normal(n_samples)
    z = rng.standard_normal(n_samples)
    r = rho.reshape(-1, 1)
    prod = act.phi(x) * act.phi(r * x + np.sqrt(1.0 - r * r) * z) / km.scale**2
    est = prod.mean(axis=1)
    se = prod.std(axis=1, ddof=1) / math.sqrt(n_samples)
    return est.reshape(rho.shape), se.reshape(rho.shape)


def potential(rho) -> np.ndarray:
    """Psi(rho) = |rho| / (1 - |rho|), the potential of the proofs of Thm. 5.8 / 5.11."""
    a = np.abs(np.asarray(rho, dtype=np.float64))
    with np.errstate(divide="ignore"):
        return np.where(a < 1.0, a / np.where(a < 1.0, 1.0 - a, 1.0), np.inf)


def thm511_case(kappa0: float, dkappa1: float, tolerance: float) -> int:
    """Case of Thesis Thm. 5.11: 1 if kappa(0) = 0; else 2 if kappa'(1) < 1, 3 if kappa'(1) = 1,
    4 if kappa'(1) > 1, equalities within ``tolerance`` (float round-off)."""
    if abs(kappa0) <= tolerance:
        return 1
    if dkappa1 < 1.0 - tolerance:
        return 2
    if abs(dkappa1 - 1.0) <= tolerance:
        return 3
    return 4


def thm511_rate(case: int, kappa0: float, dkappa0: float, dkappa1: float, rho_star, dkappa_star):
    """Rate alpha of Thm. 5.11 (Thesis Sec. 5.5), with case 1 corrected by our reading:
    case 1: 1 / (2 - kappa'(0)) (Thm. 5.8 Eq. (5.6); the printed (5.7) 1/kappa'(1) is an erratum:
    the proof of Thm. 5.11 itself says case 1 falls directly under Thm. 5.8);
    case 2: kappa'(1) (Eq. (5.8)); case 3: 1 - kappa(0) - kappa'(0) (Eq. (5.9));
    case 4: max{1 - kappa(0), kappa'(rho*), (1 - rho*) / (2 - kappa'(rho*))} (Eq. (5.10))."""
    if case == 1:
        return 1.0 / (2.0 - dkappa0)
    if case == 2:
        return dkappa1
    if case == 3:
        return 1.0 - kappa0 - dkappa0
    if case == 4:
        return max(1.0 - kappa0, dkappa_star, (1.0 - rho_star) / (2.0 - dkappa_star))
    raise ValueError(f"case must be 1..4, got {case}")


def check_cosines(rho0) -> np.ndarray:
    """Initial cosines rho_0 of the kernel map as float64, each in the open interval (-1, 1)
    (where the bounds of Thm. 5.11 and Cor. 5.10 are finite); a ValueError otherwise."""
    r0 = np.asarray(rho0, dtype=np.float64)
    if np.any(np.abs(r0) >= 1):
        raise ValueError("rho0 must lie in the open interval (-1, 1)")
    return r0


def convergence_bound(case: int, alpha: float, rho0, rho_star: float, layers) -> np.ndarray:
    """Upper bound on |rho_l - rho*| of Thm. 5.11 (Cor. 5.10 for case 1), shape (rho0, layers).

    case 1: Psi(rho_l) <= Psi(rho0) alpha^l solved for |rho_l| (tight form of Cor. 5.10);
    case 2: |rho0 - 1| alpha^l; case 3: |rho0 - 1| / (l alpha |rho0 - 1| + 1);
    case 4: |rho0 - rho*| alpha^l / (1 - |rho0|) (Eq. (5.10))."""
    r0 = np.asarray(rho0, dtype=np.float64)[:, None]
    ell = np.asarray(layers, dtype=np.float64)[None, :]
    gap = np.abs(r0 - rho_star)
    if case == 1:
        p = potential(r0) * alpha**ell
        return p / (1.0 + p)
    if case == 2:
        return gap * alpha**ell
    if case == 3:
        return gap / (ell * alpha * gap + 1.0)
    if case == 4:
        with np.errstate(divide="ignore"):
            return gap * alpha**ell / (1.0 - np.abs(r0))
    raise ValueError(f"case must be 1..4, got {case}")


def printed_case1_bound(dkappa1: float, rho0, layers) -> np.ndarray:
    """|rho_l| bound of the printed Thm. 5.11 Eq. (5.7), Psi(rho_l) <= Psi(rho0) kappa'(1)^-l.

    Note: an erratum (our reading: the proof of Thm. 5.11 says case 1 falls directly under
    Thm. 5.8); the correct rate is Thm. 5.8's 1 / (2 - kappa'(0)).
    """
    return convergence_bound(1, 1.0 / dkappa1, rho0, 0.0, layers)


def iterate(kappa: Callable, rho0, depth: int) -> np.ndarray:
    """rho_0..rho_depth of rho_l = kappa(rho_{l-1}) (Thesis Eq. (5.4)).

    Returns:
        shape (len(rho0), depth + 1).
    """
    rho = np.asarray(rho0, dtype=np.float64).reshape(-1)
    out = np.empty((rho.size, depth + 1))
    out[:, 0] = rho
    for ell in range(1, depth + 1):
        rho = np.clip(kappa(rho), -1.0, 1.0)
        out[:, ell] = rho
    return out


def sign_changes(kappa: Callable, n_grid: int) -> np.ndarray:
    """Interior fixed points of kappa: roots (brentq) of kappa(rho) - rho at the sign changes on an
    n_grid-point grid of (-1, 1) (zeros on the grid are roots themselves)."""
    grid = np.linspace(-1.0, 1.0, n_grid)[1:-1]
    f = kappa(grid) - grid
    roots = list(grid[f == 0.0])
    for i in np.flatnonzero(f[:-1] * f[1:] < 0):
        roots.append(
            brentq(lambda r: float(kappa(np.array([r]))[0] - r), grid[i], grid[i + 1], xtol=1e-14)
        )
    return np.sort(np.asarray(roots))


@dataclass(frozen=True)
class KernelSummary:
    """Thesis Thm. 5.11 summary of one activation (exact kernel of phi / C)."""

    name: str
    scale: float
    kappa0: float
    dkappa0: float
    dkappa1: float
    case: int
    rho_star: float
    dkappa_star: float
    alpha: float


def analyse(km: KernelMap, tolerance: float) -> KernelSummary:
    """rho*, the case and alpha of Thm. 5.11 for the exact kernel map ``km``.

    rho* = 0 (case 1), 1 (cases 2, 3), or the root of kappa(rho) = rho in (kappa(0), 1) (case 4)."""
    case = thm511_case(km.kappa0, km.dkappa1, tolerance)
    if case == 1:
        rho_star = 0.0
    elif case in (2, 3):
        rho_star = 1.0
    else:

        def f(r):
            return float(km.kappa(np.array([r]))[0] - r)

        hi = 1.0 - 1e-6
        if f(hi) >= 0:
            raise ValueError(f"{km.activation.name}: no interior fixed point below {hi}")
        rho_star = brentq(f, 0.0, hi, xtol=1e-15)
    dkappa_star = km.dkappa1 if rho_star == 1.0 else float(km.dkappa(np.array([rho_star]))[0])
    alpha = thm511_rate(case, km.kappa0, km.dkappa0, km.dkappa1, rho_star, dkappa_star)
    return KernelSummary(
        km.activation.name,
        km.scale,
        km.kappa0,
        km.dkappa0,
        km.dkappa1,
        case,
        rho_star,
        dkappa_star,
        alpha,
    )


FIG5_1 = {
    "case1": ((0.0, 0.4, math.sqrt(0.84)), 0.8),
    "case2": ((0.8, -0.2, 0.4 * math.sqrt(2.0)), -0.1),
    "case3": ((1.0 / math.sqrt(2.0), 0.0, 1.0 / math.sqrt(2.0)), -0.2),
    "case4": ((math.sqrt(0.168), 0.4, math.sqrt(0.672)), -0.9),
}
"""Thesis Fig. 5.1's custom activations, one per case of Thm. 5.11, as normalized Hermite
coefficients (c_0, c_1, c_2) with the plotted rho_0. The thesis does not give them; we recovered
them from the plot titles of the authors' original figure files in their public code
(ajoudaki/kernel-global; monomials rounded to one decimal): case 1 -0.6 + 0.4x + 0.6x^2, case 2
0.4 - 0.2x + 0.4x^2, case 3 0.2 + 0.5x^2, case 4 -0.2 + 0.4x + 0.6x^2; case 4 is chosen with
c_0^2 / c_2^2 = 1/4 so rho* = 0.25 exactly, as plotted."""


def fig5_1_activation(case: str) -> tuple[Activation, float]:
    """The custom activation of Fig. 5.1 for ``case`` ("case1".."case4") and its rho_0."""
    try:
        coefficients, rho0 = FIG5_1[case]
    except KeyError:
        raise ValueError(f"case must be one of {sorted(FIG5_1)}, got {case!r}") from None
    return hermite_activation(f"fig5_1_{case}", coefficients), rho0


def truncated_kernel_endpoints(c: np.ndarray) -> tuple[float, float]:
    """kappa(0) and kappa'(1) of the Hermite series c_0..c_K truncated at K and renormalized to
    kappa(1) = 1 (Cor. 5.7), as the authors' public code (ajoudaki/kernel-global) classifies
    Thm. 5.11's cases (order 25)."""
    a = c**2 / np.sum(c**2)
    return float(a[0]), float(np.sum(np.arange(len(a)) * a))
