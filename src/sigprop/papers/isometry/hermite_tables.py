"""Thesis Tables 5.1 and 5.2 (Hermite polynomials; activation, Hermite and kernel properties),
generated from ``hermite``; the claims read back from their CSVs are
``hermite_table_judges`` (torch-free)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...engine.seeding import derive_seed
from . import hermite as H

PRINTED_HE = {
    0: [1.0],
    1: [0.0, 1.0],
    2: [-1.0, 0.0, 1.0],
    3: [0.0, -3.0, 0.0, 1.0],
    4: [3.0, 0.0, -6.0, 0.0, 1.0],
}
"""Thesis Table 5.1: He_k in increasing powers of x."""


def _polynomial_text(coefficients) -> str:
    terms = []
    for power in range(len(coefficients) - 1, -1, -1):
        a = coefficients[power]
        if a == 0:
            continue
        mag = abs(a)
        body = {0: f"{mag:g}", 1: "x", 2: "x^2"}.get(power, f"x^{power}")
        if power and mag != 1:
            body = f"{mag:g}" + body
        terms.append(("-" if a < 0 else "+", body))
    sign, body = terms[0]
    text = ("-" if sign == "-" else "") + body
    return text + "".join(f" {s} {b}" for s, b in terms[1:])


def table5_1(max_order: int, nodes: int) -> pd.DataFrame:
    """Thesis Table 5.1: He_k and he_k = He_k / sqrt(k!), k = 0..4, with the orthonormality
    E he_k he_l = delta_kl (Eq. (5.5)) checked by an exact Gauss-Hermite rule for k, l <= max_order.

    Returns:
        rows k = 0..4: ``He_k``, ``he_k`` (text), ``recursion_error`` (max relative
        |He_k(x) from the recursion - printed He_k(x)| at the rule's nodes), and on every row
        the table-wide
        ``orthonormality_error`` (max |E he_k he_l - delta_kl|), ``max_order``, ``nodes``.
    """
    if 2 * nodes - 1 < 2 * max_order:
        raise ValueError(f"nodes = {nodes} is not exact for degree 2 max_order = {2 * max_order}")
    x, w = H.gauss_hermite(nodes)
    values = H.he(max_order, x)
    ortho = float(np.abs((values * w) @ values.T - np.eye(max_order + 1)).max())
    recursion = H.hermite_he(4, x)
    rows = []
    for k, coefficients in PRINTED_HE.items():
        printed = np.polynomial.Polynomial(coefficients)(x)
        text = _polynomial_text(coefficients)
        norm = "" if k < 2 else f" / sqrt({math.factorial(k)})"
        rows.append(
            {
                "k": k,
                "He_k": text,
                "he_k": f"({text}){norm}" if norm else text,
                "recursion_error": float(
                    (np.abs(recursion[k] - printed) / np.maximum(1.0, np.abs(printed))).max()
                ),
                "orthonormality_error": ortho,
                "max_order": max_order,
                "nodes": nodes,
            }
        )
    return pd.DataFrame(rows)


def _monte_carlo(name, act, km, mc_rhos, mc_samples) -> dict:
    """Monte Carlo kappa(rho) against the exact kernel: the largest |MC - exact| / SE and
    |MC - exact|, and |MC - exact| with its SE at the rho of the largest |MC - exact| + 2 SE."""
    mc, se = H.monte_carlo_kernel(
        act, np.asarray(mc_rhos), mc_samples, derive_seed("isometry.table5_2", 0, name)
    )
    exact = km.kappa(np.asarray(mc_rhos))
    z = np.abs(mc - exact) / np.where(se > 0, se, np.inf)
    worst = int(np.argmax(np.abs(mc - exact) + 2.0 * se))  # largest upper end, about 95%
    return {
        "mc_max_z": float(np.max(z)),
        "mc_max_abs_error": float(np.max(np.abs(mc - exact))),
        "mc_worst_error": float(abs(mc[worst] - exact[worst])),
        "mc_worst_se": float(se[worst]),
    }


def table5_2(
    activations: list[str],
    order: int,
    series_order: int,
    series_rho_max: float,
    case_tolerance: float,
    mc_samples: int,
    mc_rhos: list[float],
) -> pd.DataFrame:
    """Thesis Table 5.2 made numeric: per activation phi (normalized by C = sqrt(E phi^2)) the
    kernel properties of Thm. 5.11 exactly and from the order-``order`` Hermite series, and the
    agreement of four routes to kappa (series, 2-D quadrature, closed form, Monte Carlo).

    Returns:
        one row per activation: C, kappa0, dkappa0, dkappa1 (exact, Stein), dkappa1_truncated,
        kappa0_truncated, rho_star, dkappa_star, case, case_truncated, alpha (corrected rate),
        centered/stable/nonlinear flags; ``stein_error`` (2-D quadrature at rho = 0, 1 vs the
        1-D identities), ``series_error`` and ``series_tail_bound`` (order ``series_order`` on
        |rho| <= series_rho_max vs quadrature; the bound is rho_max^(K+1) (1 - sum c_k^2)),
        ``closed_form_error`` (NaN without a closed form), ``mc_max_z`` (max |MC - exact| / SE),
        ``mc_worst_error``, ``mc_worst_se`` (see ``_monte_carlo``).
    """
    rows = []
    grid = np.linspace(-series_rho_max, series_rho_max, 19)
    full = np.linspace(-1.0, 1.0, 21)
    for name in activations:
        act = H.activation(name)
        km = H.kernel_map(act)
        quad = H.kernel_map(act, method="quadrature") if km.method != "quadrature" else km
        s = H.analyse(km, case_tolerance)
        c = H.hermite_coefficients(act, order) / km.scale
        k0_trunc, dk1_trunc = H.truncated_kernel_endpoints(c)
        case_trunc = H.thm511_case(k0_trunc, dk1_trunc, case_tolerance)
        stein = max(
            abs(quad.kappa(0.0) - km.kappa0),
            abs(quad.dkappa(0.0) - km.dkappa0),
            abs(quad.kappa(1.0) - 1.0),
            abs(quad.dkappa(1.0) - km.dkappa1),
            abs(c[0] ** 2 - km.kappa0),
            abs(c[1] ** 2 - km.dkappa0),
        )
        cs = H.hermite_coefficients(act, series_order) / km.scale
        series_error = float(np.abs(H.series_kernel(cs, grid) - quad.kappa(grid)).max())
        tail = series_rho_max ** (series_order + 1) * max(0.0, 1.0 - float(np.sum(cs**2)))
        closed = math.nan
        if name in H.CLOSED_FORMS:
            closed = float(
                max(
                    np.abs(H.closed_form_kernel(name, full) - quad.kappa(full)).max(),
                    np.abs(H.closed_form_kernel(name, full, 1) - quad.dkappa(full)).max(),
                )
            )
        rows.append(
            {
                "activation": name,
                "C": km.scale,
                "kappa0": km.kappa0,
                "dkappa0": km.dkappa0,
                "dkappa1": km.dkappa1,
                "kappa0_truncated": k0_trunc,
                "dkappa1_truncated": dk1_trunc,
                "rho_star": s.rho_star,
                "dkappa_star": s.dkappa_star,
                "case": s.case,
                "case_truncated": case_trunc,
                "alpha": s.alpha,
                "centered": bool(km.kappa0 <= case_tolerance),
                "nonlinear": bool(1.0 - c[0] ** 2 - c[1] ** 2 > case_tolerance),
                "stein_error": float(stein),
                "series_error": series_error,
                "series_tail_bound": tail,
                "closed_form_error": closed,
                **_monte_carlo(name, act, km, mc_rhos, mc_samples),
                "order": order,
                "series_order": series_order,
                "mc_samples": mc_samples,
                "n_mc": len(mc_rhos),
            }
        )
    return pd.DataFrame(rows)
