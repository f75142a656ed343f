"""Thesis Figs. 5.1 and 5.2: kernel-map iterations rho_l = kappa(rho_{l-1}) (Eq. (5.4)) from one
rho_0 per activation, their distance to rho* and the Thm. 5.11 bound of the activation's case: the
plotted numbers, which ``kernel_convergence_judges`` reads back for the claims.

Subjects are names: ``case1``..``case4`` are the custom polynomials of Fig. 5.1
(``hermite.FIG5_1``), any other name an activation of ``hermite.ACTIVATIONS``
(normalized by C = sqrt(E phi^2), Fig. 5.2). Kernels are exact (``hermite.kernel_map``); the case
the order-K truncated series gives (the thesis's label, authors' code) is recorded beside it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import hermite as H

__all__ = [
    "EQUATION",
    "SOURCE",
    "kernel_convergence",
    "kernel_curves",
    "plotted_numbers",
    "subject",
]

SOURCE = {
    "fig5_1": "Thesis Fig. 5.1, Thm. 5.11 (Cor. 5.10, Eqs. (5.8)-(5.10))",
    "fig5_2": "Thesis Fig. 5.2, Thm. 5.11 (Cor. 5.10, Eqs. (5.8)-(5.10))",
}
EQUATION = {1: "Cor. 5.10 (alpha = 1 / (2 - kappa'(0)))", 2: "(5.8)", 3: "(5.9)", 4: "(5.10)"}


def subject(name: str) -> H.Activation:
    """The activation of a figure row: Fig. 5.1's polynomial ``case1``..``case4`` or a named
    activation of ``hermite.ACTIVATIONS``."""
    if name in H.FIG5_1:
        return H.fig5_1_activation(name)[0]
    return H.activation(name)


def kernel_convergence(
    subjects: list[str], rho0: list[float], layers: int, order: int, case_tolerance: float
) -> pd.DataFrame:
    """rho_0..rho_L of the exact kernel map per subject, with |rho_l - rho*| and the bound of its
    Thm. 5.11 case (``hermite.convergence_bound``, corrected rates).

    Args:
        subjects: row names (see ``subject``).
        rho0: one initial cosine in (-1, 1) per subject.
        layers: L, the number of kernel-map steps.
        order: Hermite truncation K of the thesis's case labels (authors' code: 25).
        case_tolerance: tolerance of kappa(0) = 0 and kappa'(1) = 1 (Thm. 5.11 cases).
    Returns:
        one row per (activation, layer): rho, rho_star, distance, bound, and per activation rho0,
        case (exact), case_truncated, alpha, C, kappa0, dkappa0, dkappa1, dkappa1_truncated and
        ``printed_bound`` (case 1: the printed Eq. (5.7) rate 1 / kappa'(1), an erratum; else NaN).
    """
    if len(subjects) != len(rho0):
        raise ValueError(f"need one rho0 per subject, got {len(rho0)} for {len(subjects)}")
    r0 = H.check_cosines(rho0)
    if layers < 1:
        raise ValueError(f"layers must be >= 1, got {layers}")
    ell = np.arange(layers + 1)
    frames = []
    for name, start in zip(subjects, r0, strict=True):
        act = subject(name)
        km = H.kernel_map(act)
        s = H.analyse(km, case_tolerance)
        c = H.hermite_coefficients(act, order) / km.scale
        k0_trunc, dk1_trunc = H.truncated_kernel_endpoints(c)
        path = H.iterate(km.kappa, [start], layers)[0]
        bound = H.convergence_bound(s.case, s.alpha, [start], s.rho_star, ell)[0]
        printed = H.printed_case1_bound(s.dkappa1, [start], ell)[0] if s.case == 1 else np.nan
        frames.append(
            pd.DataFrame(
                {
                    "activation": name,
                    "layer": ell,
                    "rho": path,
                    "rho_star": s.rho_star,
                    "distance": np.abs(path - s.rho_star),
                    "bound": bound,
                    "printed_bound": printed,
                    "rho0": start,
                    "case": s.case,
                    "case_truncated": H.thm511_case(k0_trunc, dk1_trunc, case_tolerance),
                    "alpha": s.alpha,
                    "C": km.scale,
                    "kappa0": s.kappa0,
                    "dkappa0": s.dkappa0,
                    "dkappa1": s.dkappa1,
                    "dkappa1_truncated": dk1_trunc,
                    "order": order,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def kernel_curves(subjects: list[str], n_points: int, x_max: float = 3.0) -> pd.DataFrame:
    """phi / C on [-x_max, x_max] and kappa on [-1, 1] (n_points each) per subject, for the left
    and middle columns of the figures.

    Returns:
        rows (activation, panel in {"activation", "kernel"}, x, y).
    """
    if n_points < 2:
        raise ValueError(f"n_points must be >= 2, got {n_points}")
    x = np.linspace(-x_max, x_max, n_points)
    rho = np.linspace(-1.0, 1.0, n_points)
    frames = []
    for name in subjects:
        km = H.kernel_map(subject(name))
        for panel, grid, y in (
            ("activation", x, km.activation.phi(x) / km.scale),
            ("kernel", rho, km.kappa(rho)),
        ):
            frames.append(pd.DataFrame({"activation": name, "panel": panel, "x": grid, "y": y}))
    return pd.concat(frames, ignore_index=True)


def plotted_numbers(convergence: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """One table of a figure's plotted numbers: ``kernel_convergence`` rows (``panel``
    ``"convergence"``) followed by the ``kernel_curves`` rows (``"activation"``, ``"kernel"``)."""
    return pd.concat([convergence.assign(panel="convergence"), curves], ignore_index=True)
