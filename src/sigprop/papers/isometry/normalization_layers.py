"""Thesis Thm. 5.15 (normalization layers) and Props. 5.1/5.2 (finite width follows the kernel map).

Normalization variants (Thesis Eqs. (5.11)-(5.13)): no norm h = psi(W h) with psi = phi / C;
pre-act h = phi(norm(W h)); post-act h = norm(phi(W h)); norm = LN (centred, ``ops.ln_centered``)
or RMS (``ops.ln_rms``), applied per sample (column of the (d, n) state). In the mean field the
layer acts as one effective activation psi (proof of Thm. 5.15; catalog Sec. 1.3):

    none, pre-RMS, pre-LN, post-RMS:  kappa_psi = kappa / kappa(1)              (psi = phi / C)
    post-LN:                          kappa_psi = (kappa - kappa(0)) / (kappa(1) - kappa(0))

with kappa the normalized kernel map of ``sigprop.hermite`` (kappa(1) = 1).

- ``theorem5_15``: the exact kernel sequence rho_l = kappa_psi(rho_{l-1}) against the printed bound
  Psi(rho_l) <= Psi(rho_0) alpha^l, alpha = (kappa(1) - kappa(0)) / kappa'(1) (Eq. (5.14),
  expected to fail: catalog Sec. 2, post-LN ReLU) and against the rate the proof's reduction to
  Thm. 5.8 gives, alpha = 1 / (2 - kappa_psi'(0)), where the theorem's conditions hold
  (phi non-linear; E phi = 0 unless post-LN). Negative control: with a non-centred phi and no
  centring layer the bound fails (rho_l tends to rho* > 0), so the centring condition is needed.
- ``prop5_1``: finite-width MLPs on two inputs with cosine rho_0, Gaussian (``GaussianGramProduct``,
  exact in law) and uniform (``ExplicitProduct``) weights of variance 1/d; the empirical cosine
  against kappa_psi^l(rho_0): the error shrinks like d^{-1/2} (log-log slope) and the two laws
  give the same curve (Prop. 5.2). Negative control: the post-LN chain against the un-centred
  kernel kappa (the wrong effective activation) does not converge.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import torch
from torch import Tensor

from .. import hermite as H
from .. import ops, seeding
from ..chains import ExplicitProduct, GaussianGramProduct
from ..claims import evaluate
from ..stats import bootstrap_slope, mean_se
from . import TheoremCheck

__all__ = [
    "NORMS",
    "EXPERIMENT_ID",
    "effective_kernel",
    "finite_width_cosines",
    "layer",
    "pair_inputs",
    "prop5_1",
    "theorem5_15",
]

NORMS = ("none", "pre_rms", "pre_ln", "post_rms", "post_ln")
"""Thesis Eqs. (5.11)-(5.13): no normalization, RMS / LN before or after the activation."""

EXPERIMENT_ID = "isometry.prop5_1"


def _check_norm(norm: str) -> None:
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")


def effective_kernel(km: H.KernelMap, norm: str) -> tuple[Callable, float, float, float]:
    """Mean-field kernel map kappa_psi of the effective activation psi (proof of Thm. 5.15).

    Returns:
        (kappa_psi, kappa_psi(0), kappa_psi'(0), kappa_psi'(1)); post-LN divides the centred
        kernel kappa - kappa(0) by kappa(1) - kappa(0) = 1 - kappa(0), every other variant keeps
        the normalized kappa (kappa(1) = 1).
    """
    _check_norm(norm)
    if norm != "post_ln":
        return km.kappa, km.kappa0, km.dkappa0, km.dkappa1
    var = 1.0 - km.kappa0
    if not var > 0:
        raise ValueError(f"{km.activation.name}: post-LN needs a non-constant phi")
    k0 = km.kappa0
    return (lambda r: (km.kappa(r) - k0) / var), 0.0, km.dkappa0 / var, km.dkappa1 / var


def theorem5_15(
    activations: list[str],
    norms: list[str],
    rho0: list[float],
    depth: int,
    case_tolerance: float,
    float_tolerance: float,
    device: str = "cpu",
) -> TheoremCheck:
    """Thm. 5.15 (Eq. (5.14)) for every (activation, normalization) on exact kernel iterations.

    Conditions (Thm. 5.15): phi non-linear (kappa_psi'(0) < 1); no norm, pre/post-RMS, pre-LN
    need E phi = 0 (kappa(0) <= ``case_tolerance``); post-LN none. No norm uses phi / C
    (E psi^2 = 1), as the theorem assumes.

    Args:
        activations: names of ``sigprop.hermite.ACTIVATIONS``.
        norms: subset of ``NORMS``.
        rho0: initial cosines in (-1, 1).
        depth: layers of the iteration.
        case_tolerance: tolerance of kappa(0) = 0 (E phi = 0).
        float_tolerance: allowed excess over a bound (round-off of iterated quadrature).
        device: unused (numpy float64); accepted for the generic rule.
    Returns:
        one row per (activation, norm): conditions, both alphas, max excess of Psi(rho_l) over each
        bound, number of violated (rho_0, layer) pairs and the final |rho_L|.
    """
    r0 = np.asarray(rho0, dtype=np.float64)
    if np.any(np.abs(r0) >= 1):
        raise ValueError("rho0 must lie in the open interval (-1, 1)")
    for norm in norms:
        _check_norm(norm)
    ell = np.arange(depth + 1)
    psi0 = H.potential(r0)[:, None]
    rows = []
    for name in activations:
        km = H.kernel_map(name)
        paths: dict[bool, np.ndarray] = {}
        for norm in norms:
            kappa, k0, dk0, dk1 = effective_kernel(km, norm)
            centred = norm == "post_ln"
            if centred not in paths:
                paths[centred] = H.iterate(kappa, r0, depth)
            path = paths[centred]
            lhs = H.potential(path)[:, 1:]
            printed = (1.0 - km.kappa0) / km.dkappa1  # (kappa(1) - kappa(0)) / kappa'(1)
            corrected = 1.0 / (2.0 - dk0)
            row = {
                "activation": name,
                "norm": norm,
                "kappa0": km.kappa0,
                "kappa_psi0": k0,
                "dkappa_psi0": dk0,
                "dkappa_psi1": dk1,
                "centred_ok": bool(norm == "post_ln" or km.kappa0 <= case_tolerance),
                "nonlinear_ok": bool(dk0 < 1.0 - case_tolerance),
                "alpha_printed": printed,
                "alpha_corrected": corrected,
                "final_abs_rho": float(np.abs(path[:, -1]).max()),
            }
            row["conditions_hold"] = row["centred_ok"] and row["nonlinear_ok"]
            for label, alpha in (("printed", printed), ("corrected", corrected)):
                excess = lhs - psi0 * alpha ** ell[None, 1:]
                row[f"max_excess_{label}"] = float(excess.max())
                row[f"violations_{label}"] = int((excess > float_tolerance).sum())
            rows.append(row)
    table = pd.DataFrame(rows)
    return TheoremCheck(table, _claims_5_15(table, depth, len(r0), float_tolerance))


def _cases(frame: pd.DataFrame) -> str:
    return ", ".join(f"{a}/{n}" for a, n in zip(frame["activation"], frame["norm"], strict=True))


def _claims_5_15(table: pd.DataFrame, depth: int, n_rho0: int, tol: float) -> list:
    grid = f"{n_rho0} rho_0 in (-1, 1), layers 1..{depth}"
    valid = table[table["conditions_hold"]]
    invalid = table[~table["centred_ok"]]
    source = "Thesis Thm. 5.15 Eq. (5.14), Eqs. (5.11)-(5.13)"
    claims = [
        evaluate(
            id="isometry.theorem5_15.printed_eq5_14",
            statement=(
                "Thm. 5.15 as printed: Psi(rho_l) <= Psi(rho_0) alpha^l with alpha = (kappa(1) - "
                "kappa(0)) / kappa'(1), Psi(rho) = |rho| / (1 - |rho|), wherever the theorem's "
                f"conditions hold; max excess over the bound ({grid})"
            ),
            source=source,
            measured=valid["max_excess_printed"].max(),
            relation="<=",
            bound=0.0,
            tolerance=tol,
            note=(
                "expected failure (catalog Sec. 2: post-LN ReLU alpha 0.682 < asymptotic rate "
                "kappa_psi'(0) = 0.733); violated cases: "
                + _cases(valid[valid["violations_printed"] > 0])
            ),
        ),
        evaluate(
            id="isometry.theorem5_15.corrected_rate",
            statement=(
                "Thm. 5.15 with the rate of its reduction to Thm. 5.8: Psi(rho_l) <= Psi(rho_0) "
                "alpha^l, alpha = 1 / (2 - kappa_psi'(0)), wherever the conditions hold (phi "
                "non-linear; E phi = 0 for no norm, pre-/post-RMS, pre-LN; none for post-LN); "
                f"max excess over the bound ({grid})"
            ),
            source=source + "; Thm. 5.8 Eq. (5.6)",
            measured=valid["max_excess_corrected"].max(),
            relation="<=",
            bound=0.0,
            tolerance=tol,
            note=f"float64 round-off of iterated quadrature; cases: {_cases(valid)}",
        ),
        evaluate(
            id="isometry.theorem5_15.alpha_below_one",
            statement=(
                "Thm. 5.15: alpha = 1 / (2 - kappa_psi'(0)) < 1 for non-linear phi (max alpha "
                "over the cases whose conditions hold)"
            ),
            source=source,
            measured=valid["alpha_corrected"].max(),
            relation="<=",
            bound=1.0 - tol,
        ),
    ]
    if len(invalid):
        claims.append(
            evaluate(
                id="isometry.theorem5_15.control_uncentred",
                statement=(
                    "negative control: with E phi != 0 and no centring layer (no norm, pre-/"
                    "post-RMS, pre-LN) the bound with alpha = 1 / (2 - kappa'(0)) fails, since "
                    "rho_l tends to rho* > 0; min over those cases of the max excess"
                ),
                source=source + " (centring condition)",
                measured=invalid["max_excess_corrected"].min(),
                relation=">=",
                bound=tol,
                note=f"cases: {_cases(invalid)}",
            )
        )
    return claims


# ---------------------------------------------------------------------------------------------
# finite width (Props. 5.1, 5.2)


def pair_inputs(d: int, rho0: float, runs: Sequence[int], dtype=torch.float64) -> Tensor:
    """Two inputs per run with squared norm d and cosine exactly rho0: x = sqrt(d) u,
    y = sqrt(d)(rho0 u + sqrt(1 - rho0^2) v), u, v orthonormal (Gram-Schmidt of Gaussians from
    stream ``"input"``). Shape (runs, d, 2)."""
    if not -1.0 < rho0 < 1.0:
        raise ValueError(f"rho0 must lie in (-1, 1), got {rho0}")
    out = []
    for r in runs:
        g = seeding.generator(EXPERIMENT_ID, r, "input")
        z = torch.randn(d, 2, generator=g, dtype=dtype)
        q, _ = torch.linalg.qr(z)
        u, v = q[:, 0], q[:, 1]
        out.append(math.sqrt(d) * torch.stack([u, rho0 * u + math.sqrt(1 - rho0**2) * v], 1))
    return torch.stack(out)


def _apply(act: H.Activation, scale: float, h: Tensor) -> Tensor:
    return torch.from_numpy(act.phi(h.cpu().numpy()) / scale).to(h)


def layer(wh: Tensor, act: H.Activation, scale: float, norm: str) -> Tensor:
    """One layer of Eqs. (5.1), (5.11), (5.12) given the product W h (runs, d, n): no norm
    psi(W h) with psi = phi / scale; pre-act phi(norm(W h)); post-act norm(phi(W h)); norm per
    column (sample): RMS = ``ops.ln_rms``, LN = ``ops.ln_centered`` (Eq. (5.13))."""
    _check_norm(norm)
    if norm == "none":
        return _apply(act, scale, wh)
    f = ops.ln_rms if norm.endswith("rms") else ops.ln_centered
    if norm.startswith("pre"):
        return _apply(act, 1.0, f(wh))
    return f(_apply(act, 1.0, wh))


def _cosine(h: Tensor) -> Tensor:
    x, y = h[..., 0], h[..., 1]
    return (x * y).sum(-1) / (x.norm(dim=-1) * y.norm(dim=-1))


@torch.no_grad()
def finite_width_cosines(
    variants: Sequence[tuple[str, str]],
    d: int,
    rho0: float,
    depth: int,
    runs: int,
    law: str,
) -> np.ndarray:
    """Empirical cosines rho_1..rho_depth of finite-width MLPs, shape (variants, runs, depth).

    All variants (activation, norm) of a run share its weights W_l (one product with 2V columns,
    the columns of each variant exact in law); ``law="gaussian"`` uses ``GaussianGramProduct``
    (exact in law), ``"uniform"`` draws W explicitly (U[-sqrt(3/d), sqrt(3/d)]).
    """
    run_ids = list(range(runs))
    kms = {a: H.kernel_map(a) for a, _ in variants}
    n = 2 * len(variants)
    eid = f"{EXPERIMENT_ID}.{law}.d{d}"
    if law == "gaussian":
        product = GaussianGramProduct(eid, run_ids, d, n, 1.0 / d)
    elif law == "uniform":
        product = ExplicitProduct(eid, run_ids, d, "uniform", 1.0 / d)
    else:
        raise ValueError(f"law must be 'gaussian' or 'uniform', got {law!r}")
    h = pair_inputs(d, rho0, run_ids).repeat(1, 1, len(variants))
    out = np.empty((len(variants), runs, depth))
    for ell in range(depth):
        wh = product(h)
        blocks = []
        for i, (a, norm) in enumerate(variants):
            km = kms[a]
            blocks.append(layer(wh[..., 2 * i : 2 * i + 2], km.activation, km.scale, norm))
        h = torch.cat(blocks, dim=-1)
        for i in range(len(variants)):
            out[i, :, ell] = _cosine(h[..., 2 * i : 2 * i + 2]).numpy()
    return out


def prop5_1(
    activations: list[str],
    norms: list[str],
    widths: list[int],
    depth: int,
    runs: int,
    rho0: float,
    laws: list[str],
    slope_z: float,
    slope_slack: float,
    agree_z: float,
    control_slope: float,
    device: str = "cpu",
) -> TheoremCheck:
    """Props. 5.1/5.2 and Thm. 5.15 at finite width: empirical cosine vs kappa_psi^l(rho_0).

    Error per run: e = mean over layers 1..depth of |rho_l - kappa_psi^l(rho_0)|.

    Args:
        activations, norms: the variants (every pair); no norm uses phi / C.
        widths: d values (at least 3 for a slope with an SE).
        depth, runs, rho0: layers, independent runs per (law, d), input cosine.
        laws: weight laws ("gaussian", "uniform"); the first two are compared.
        slope_z, slope_slack: |slope + 1/2| <= slope_z SE + slope_slack.
        agree_z: max |difference of the laws' mean layer-averaged cosine| / SE.
        control_slope: the post-LN chain against the un-centred kappa must have slope above this.
        device: unused (CPU float64; the activations are numpy); accepted for the generic rule.
    """
    torch.set_num_threads(1)
    if len(widths) < 3:
        raise ValueError(f"widths needs at least 3 values for a slope SE, got {widths}")
    variants = [(a, n) for a in activations for n in norms]
    for _, n in variants:
        _check_norm(n)
    theory, control = {}, {}
    for a in activations:
        km = H.kernel_map(a)
        for norm in norms:
            kappa = effective_kernel(km, norm)[0]
            theory[a, norm] = H.iterate(kappa, [rho0], depth)[0, 1:]
            if norm == "post_ln" and km.kappa0 > 1e-6:
                control[a, norm] = H.iterate(km.kappa, [rho0], depth)[0, 1:]
    records = []
    for law in laws:
        for d in widths:
            cos = finite_width_cosines(variants, d, rho0, depth, runs, law)
            for i, (a, norm) in enumerate(variants):
                err = np.abs(cos[i] - theory[a, norm]).mean(axis=1)
                wrong = (
                    np.abs(cos[i] - control[a, norm]).mean(axis=1)
                    if (a, norm) in control
                    else np.full(runs, np.nan)
                )
                for r in range(runs):
                    records.append(
                        {
                            "law": law,
                            "activation": a,
                            "norm": norm,
                            "d": d,
                            "run": r,
                            "error": err[r],
                            "error_wrong_kernel": wrong[r],
                            "mean_cosine": cos[i, r].mean(),
                            "final_cosine": cos[i, r, -1],
                            "final_theory": theory[a, norm][-1],
                        }
                    )
    runs_table = pd.DataFrame(records)
    return _claims_5_1(runs_table, laws, slope_z, slope_slack, agree_z, control_slope, depth)


def _claims_5_1(runs_table, laws, slope_z, slope_slack, agree_z, control_slope, depth):
    rows, claims = [], []
    keys = ["law", "activation", "norm"]
    for (law, a, norm), g in runs_table.groupby(keys, sort=False):
        fit = bootstrap_slope(g, "d", "error")
        row = {"law": law, "activation": a, "norm": norm, "slope": fit[0], "slope_se": fit[1]}
        if g["error_wrong_kernel"].notna().all():
            wrong = bootstrap_slope(g, "d", "error_wrong_kernel")
            row["slope_wrong_kernel"], row["slope_wrong_kernel_se"] = wrong
        for d, gd in g.groupby("d"):
            m, se = mean_se(gd["error"])
            row[f"error_d{d}"], row[f"error_se_d{d}"] = m, se
        row["excess"] = abs(fit[0] + 0.5) - slope_z * fit[1]
        rows.append(row)
    table = pd.DataFrame(rows)
    setup = f"{depth} layers, errors averaged over layers, slope of log mean error vs log d"
    for law in laws:
        t = table[table["law"] == law]
        worst = t.loc[t["excess"].idxmax()]
        prop = "Prop. 5.1" if law == "gaussian" else "Prop. 5.2"
        claims.append(
            evaluate(
                id=f"isometry.prop5_1.slope_{law}",
                statement=(
                    f"{prop} / Thm. 5.15 at finite width, {law} weights of variance 1/d: the "
                    "error |rho_l - kappa_psi^l(rho_0)| shrinks like d^{-1/2}; max over "
                    f"(activation, norm) of |slope + 1/2| - {slope_z} SE ({setup})"
                ),
                source=f"Thesis {prop}, Thm. 5.15 (mean field); catalog Sec. 2",
                measured=worst["excess"],
                relation="<=",
                bound=slope_slack,
                measured_se=worst["slope_se"],
                note=(
                    f"worst {worst['activation']}/{worst['norm']}: slope {worst['slope']:.3f} +- "
                    f"{worst['slope_se']:.3f}; slack for the O(1/d) bias at small d"
                ),
            )
        )
    if len(laws) >= 2:
        g0, g1 = laws[:2]
        stats = []
        for (a, norm, d), g in runs_table.groupby(["activation", "norm", "d"], sort=False):
            m0, s0 = mean_se(g.loc[g["law"] == g0, "mean_cosine"])
            m1, s1 = mean_se(g.loc[g["law"] == g1, "mean_cosine"])
            stats.append((abs(m0 - m1) / math.hypot(s0, s1), a, norm, d))
        z, a, norm, d = max(stats)
        claims.append(
            evaluate(
                id="isometry.prop5_1.laws_agree",
                statement=(
                    f"Prop. 5.2: {g0} and {g1} weights give the same cosine curve: max over "
                    "(activation, norm, d) of |difference of the mean layer-averaged cosine| / SE"
                ),
                source="Thesis Prop. 5.2",
                measured=z,
                relation="<=",
                bound=agree_z,
                note=f"worst {a}/{norm} at d = {d}; {len(stats)} comparisons, Bonferroni-style z",
            )
        )
    ctrl = table.dropna(subset=["slope_wrong_kernel"]) if "slope_wrong_kernel" in table else None
    if ctrl is not None and len(ctrl):
        claims.append(
            evaluate(
                id="isometry.prop5_1.control_wrong_kernel",
                statement=(
                    "negative control: the post-LN chain of a non-centred phi compared with the "
                    "un-centred kernel kappa (not kappa_psi) does not converge with d: min slope "
                    "of the error vs log d"
                ),
                source="Thesis Thm. 5.15 proof (post-LN effective activation)",
                measured=ctrl["slope_wrong_kernel"].min(),
                relation=">=",
                bound=control_slope,
                note="cases: " + ", ".join(f"{r.law}/{r.activation}" for r in ctrl.itertuples()),
            )
        )
    return TheoremCheck(table, claims)
