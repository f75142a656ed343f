"""Thesis Assumption 3.1 (geometric ergodicity, Eq. (3.4); Joudaki 2024, JDB23a): a mixing proxy.

Item ``mixing``: two groups of chains of Eq. (3.1) from very different inputs (near-collinear
columns vs Gaussian, nearly orthogonal columns); per layer the difference of the group means of
a scalar summary of G_l (||G_l - G_*||_F, isometry gap) must decay exponentially and vanish.
Under Assumption 3.1, |E_A f - E_B f| <= 2 sup|f| tv(mu_A, mu_B) <= 2 sup|f| (1 - alpha)^l; the
fitted rate of a summary is a proxy for alpha, not alpha itself.

``measure`` simulates both groups and fits the rates (``z`` also sets the fit window, so it is a
measurement setting); ``judge`` (in ``mixing_judges``, torch-free) words the claims
``mean_field.mixing.<what>``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch
from torch import Tensor

from ...engine import chains, gram_isometry
from ...engine.devices import resolve_device
from ...engine.inputs import gaussian_inputs
from ...engine.stats import BOOTSTRAP_SEED
from . import gram_dynamics as mf

__all__ = ["EXPERIMENT_IDS", "SUMMARIES", "collinear_inputs", "measure"]

EXPERIMENT_IDS = {"mixing": "mean_field.mixing"}
"""Random-stream addresses (``seeding``); suffixes name the case."""


SUMMARIES = ("distance", "isometry_gap")
"""Scalar summaries of G_l: ||G_l - G_*||_F and the isometry gap -log I(G_l) (Thesis Def. 4.1)."""


def collinear_inputs(
    experiment_id: str,
    runs: Sequence[int],
    d: int,
    n: int,
    noise: float,
    dtype=torch.float64,
    device="cpu",
) -> Tensor:
    """h_0 = g v^T + noise Z: near-collinear columns (|cos| ~ 1), v = M e_1 / ||M e_1|| in 1-perp
    (so the centring of BN keeps the collinearity), g ~ N(0, I_d), Z i.i.d. N(0, 1); (R, d, n)."""
    if not noise > 0:
        raise ValueError(f"collinear noise must be > 0, got {noise}")
    v = mf.centering(n, dtype, device)[0]
    v = v / v.norm()
    g = gaussian_inputs(f"{experiment_id}.direction", list(runs), d, 1, dtype, device)
    return g * v + noise * gaussian_inputs(experiment_id, list(runs), d, n, dtype, device)


def _fit_rate(a: np.ndarray, b: np.ndarray, layers: np.ndarray, z: float, last: int, n_boot: int):
    """Slope of log|mean_a - mean_b| vs layer over 1..l_end (the layers before the first with
    |diff| <= z SE, and below ``last``); SE by resampling runs of both groups."""
    diff = a.mean(0) - b.mean(0)
    se = np.sqrt(a.var(0, ddof=1) / a.shape[0] + b.var(0, ddof=1) / b.shape[0])
    window = []
    for i, layer in enumerate(layers):
        if layer < 1:
            continue
        if layer >= last or abs(diff[i]) <= z * se[i]:
            break
        window.append(i)
    if len(window) < 3:
        return math.nan, math.nan, window
    x = layers[window].astype(float)
    slope = np.polyfit(x, np.log(np.abs(diff[window])), 1)[0]
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    boot = []
    for _ in range(n_boot):
        ia = rng.integers(a.shape[0], size=a.shape[0])
        ib = rng.integers(b.shape[0], size=b.shape[0])
        dd = np.abs(a[ia][:, window].mean(0) - b[ib][:, window].mean(0)).clip(1e-300)
        boot.append(np.polyfit(x, np.log(dd), 1)[0])
    return float(slope), float(np.std(boot, ddof=1)), window


def measure(
    *,
    batch_size: int,
    widths: Sequence[int],
    activations: Sequence[str],
    depth: int,
    n_runs: int,
    collinear_noise: float,
    summaries: Sequence[str],
    fixed_point_samples: int,
    merged_from: int,
    n_boot: int,
    z: float,
    device: str = "auto",
) -> pd.DataFrame:
    """Assumption 3.1 proxy (module docstring): two starts, per-layer summaries, fitted rate.

    Group A starts from ``collinear_inputs``, group B from i.i.d. N(0, 1) inputs (nearly
    orthogonal columns); ``n_runs`` independent chains each (inputs and weights), rows of W A
    sampled as N(0, G_l) (``chains.GaussianGramProduct``, exact in law). Summaries of
    G_l = gram(phi(BN(h_l))): ``distance`` ||G_l - G_*||_F, ``isometry_gap`` -log I(G_l)
    (Thesis Def. 4.1). Per case, Delta_l = mean_A - mean_B with the Welch SE.

    Per case (activation, width, summary): the slope of log|Delta_l| vs l over layers 1.. until
    |Delta_l| <= z SE (and below ``merged_from``), its bootstrap SE over runs (``n_boot``
    resamples), alpha = 1 - exp(slope), t = |Delta_1| / SE_1 (``first_t``) and the Welch t of
    the per-run average over layers merged_from..depth (``tail_t``).

    Returns:
        one row per (activation, width, summary, layer): mean_collinear, mean_orthogonal, diff,
        diff_se, and the case's ``mixing_judges.FIT_COLUMNS``.
    """
    if not 1 <= merged_from <= depth:
        raise ValueError(f"merged_from must be in [1, depth={depth}], got {merged_from}")
    unknown = set(summaries) - set(SUMMARIES)
    if unknown:
        raise ValueError(f"unknown summaries {sorted(unknown)}; choose from {SUMMARIES}")
    dev = resolve_device(device)
    eid = EXPERIMENT_IDS["mixing"]
    n = int(batch_size)
    runs = range(n_runs)
    layers = np.arange(depth + 1)
    rows, fits = [], []
    for act in activations:
        fp = mf.seeded_fixed_point(eid, act, n, fixed_point_samples)
        g_star = (mf.linear_fixed_point(n) if act == "linear" else fp.matrix()).to(dev)
        for d in widths:
            traces = {
                start: _mixing_trace(f"{eid}.{act}.d{d}.{start}", start, act, g_star, d, n,
                                     runs, layers, collinear_noise, summaries, dev)
                for start in ("collinear", "orthogonal")
            }  # fmt: skip
            for s in summaries:
                a, b = traces["collinear"][s], traces["orthogonal"][s]
                case = {"activation": act, "width": d, "summary": s}
                fits.append(case | _mixing_fit(a, b, layers, z, merged_from, n_boot))
                rows += _mixing_rows(case, a, b, layers)
    fit = pd.DataFrame(fits)
    return pd.DataFrame(rows).merge(fit, on=["activation", "width", "summary"])


def _mixing_trace(
    tag: str, start: str, act: str, g_star, d: int, n: int, runs, layers: np.ndarray,
    collinear_noise: float, summaries: Sequence[str], dev,
) -> dict[str, np.ndarray]:  # fmt: skip
    """One start's chains of ``measure``: each summary as (runs, layers)."""
    if start == "collinear":
        h0 = collinear_inputs(tag, runs, d, n, collinear_noise, device=dev)
    else:
        h0 = gaussian_inputs(tag, list(runs), d, n, device=dev)
    product = chains.GaussianGramProduct(tag, runs, d, n, 1.0 / d, device=dev)

    def observe(a, g_star=g_star):
        g = mf.gram(a)
        return {
            "distance": torch.linalg.matrix_norm(g - g_star),
            "isometry_gap": gram_isometry.isometry_gap(g),
        }

    tr = chains.simulate(
        mf.bn_activation(h0, act),
        chains.Step("bn_centered", act),
        product,
        int(layers[-1]),
        {"s": observe},
        list(layers),
        runs,
        desc=tag,
    )
    return {k: tr.values[k].numpy() for k in summaries}


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per layer: mean_A - mean_B over runs and its Welch SE."""
    n_runs = a.shape[0]
    return a.mean(0) - b.mean(0), np.sqrt(a.var(0, ddof=1) / n_runs + b.var(0, ddof=1) / n_runs)


def _mixing_fit(a: np.ndarray, b: np.ndarray, layers, z: float, merged_from: int, n_boot: int):
    """The fitted rate and the first and tail t of one case of ``measure`` (its fit columns)."""
    n_runs = a.shape[0]
    diff, se = _welch(a, b)
    slope, slope_se, window = _fit_rate(a, b, layers, z, merged_from, n_boot)
    ta, tb = a[:, merged_from:].mean(1), b[:, merged_from:].mean(1)
    tail_se = math.sqrt(ta.var(ddof=1) / n_runs + tb.var(ddof=1) / n_runs)
    return {
        "slope": slope,
        "slope_se": slope_se,
        "alpha": 1 - math.exp(slope) if math.isfinite(slope) else math.nan,
        "fit_last_layer": int(layers[window[-1]]) if window else 0,
        "first_t": abs(diff[1]) / se[1],
        "tail_diff": float(ta.mean() - tb.mean()),
        "tail_se": tail_se,
        "tail_t": abs(ta.mean() - tb.mean()) / tail_se,
    }


def _mixing_rows(case: dict, a: np.ndarray, b: np.ndarray, layers) -> list[dict]:
    """One case's per-layer rows of ``measure``: both starts' means, their difference, its SE."""
    diff, se = _welch(a, b)
    return [
        case | {
            "layer": int(layer),
            "mean_collinear": a[:, i].mean(),
            "mean_orthogonal": b[:, i].mean(),
            "diff": diff[i],
            "diff_se": se[i],
        }
        for i, layer in enumerate(layers)
    ]  # fmt: skip
