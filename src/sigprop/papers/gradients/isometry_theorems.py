"""Theorem checks of Thesis ch. 6 / app. C.1-C.2: isometry after rotation and BN, its decay rate.

Thesis Sec. 6.2 and app. C.1-C.2 (Lemmas C.1, 6.2, C.8, C.9, Thm. 6.3, Cor. 6.4). Definitions in
``isometry_decay``; float64. Each item is a ``measure_<item>`` (all random numbers, one table) and
a ``judge_<item>`` (the claims, from that table read back from CSV, and the config slice; in
``isometry_theorem_judges``, torch-free).

- ``lemma6_2``: Lemma C.1 (exact identity I(BN X) / I(X) = AM(r^2) / GM(r^2), r = row norms, and
  the bound (C.1)), Lemma 6.2 / C.2 (I(W X) = I(X), and (C.2)), Cor. C.3 (BN(U^T X) = V^T).
- ``theorem6_3``: Monte Carlo over Haar W of Thm. 6.3 / C.4 (Eq. (6.8)), Cor. 6.4 / C.6
  (Eq. (6.9)), Eq. (C.48), equality for orthogonal X, the Weingarten moments (C.29)-(C.31) and
  E W_ik^2 = 1/d, the printed "eigenvalues in (0, 1]" (erratum), and two negative controls.
- ``lemma_c8_c9``: Lemma C.8 as printed (erratum), Eq. (C.56), (C.53), (C.60) on random
  trace-normalized spectra, and Lemma C.9's two regimes (C.49), (C.50) by Monte Carlo.

Claim ids ``gradients.<item>.<what>``; random streams ``seeding.generator("gradients.<item>", d,
<stream>)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
import torch
from torch import Tensor

from ...base.config import ConfigError, check_widths
from ...engine import gram_isometry as iso
from ...engine import ops, seeding
from ...engine.devices import resolve_device
from ...engine.stats import EPS
from . import isometry_decay as dec

__all__ = [
    "check_inputs_straddle",
    "input_gaps",
    "measure_lemma6_2",
    "measure_lemma_c8_c9",
    "measure_theorem6_3",
    "rotated_bn_input",
]

DTYPE = torch.float64


def rotated_bn_input(d: int, spread: float, g: torch.Generator, device="cpu") -> Tensor:
    """X = BN(U diag(e^{spread z}) V^T), U, V Haar, z ~ N(0, I): a BN output (unit rows, trace
    d) whose isometry gap grows with ``spread`` (spread = 0: X orthogonal). Shape (d, d)."""
    if spread < 0:
        raise ValueError(f"spread must be >= 0, got {spread}")
    u, v = dec.haar_batch(2, d, g, DTYPE, device)
    s = torch.exp(spread * torch.randn(d, generator=g, dtype=DTYPE).to(device))
    return ops.bn_unit((u * s) @ v.mT)


def _inputs(item: str, d: int, spreads, device) -> list[Tensor]:
    """The inputs ``rotated_bn_input(d, spread)`` of the Monte Carlo cases, one per spread, from
    their own stream ``("gradients.<item>", d, "inputs")`` (independent of the Haar draws)."""
    g = seeding.generator(f"gradients.{item}", d, "inputs")
    return [rotated_bn_input(d, float(spread), g, device) for spread in spreads]


def input_gaps(
    item: str, widths: Sequence[int], spreads: Sequence[float], device="cpu"
) -> dict[tuple[int, float], float]:
    """psi(X) of each Monte Carlo input (d, spread) of ``item`` (cheap: no Haar draws), e.g. for
    ``sigprop.base.config`` to check before any job that the spreads straddle psi = 1/(16 d)."""
    return {
        (d, float(s)): iso.isometry_gap(x @ x.mT).item()
        for d in check_widths(widths)
        for s, x in zip(spreads, _inputs(item, d, spreads, device), strict=True)
    }


def check_inputs_straddle(widths: Sequence[int], spreads: Sequence[float]) -> None:
    """Raise ``ConfigError`` naming the keys unless Lemma C.9's Monte Carlo inputs (seeded, no
    Haar draws: milliseconds) lie on both sides of psi = 1/(16 d): its two regimes need both."""
    gaps = input_gaps("lemma_c8_c9", widths, spreads)
    low = [psi <= 1 / (16 * d) for (d, _), psi in gaps.items()]
    if all(low) or not any(low):
        side = "<=" if all(low) else ">"
        raise ConfigError(
            f"gradients.lemma_c8_c9.spreads {list(spreads)}: every input has psi {side} 1/(16 d) "
            f"at gradients.lemma_c8_c9.widths {list(widths)}; Lemma C.9's two regimes need inputs "
            "on both sides (add a smaller and a larger spread)"
        )


def _kappa(x: Tensor) -> Tensor:
    sv = torch.linalg.svdvals(x)
    return (sv[..., 0] / sv[..., -1]).square()


# ---------------------------------------------------------------------------------------------
# Lemma C.1, Lemma 6.2 / C.2, Cor. C.3


def measure_lemma6_2(
    *,
    n_cases: int,
    d_range: Sequence[int],
    max_spread: float,
    device: str = "auto",
) -> pd.DataFrame:
    """Lemma C.1, Lemma 6.2 / C.2 and Cor. C.3 on random square X = U diag(e^{s z}) V^T with
    random row scales, s ~ U(0, max_spread), d uniform in ``d_range``, ``n_cases`` matrices.

    One row per matrix: its gaps, row-norm statistics, Cor. C.3 errors and the round-off unit
    d eps kappa.
    """
    device = resolve_device(device)
    lo, hi = (int(v) for v in d_range)
    if not 2 <= lo <= hi or n_cases < 1 or max_spread < 0:
        raise ValueError("need 2 <= d_min <= d_max, n_cases >= 1, max_spread >= 0")
    g = seeding.generator("gradients.lemma6_2", 0, "cases")
    sizes = torch.randint(lo, hi + 1, (n_cases,), generator=g).to(device)
    rows = []
    for d in sizes.unique().tolist():
        c = int((sizes == d).sum())
        draws = seeding.Draws(g, DTYPE, device)
        spread = max_spread * draws.rand(c, 1, 1)
        u, v = dec.haar_batch(c, d, g, DTYPE, device), dec.haar_batch(c, d, g, DTYPE, device)
        x = (u * torch.exp(spread * draws.randn(c, 1, d))) @ v.mT
        x = x * torch.exp(spread * draws.randn(c, d, 1))  # uneven row norms
        w = dec.haar_batch(c, d, g, DTYPE, device)
        r = torch.linalg.vector_norm(x, dim=-1)
        rw = torch.linalg.vector_norm(w @ x, dim=-1)
        gap_x, gap_wx = iso.isometry_gap(x @ x.mT), iso.isometry_gap((w @ x) @ (w @ x).mT)
        gap_bn = iso.isometry_gap(ops.bn_unit(x) @ ops.bn_unit(x).mT)
        gap_bnw = iso.isometry_gap(ops.bn_unit(w @ x) @ ops.bn_unit(w @ x).mT)
        uu, _, vh = torch.linalg.svd(x)
        c3 = ops.bn_unit(uu.mT @ x)
        c3_err = (c3.abs() - vh.abs()).abs().amax((-2, -1))  # BN(U^T X) = V^T up to row signs
        c3_sign = (c3 * vh).sum(-1).abs().sub(1.0).abs().amax(-1)
        kappa = _kappa(x)
        for i in range(c):
            rows.append(
                dict(
                    d=d,
                    kappa=kappa[i].item(),
                    gap_x=gap_x[i].item(),
                    gap_wx=gap_wx[i].item(),
                    gap_bn=gap_bn[i].item(),
                    gap_bn_wx=gap_bnw[i].item(),
                    log_am_gm_r2=iso.am_over_gm(r[i].square()).log().item(),
                    log_norm_variation=iso.norm_variation(r[i]).log().item(),
                    log_am_gm_rw2=iso.am_over_gm(rw[i].square()).log().item(),
                    log_norm_variation_w=iso.norm_variation(rw[i]).log().item(),
                    c3_error=max(c3_err[i].item(), c3_sign[i].item()),
                    c3_gap=iso.isometry_gap(c3[i] @ c3[i].mT).item(),
                )
            )
    t = pd.DataFrame(rows)
    t["unit"] = t["d"] * EPS * t["kappa"]
    return t


# ---------------------------------------------------------------------------------------------
# Theorem 6.3 / C.4, Corollary 6.4 / C.6, Eq. (C.48), Weingarten moments


def _mc_cases(item: str, widths, spreads, draws, device) -> pd.DataFrame:
    """One row per (d, spread): psi(X), factor, sigma_lambda, and Monte Carlo moments of
    psi(BN(W X)) and I(BN(W X)) over ``draws`` Haar W."""
    rows = []
    for d in widths:
        g = seeding.generator(f"gradients.{item}", d, "cases")
        for spread, x in zip(spreads, _inputs(item, d, spreads, device), strict=True):
            lam = dec.normalized_eigenvalues(x)
            step = dec.haar_step(x, draws, g)
            psi0 = iso.isometry_gap(x @ x.mT).item()
            rows.append(
                dict(
                    d=d,
                    spread=float(spread),
                    psi0=psi0,
                    log_factor=dec.rotation_factor(lam).log().item(),
                    sigma_lambda=dec.sigma_lambda(lam).item(),
                    max_lambda=lam.max().item(),
                    max_abs_eps=(lam - 1).abs().max().item(),
                    mean_psi=step["psi"].mean().item(),
                    se_psi=step["psi"].std().item() / math.sqrt(draws),
                    mean_iso=step["isometry"].mean().item(),
                    se_iso=step["isometry"].std().item() / math.sqrt(draws),
                    max_iso_error=(1 - step["isometry"]).abs().max().item(),
                )
            )
    t = pd.DataFrame(rows)
    drop = t["psi0"] - t["mean_psi"]
    t["ratio_thm6_3"] = (t["mean_iso"].apply(math.log) + t["psi0"]) / -t["log_factor"]
    t["se_thm6_3"] = t["se_iso"] / t["mean_iso"] / -t["log_factor"]
    t["ratio_cor6_4"] = drop / -t["log_factor"]
    t["se_cor6_4"] = t["se_psi"] / -t["log_factor"]
    t["ratio_c48"] = drop / (t["sigma_lambda"] / (2 * t["d"] ** 2))
    t["se_c48"] = t["se_psi"] / (t["sigma_lambda"] / (2 * t["d"] ** 2))
    return t


def measure_theorem6_3(
    *,
    widths: Sequence[int],
    spreads: Sequence[float],
    draws: int,
    device: str = "auto",
) -> pd.DataFrame:
    """Monte Carlo over ``draws`` Haar W per input X = ``rotated_bn_input(d, spread)``: rows of
    kind ``case`` (one per d and spread), ``orthogonal`` (X orthogonal) and ``moment`` (the
    Weingarten moments per d).

    Improvements are compared as ratios: measured log E I(BN(W X)) - log I(X) over the predicted
    -log(factor) (Thm. 6.3), psi(X) - E psi(BN(W X)) over -log(factor) (Cor. 6.4) and over
    sigma_lambda / (2 d^2) (Eq. (C.48)); each must be >= 1. Negative control: the Thm. 6.3 gain
    multiplied by ``control_factor`` d is refuted in some case (the data's ratio is about 2 d).
    """
    device = resolve_device(device)
    widths = check_widths(widths)
    if draws < 2 or not spreads or min(spreads) <= 0:
        raise ValueError(f"need draws >= 2 and positive spreads, got {draws}, {spreads}")
    t = _mc_cases("theorem6_3", widths, spreads, draws, device)
    ortho = _mc_cases("theorem6_3.orthogonal", widths, [0.0], draws, device)
    g = seeding.generator("gradients.theorem6_3", 0, "weingarten")
    moments = []
    for d in widths:
        p = dec.haar_batch(draws, d, g, DTYPE, device).square()
        col = p.sum(-2)  # sum_i P_ik (= 1 up to round-off)
        same_k = (col.square() - p.square().sum(-2)).sum(-1) / (d * d * (d - 1))
        total = (p.sum((-2, -1)).square() - p.sum(-1).square().sum(-1)) - same_k * d * d * (d - 1)
        e1 = total / (d * (d - 1) * d * (d - 1))
        for name, est, exact in (
            ("E1", e1, dec.weingarten_e1(d)),
            ("E2", same_k, dec.weingarten_e2(d)),
            ("EW2", p[:, 0, 0], 1.0 / d),
        ):
            mean, se = est.mean().item(), est.std().item() / math.sqrt(draws)
            moments.append(dict(d=d, moment=name, mc=mean, se=se, exact=exact))
    m = pd.DataFrame(moments)
    m["z"] = (m["mc"] - m["exact"]).abs() / m["se"]
    m["z_gaussian"] = (m["mc"] - 1.0 / m["d"] ** 2).abs() / m["se"]
    return pd.concat(
        [t.assign(kind="case"), ortho.assign(kind="orthogonal"), m.assign(kind="moment")]
    )


# ---------------------------------------------------------------------------------------------
# Lemma C.8, Eq. (C.53), (C.56), (C.60), Lemma C.9


def _spectra(d: int, count: int, log10_range, g: torch.Generator, device) -> Tensor:
    """Trace-normalized spectra (count, d) of matrices X = U diag(sqrt(lambda)) V^T: half with
    all eigenvalues perturbed (Gaussian), half with one spike, scales 10^U(log10_range)."""
    draws = seeding.Draws(g, DTYPE, device)
    lo, hi = log10_range
    scale = 10.0 ** (lo + (hi - lo) * draws.rand(count, 1))
    eps = draws.randn(count, d)
    spike = torch.zeros(count, d, dtype=DTYPE, device=device)
    spike[:, 0] = torch.where(draws.rand(count) < 0.5, 1.0, -1.0)
    eps = torch.where(torch.arange(count, device=device)[:, None] % 2 == 0, eps, spike)
    eps = eps - eps.mean(-1, keepdim=True)
    eps = eps * scale / eps.abs().amax(-1, keepdim=True)  # max |eps| = scale
    lam = torch.clamp(1.0 + eps, min=1e-3)
    lam = lam * d / lam.sum(-1, keepdim=True)
    u, v = dec.haar_batch(count, d, g, DTYPE, device), dec.haar_batch(count, d, g, DTYPE, device)
    x = (u * lam.sqrt().unsqueeze(-2)) @ v.mT
    return dec.normalized_eigenvalues(x.mT)  # eigenvalues of X^T X


def measure_lemma_c8_c9(
    *,
    widths: Sequence[int],
    n_spectra: int,
    log10_range: Sequence[float],
    spreads: Sequence[float],
    draws: int,
    device: str = "auto",
) -> pd.DataFrame:
    """Lemma C.8 and the facts of Lemma C.9's proof on ``n_spectra`` random trace-normalized
    spectra per d (rows of kind ``spectrum``); Lemma C.9's regimes by Monte Carlo (``draws`` Haar
    W per input spread; rows of kind ``monte_carlo``).
    """
    device = resolve_device(device)
    widths = check_widths(widths)
    if n_spectra < 2:
        raise ValueError(f"need n_spectra >= 2, got {n_spectra}")
    check_inputs_straddle(widths, spreads)
    frames = []
    for d in widths:
        g = seeding.generator("gradients.lemma_c8_c9", d, "spectra")
        lam = _spectra(d, n_spectra, log10_range, g, device)
        psi = lam.mean(-1).log() - lam.log().mean(-1)
        frames.append(
            pd.DataFrame(
                dict(
                    d=d,
                    psi=psi.cpu().numpy(),
                    sigma_lambda=dec.sigma_lambda(lam).cpu().numpy(),
                    max_abs_eps=(lam - 1).abs().amax(-1).cpu().numpy(),
                )
            )
        )
    s = pd.concat(frames, ignore_index=True)
    s["c_min"] = 16 * s["d"] * s["psi"]  # smallest c with psi <= c / (16 d)
    mc = _mc_cases("lemma_c8_c9", widths, [float(v) for v in spreads], draws, device)
    drop = mc["psi0"] - mc["mean_psi"]
    low = mc["psi0"] <= 1 / (16 * mc["d"])
    mc["ratio_c49"] = (drop / (mc["psi0"] / (2 * mc["d"] ** 2))).where(low)
    mc["se_c49"] = (mc["se_psi"] / (mc["psi0"] / (2 * mc["d"] ** 2))).where(low)
    mc["ratio_c50"] = (drop * 32 * mc["d"] ** 3).where(~low)
    mc["se_c50"] = (mc["se_psi"] * 32 * mc["d"] ** 3).where(~low)
    if not low.any() or low.all():
        raise ValueError(f"spreads {spreads} must give inputs on both sides of psi = 1/(16 d)")
    return pd.concat([s.assign(kind="spectrum"), mc.assign(kind="monte_carlo")])
