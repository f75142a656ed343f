"""Thesis app. B (Joudaki 2024; JDB23a): tails of Lemmas B.1, B.2 and a Lemma 3.3 proxy.

Item ``lemma_b1_b2``: d i.i.d. rows
x_i = phi(BN(w_i)), w_i ~ N(0, G_*) (centred BN, ``gram_dynamics``), sample covariance
C_d = (1/d) sum_i x_i x_i^T, C = E x x^T = G_* (fixed point, Eq. (B.36)). Rows obey
||x_i||^2 <= B n with phi(x)^2 <= B x^2 (Eq. (B.37)-(B.39)).

    Lemma B.1 (B.3):  P(||C_d - C||_F >~ t eps) <= exp(-t^2), eps = B n / sqrt(d);
    Lemma B.2 (B.4):  same for ||C^{-1} C_d - I||_F with eps = B ||C^{-1}|| n / sqrt(d);
    Lemma 3.3 proxy:  ||G_*^{-1} G_1 - I||_F after one layer h_1 = W phi(BN(h_hat)) of the chain
                      from rows of h_hat ~ N(0, G_*) (the ingredient (B.40) of Lemma B.3).

The lemmas hide their constants ("~"), so the checks test the shape: the normalised statistics
T = sqrt(d) ||.||_F / eps have a tail no heavier than Gaussian (quantile ratio q_99 / q_50 at most
sqrt(ln 100 / ln 2), the ratio of P(T > s) = exp(-(s/K)^2)), and ||.||_F scales as d^{-1/2}.

``measure`` draws every random number and writes one row per (phi, d); ``judge`` (in
``tail_judges``, torch-free) words the claims ``mean_field.lemma_b1_b2.<what>``, with the
tolerance multiplier ``z``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd
import torch
from torch import Tensor

from ...engine import chains, ops, seeding
from ...engine.devices import resolve_device
from ...engine.stats import BOOTSTRAP_SEED
from . import gram_dynamics as mf

__all__ = [
    "ACTIVATION_BOUND",
    "EXPERIMENT_IDS",
    "measure",
    "quantile_ratio",
    "wls_slope",
]

EXPERIMENT_IDS = {"lemma_b1_b2": "mean_field.lemma_b1_b2"}
"""Random-stream addresses (``seeding``); suffixes name the case."""

ACTIVATION_BOUND = {"linear": 1.0, "tanh": 1.0, "relu": 1.0, "sin": 1.0}
"""B of phi(x)^2 <= B x^2 (Thesis App. B); the smallest such B for each activation."""


_CHUNK_ELEMENTS = 2**22
"""Rows are drawn in chunks of about this many entries (memory bound; stream contract)."""


def quantile_ratio(values: Tensor, upper: float = 0.99, lower: float = 0.5) -> float:
    """Empirical q_upper / q_lower of a 1-D sample."""
    q = torch.quantile(values.double(), torch.tensor([lower, upper], dtype=torch.float64))
    return (q[1] / q[0]).item()


def wls_slope(x: Sequence[float], y: Sequence[float], se: Sequence[float]) -> tuple[float, float]:
    """Weighted least-squares slope of y on x (weights 1 / se^2) and its standard error."""
    x, y, w = np.asarray(x, float), np.asarray(y, float), 1.0 / np.asarray(se, float) ** 2
    if x.size < 2:
        raise ValueError("a slope needs >= 2 points")
    xc = x - (w * x).sum() / w.sum()
    sxx = (w * xc**2).sum()
    return float((w * xc * y).sum() / sxx), float(1.0 / math.sqrt(sxx))


def _log_rms(values: Tensor) -> tuple[float, float]:
    """log sqrt(mean T^2) and its delta-method standard error (i.i.d. draws)."""
    sq = values.double().square()
    m, se = sq.mean().item(), (sq.std() / math.sqrt(sq.numel())).item()
    return 0.5 * math.log(m), 0.5 * se / m


def _bootstrap_ratio_se(values: Tensor, upper: float, lower: float, n_boot: int) -> float:
    g = torch.Generator().manual_seed(BOOTSTRAP_SEED)
    idx = torch.randint(values.numel(), (n_boot, values.numel()), generator=g)
    q = torch.quantile(values.double()[idx], torch.tensor([lower, upper], dtype=torch.float64), -1)
    return (q[1] / q[0]).std().item()


def _chunks(draws: int, d: int, n: int, tag: str) -> Iterator[tuple[int, torch.Generator]]:
    """The ``draws`` in chunks of at most ``_CHUNK_ELEMENTS`` / (d n) draws (at least one): per
    chunk k, its size and the generator of stream (``tag``, k, "rows")."""
    chunk = max(1, _CHUNK_ELEMENTS // (d * n))
    for k, start in enumerate(range(0, draws, chunk)):
        yield min(chunk, draws - start), seeding.generator(tag, k, "rows")


def _normal_rows(m: int, d: int, chol: Tensor, gen: torch.Generator, dev) -> Tensor:
    """``m`` draws of d rows w i.i.d. N(0, L L^T), L = ``chol`` (n x n): shape (m, d, n)."""
    return torch.randn(m, d, chol.shape[-1], generator=gen, dtype=chol.dtype).to(dev) @ chol.mT


def _statistics(
    g_star: Tensor, activation: str, d: int, draws: int, control_start: Tensor, tag: str, dev
) -> dict[str, Tensor]:
    """Per draw: ||C_d - C||_F, ||C^{-1} C_d - I||_F, one-layer ||G_*^{-1} G_1 - I||_F (from
    G_* and from the control start), and max_i ||x_i||^2 / n."""
    n = g_star.shape[-1]
    c = g_star.to(dev)
    c_inv = torch.linalg.inv(c)
    eye = torch.eye(n, dtype=c.dtype, device=dev)
    phi = ops.activation(activation)
    chol = torch.linalg.cholesky(c)
    chol_ctrl = torch.linalg.cholesky(control_start.to(dev))
    out: dict[str, list[Tensor]] = {k: [] for k in ("b1", "b2", "l33", "ctrl", "row")}
    for m, gen in _chunks(draws, d, n, tag):
        x = phi(ops.bn_centered(_normal_rows(m, d, chol, gen, dev)))
        c_d = mf.gram(x)
        out["b1"].append(torch.linalg.matrix_norm(c_d - c))
        out["b2"].append(torch.linalg.matrix_norm(c_inv @ c_d - eye))
        out["row"].append(x.square().sum(-1).amax(-1) / n)
        # one layer of Eq. (3.1): rows of W x are i.i.d. N(0, C_d) given x (exact in law)
        z = torch.randn(m, d, n, generator=gen, dtype=c.dtype).to(dev)
        g1 = mf.gram(mf.bn_activation(z @ chains.gram_sqrt(x), activation))
        out["l33"].append(torch.linalg.matrix_norm(c_inv @ g1 - eye))
        x0 = phi(ops.bn_centered(_normal_rows(m, d, chol_ctrl, gen, dev)))
        z = torch.randn(m, d, n, generator=gen, dtype=c.dtype).to(dev)
        g1 = mf.gram(mf.bn_activation(z @ chains.gram_sqrt(x0), activation))
        out["ctrl"].append(torch.linalg.matrix_norm(c_inv @ g1 - eye))
    return {k: torch.cat(v).cpu() for k, v in out.items()}


def _unbounded_control(g_star: Tensor, scale: float, d: int, draws: int, tag: str, dev) -> Tensor:
    """Negative control: rows x = exp(s w), w ~ N(0, G_*), no BN (||x||^2 unbounded);
    sqrt(d) ||C_d - C||_F with the exact C_ij = exp(s^2 (G_ii + G_jj + 2 G_ij) / 2)."""
    n = g_star.shape[-1]
    dg = g_star.diagonal()
    c = torch.exp(scale**2 * (dg[:, None] + dg[None, :] + 2 * g_star) / 2).to(dev)
    chol = torch.linalg.cholesky(g_star.to(dev))
    vals = []
    for m, gen in _chunks(draws, d, n, tag):
        w = _normal_rows(m, d, chol, gen, dev)
        vals.append(math.sqrt(d) * torch.linalg.matrix_norm(mf.gram(torch.exp(scale * w)) - c))
    return torch.cat(vals).cpu()


def measure(
    *,
    batch_size: int,
    activations: Sequence[str],
    widths: Sequence[int],
    draws: int,
    fixed_point_samples: int,
    quantile: float,
    control_correlation: float,
    control_scale: float,
    n_boot: int,
    device: str = "auto",
) -> pd.DataFrame:
    """Tails of Lemmas B.1, B.2 and the Lemma 3.3 proxy (module docstring), one row per (phi, d).

    Per (activation, d), ``draws`` independent samples of each statistic
    (``tail_judges.STATISTICS``). C = G_* is the sphere-average fixed point
    (``gram_dynamics.sphere_fixed_point``; exact in law: for a BSB1 G_*, BN(w) is uniform on the
    centred sphere); its MC error (~ 1 / sqrt(fixed_point_samples)) is far below the spread of
    C_d (~ n / sqrt(d)) and is ignored.

    Returns:
        per (activation, width): B, ||C^{-1}||, kappa, max ||x_i||^2 / (B n); per statistic k the
        quantiles ``k_q50``, ``k_q90``, ``k_qhi`` (at ``quantile``) of T = sqrt(d) ||.||_F / eps,
        ``k_ratio`` = q_hi / q_50 and its bootstrap SE ``k_ratio_se`` (``n_boot`` resamples),
        ``k_rms``, ``k_normalised_rms``, and (per activation) the WLS slope of log RMS vs log d,
        ``k_slope`` and ``k_slope_se``; ``exp_ratio``, the q ratio of the unbounded control.
    """
    if len(widths) < 2:
        raise ValueError("lemma_b1_b2 needs >= 2 widths for the d^{-1/2} scaling")
    dev = resolve_device(device)
    eid = EXPERIMENT_IDS["lemma_b1_b2"]
    n = int(batch_size)
    start = mf.ar1_correlation(n, control_correlation)
    rows, slopes = [], []
    for act in activations:
        if act not in ACTIVATION_BOUND:
            raise ValueError(f"no bound B known for activation {act!r}: {list(ACTIVATION_BOUND)}")
        b = ACTIVATION_BOUND[act]
        fp = mf.seeded_fixed_point(eid, act, n, fixed_point_samples)
        g_star = fp.matrix()
        inv_norm = 1.0 / torch.linalg.eigvalsh(g_star)[0].item()
        if not math.isfinite(fp.kappa):
            raise ValueError(f"G_* of {act!r} is singular: Lemma B.2 needs a non-degenerate C")
        eps = {"b1": b * n, "b2": b * inv_norm * n, "l33": b * inv_norm * n,
               "ctrl": b * inv_norm * n}  # fmt: skip
        logs = {k: [] for k in eps}
        for d in widths:
            st = _statistics(g_star, act, int(d), draws, start, f"{eid}.{act}.d{d}", dev)
            row = {
                "activation": act,
                "width": int(d),
                "batch_size": n,
                "B": b,
                "inv_norm_c": inv_norm,
                "kappa": fp.kappa,
                "max_row_norm_ratio": st["row"].max().item() / b,
            }
            for k, e in eps.items():
                columns, point = _tail_columns(k, st[k], d, e, quantile, n_boot)
                row.update(columns)
                logs[k].append(point)
            ctrl = _unbounded_control(
                g_star, control_scale, int(d), draws, f"{eid}.{act}.d{d}.exp", dev
            )
            row["exp_ratio"] = quantile_ratio(ctrl, quantile, 0.5)
            rows.append(row)
        for k, pts in logs.items():
            x, y, s = zip(*pts, strict=True)
            slope, se = wls_slope(x, y, s)
            slopes.append({"activation": act, "statistic": k, "slope": slope, "slope_se": se})
    table = pd.DataFrame(rows)
    for s in slopes:
        mask = table["activation"] == s["activation"]
        table.loc[mask, f"{s['statistic']}_slope"] = s["slope"]
        table.loc[mask, f"{s['statistic']}_slope_se"] = s["slope_se"]
    return table


def _tail_columns(
    k: str, values: torch.Tensor, d: int, e: float, quantile: float, n_boot: int
) -> tuple[dict, tuple[float, float, float]]:
    """One statistic's columns of ``measure`` at width d (quantiles of sqrt(d) value / eps,
    their ratio and its bootstrap SE, the RMS) and its (log d, log RMS, SE) point of the fit."""
    t = math.sqrt(d) * values / e
    q = torch.quantile(t.double(), torch.tensor([0.5, 0.9, quantile]).double())
    lr, lse = _log_rms(values)
    columns = {
        f"{k}_q50": q[0].item(),
        f"{k}_q90": q[1].item(),
        f"{k}_qhi": q[2].item(),
        f"{k}_ratio": (q[2] / q[0]).item(),
        f"{k}_ratio_se": _bootstrap_ratio_se(t, quantile, 0.5, n_boot),
        f"{k}_rms": math.exp(lr),
        f"{k}_normalised_rms": math.exp(lr) * math.sqrt(d) / e,
    }
    return columns, (math.log(d), lr, lse)
