"""Thesis Thm. 5.8, Cor. 5.10, Thm. 5.11 and Remarks 5.12-5.14 along exact kernel iterations.

For each activation (normalized, exact kernel map of ``hermite``) the kernel sequence
rho_l = kappa(rho_{l-1}) (Eq. (5.4)) is iterated ``depth`` layers from every rho_0, and the bound of
its Thm. 5.11 case is compared layer by layer. Subjects: the configured activations, the four
custom polynomials of Fig. 5.1, and he_3 (kappa = rho^3, Remark 5.13). Controls: identity (every
point fixed: the non-linearity hypothesis is needed) and he_3 from rho_0 = +-1 (stuck: the
exclusion of +-1 is needed); the printed Eq. (5.7) rate 1 / kappa'(1) is reported as violated.

``kernel_bounds`` measures (one row per activation and bound); ``kernel_bound_judges`` judges.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import hermite as H

__all__ = ["SOURCE", "kernel_bounds"]

SOURCE = "Thesis Thm. 5.11"


def _subjects(activations: list[str]) -> list[H.Activation]:
    subjects = [H.activation(name) for name in activations]
    subjects += [H.fig5_1_activation(case)[0] for case in H.FIG5_1]
    subjects.append(H.hermite_activation("he3", [0.0, 0.0, 0.0, 1.0]))
    return subjects


def _excess(lhs: np.ndarray, bound: np.ndarray) -> tuple[float, float]:
    """max(lhs - bound) and the largest lhs / bound (how close the bound comes), over layers
    l >= 1 (at l = 0 every bound holds with equality or trivially)."""
    lhs, bound = lhs[:, 1:], bound[:, 1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(bound > 0, lhs / bound, np.where(lhs > 0, np.inf, 0.0))
    return float(np.max(lhs - bound)), float(np.max(ratio))


def _controls(r0: np.ndarray, depth: int) -> list[dict]:
    """Remark 5.13 controls: the identity (every rho_0 fixed) and he_3 from rho_0 = +-1."""
    ident = H.kernel_map("identity")
    ident_path = H.iterate(ident.kappa, r0, depth)
    he3 = H.kernel_map(H.hermite_activation("he3", [0.0, 0.0, 0.0, 1.0]))
    he3_path = H.iterate(he3.kappa, np.array([-1.0, 1.0]), depth)
    return [
        {
            "activation": "identity",
            "check": "control_identity",
            "equation": "Remark 5.13",
            "max_excess": float(np.abs(ident_path - r0[:, None]).max()),
        },
        {
            "activation": "he3",
            "check": "control_he3_pm1",
            "equation": "Remark 5.13",
            "max_excess": float(np.abs(np.abs(he3_path) - 1.0).max()),
        },
    ]


def kernel_bounds(
    activations: list[str],
    rho0: list[float],
    depth: int,
    n_grid: int,
    case_tolerance: float,
    device: str = "cpu",
) -> pd.DataFrame:
    """Bounds of Thm. 5.8 / Cor. 5.10 / Thm. 5.11 (5.8)-(5.10) and fixed-point uniqueness.

    Args:
        activations: names of ``hermite.ACTIVATIONS`` (Fig. 5.1's polynomials and he_3
            are always added).
        rho0: initial cosines in (-1, 1).
        depth: layers of the iteration.
        n_grid: grid of [-1, 1] scanned for sign changes of kappa(rho) - rho.
        case_tolerance: tolerance of kappa(0) = 0 and kappa'(1) = 1.
        device: unused (numpy float64 on the CPU); accepted for the generic rule.
    Returns:
        one row per (activation, bound) with the case, alpha, rho*, the max excess of the
        iterates over the bound and the max ratio, plus the fixed-point scan.
    """
    r0 = H.check_cosines(rho0)
    ell = np.arange(depth + 1)
    rows = []
    uniqueness = []
    for act in _subjects(activations):
        km = H.kernel_map(act)
        s = H.analyse(km, case_tolerance)
        path = H.iterate(km.kappa, r0, depth)
        base = {
            "activation": act.name,
            "case": s.case,
            "alpha": s.alpha,
            "rho_star": s.rho_star,
            "kappa0": s.kappa0,
            "dkappa0": s.dkappa0,
            "dkappa1": s.dkappa1,
            "dkappa_star": s.dkappa_star,
            "final_distance": float(np.abs(path[:, -1] - s.rho_star).max()),
        }
        checks = []
        if s.case == 1:
            psi_bound = H.potential(r0)[:, None] * s.alpha**ell
            checks.append(("thm5_8", "(5.6)", H.potential(path), psi_bound))
            checks.append(("cor5_10", "Cor. 5.10", np.abs(path), psi_bound))
            printed = H.potential(r0)[:, None] * (1.0 / s.dkappa1) ** ell
            checks.append(("printed_eq5_7", "(5.7) printed", H.potential(path), printed))
        else:
            eq = {2: "(5.8)", 3: "(5.9)", 4: "(5.10)"}[s.case]
            bound = H.convergence_bound(s.case, s.alpha, r0, s.rho_star, ell)
            checks.append((f"case{s.case}", eq, np.abs(path - s.rho_star), bound))
        for check, equation, lhs, bound in checks:
            excess, ratio = _excess(lhs, bound)
            rows.append(
                {
                    **base,
                    "check": check,
                    "equation": equation,
                    "max_excess": excess,
                    "max_ratio": ratio,
                }
            )
        roots = H.sign_changes(km.kappa, n_grid)
        expected = [] if s.case in (2, 3) else [s.rho_star]
        ok = len(roots) == len(expected) and np.allclose(roots, expected, atol=1e-8)
        uniqueness.append(
            {
                **base,
                "check": "fixed_points",
                "equation": "Thm. 5.11 uniqueness",
                "interior_fixed_points": " ".join(f"{r:.10f}" for r in roots),
                "unique_ok": bool(ok),
            }
        )
    return pd.DataFrame(rows + uniqueness + _controls(r0, depth))
