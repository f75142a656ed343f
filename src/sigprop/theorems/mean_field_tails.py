"""Theorem checks of Thesis ch. 3 / app. B (Joudaki 2024; JDB23a): tails and mixing.

Item ``lemma_b1_b2`` (catalog ``spec/mean_field_isometry.md`` §2): d i.i.d. rows
x_i = phi(BN(w_i)), w_i ~ N(0, G_*) (centred BN, ``sigprop.mean_field``), sample covariance
C_d = (1/d) sum_i x_i x_i^T, C = E x x^T = G_* (fixed point, Eq. (B.36)). Rows obey
||x_i||^2 <= B n with phi(x)^2 <= B x^2 (Eq. (B.37)-(B.39)).

    Lemma B.1 (B.3):  P(||C_d - C||_F >~ t eps) <= exp(-t^2), eps = B n / sqrt(d);
    Lemma B.2 (B.4):  same for ||C^{-1} C_d - I||_F with eps = B ||C^{-1}|| n / sqrt(d);
    Lemma 3.3 proxy:  ||G_*^{-1} G_1 - I||_F after one layer h_1 = W phi(BN(h_hat)) of the chain
                      from rows of h_hat ~ N(0, G_*) (the ingredient (B.40) of Lemma B.3).

The lemmas hide their constants ("~"), so the checks test the shape: the normalised statistics
T = sqrt(d) ||.||_F / eps have a tail no heavier than Gaussian (quantile ratio q_99 / q_50 at most
sqrt(ln 100 / ln 2), the ratio of P(T > s) = exp(-(s/K)^2)), and ||.||_F scales as d^{-1/2}.

Item ``mixing`` (Assumption 3.1 proxy): two groups of chains of Eq. (3.1) from very different
inputs (near-collinear columns vs Gaussian, nearly orthogonal columns); per layer the difference
of the group means of a scalar summary of G_l (||G_l - G_*||_F, isometry gap) must decay
exponentially and vanish. Under Assumption 3.1, |E_A f - E_B f| <= 2 sup|f| tv(mu_A, mu_B)
<= 2 sup|f| (1 - alpha)^l; the fitted rate of a summary is a proxy for alpha, not alpha itself.

Claim ids are ``mean_field.lemma_b1_b2.<what>`` and ``mean_field.mixing.<what>``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch
from torch import Tensor

from .. import chains, isometry, ops, seeding
from .. import mean_field as mf
from ..claims import evaluate
from ..compute import resolve_device
from ..inputs import gaussian_inputs
from ..stats import BOOTSTRAP_SEED
from . import TheoremCheck

__all__ = [
    "ACTIVATION_BOUND",
    "EXPERIMENT_IDS",
    "collinear_inputs",
    "gaussian_quantile_ratio",
    "lemma_b1_b2",
    "mixing",
    "quantile_ratio",
    "wls_slope",
]

EXPERIMENT_IDS = {"lemma_b1_b2": "mean_field.lemma_b1_b2", "mixing": "mean_field.mixing"}
"""Random-stream addresses (``seeding``); suffixes name the case."""

ACTIVATION_BOUND = {"linear": 1.0, "tanh": 1.0, "relu": 1.0, "sin": 1.0}
"""B of phi(x)^2 <= B x^2 (Thesis App. B); the smallest such B for each activation."""

SOURCE_B = "Thesis Lemmas B.1, B.2 (Eq. (B.3), (B.4)) and Eq. (B.37)-(B.40) (JDB23a)"
SOURCE_33 = "Thesis Lemma 3.3 (Eq. (3.6)) / Lemma B.3 (Eq. (B.16), (B.40)) (JDB23a)"
SOURCE_MIX = "Thesis Assumption 3.1 (geometric ergodicity), Eq. (3.4) (JDB23a); catalog §2 proxy"

_CHUNK_ELEMENTS = 2**22
"""Rows are drawn in chunks of about this many entries (memory bound; stream contract)."""


def gaussian_quantile_ratio(upper: float = 0.99, lower: float = 0.5) -> float:
    """q_upper / q_lower of a variable with P(T > s) = exp(-(s / K)^2): sqrt(ln(1-l) / ln(1-u))."""
    if not 0 < lower < upper < 1:
        raise ValueError(f"need 0 < lower < upper < 1, got lower={lower}, upper={upper}")
    return math.sqrt(math.log(1 - upper) / math.log(1 - lower))


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
    chunk = max(1, _CHUNK_ELEMENTS // (d * n))
    out: dict[str, list[Tensor]] = {k: [] for k in ("b1", "b2", "l33", "ctrl", "row")}
    for k, start in enumerate(range(0, draws, chunk)):
        m = min(chunk, draws - start)
        gen = seeding.generator(tag, k, "rows", dev)
        w = torch.randn(m, d, n, generator=gen, dtype=c.dtype, device=dev) @ chol.mT
        x = phi(ops.bn_centered(w))
        c_d = mf.gram(x)
        out["b1"].append(torch.linalg.matrix_norm(c_d - c))
        out["b2"].append(torch.linalg.matrix_norm(c_inv @ c_d - eye))
        out["row"].append(x.square().sum(-1).amax(-1) / n)
        # one layer of Eq. (3.1): rows of W x are i.i.d. N(0, C_d) given x (exact in law)
        z = torch.randn(m, d, n, generator=gen, dtype=c.dtype, device=dev)
        g1 = mf.gram(mf.bn_activation(z @ chains.gram_sqrt(x), activation))
        out["l33"].append(torch.linalg.matrix_norm(c_inv @ g1 - eye))
        w0 = torch.randn(m, d, n, generator=gen, dtype=c.dtype, device=dev) @ chol_ctrl.mT
        x0 = phi(ops.bn_centered(w0))
        z = torch.randn(m, d, n, generator=gen, dtype=c.dtype, device=dev)
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
    chunk = max(1, _CHUNK_ELEMENTS // (d * n))
    vals = []
    for k, start in enumerate(range(0, draws, chunk)):
        m = min(chunk, draws - start)
        gen = seeding.generator(tag, k, "rows", dev)
        w = torch.randn(m, d, n, generator=gen, dtype=c.dtype, device=dev) @ chol.mT
        vals.append(math.sqrt(d) * torch.linalg.matrix_norm(mf.gram(torch.exp(scale * w)) - c))
    return torch.cat(vals).cpu()


def lemma_b1_b2(
    *,
    batch_size: int = 10,
    activations: Sequence[str] = ("tanh", "relu"),
    widths: Sequence[int] = (50, 200),
    draws: int = 1000,
    fixed_point_samples: int = 200_000,
    quantile: float = 0.99,
    control_correlation: float = 0.9,
    control_scale: float = 2.0,
    n_boot: int = 200,
    z: float = 3.0,
    device: str = "auto",
) -> TheoremCheck:
    """Tails of Lemmas B.1, B.2 and the Lemma 3.3 proxy (module docstring).

    Per (activation, d), ``draws`` independent samples of each statistic. C = G_* is the
    sphere-average fixed point (``mean_field.sphere_fixed_point``; exact in law: for a BSB1 G_*,
    BN(w) is uniform on the centred sphere); its MC error (~ 1 / sqrt(fixed_point_samples)) is
    far below the spread of C_d (~ n / sqrt(d)) and is ignored.

    Claims (worst case over activations and widths):
        ``row_norm_bound``: max ||x_i||^2 / (B n) <= 1 (Eq. (B.38)-(B.39)), float tolerance.
        ``b1_tail``, ``b2_tail``: q_quantile / q_50 of T <= the Gaussian-shape ratio
            sqrt(ln(1 - quantile) / ln(1/2)), tolerance z bootstrap SE.
        ``b1_width``, ``b2_width``, ``lemma3_3_width``: slope of log RMS ||.||_F vs log d
            equals -1/2 within z SE (WLS, delta-method SE); measured max |slope + 1/2| / SE.
        ``tail_control`` (negative): rows exp(s w) without BN, unbounded norms: their q ratio
            exceeds the Gaussian-shape ratio (so ``b*_tail`` can fail).
        ``lemma3_3_control`` (negative): one layer from an AR(1) start (not G_*): its slope is
            >= z SE away from -1/2 (so ``lemma3_3_width`` can fail).
    """
    if len(widths) < 2:
        raise ValueError("lemma_b1_b2 needs >= 2 widths for the d^{-1/2} scaling")
    dev = resolve_device(device)
    eid = EXPERIMENT_IDS["lemma_b1_b2"]
    n = int(batch_size)
    shape = gaussian_quantile_ratio(quantile, 0.5)
    start = mf.ar1_correlation(n, control_correlation)
    rows, slopes = [], []
    for act in activations:
        if act not in ACTIVATION_BOUND:
            raise ValueError(f"no bound B known for activation {act!r}: {list(ACTIVATION_BOUND)}")
        b = ACTIVATION_BOUND[act]
        fp = mf.sphere_fixed_point(
            act, n, fixed_point_samples, seeding.generator(f"{eid}.{act}.n{n}", 0, "sphere")
        )
        g_star = fp.matrix()
        inv_norm = 1.0 / torch.linalg.eigvalsh(g_star)[0].item()
        if not math.isfinite(fp.kappa):
            raise ValueError(f"G_* of {act!r} is singular: Lemma B.2 needs a non-degenerate C")
        eps = {
            "b1": b * n,
            "b2": b * inv_norm * n,
            "l33": b * inv_norm * n,
            "ctrl": b * inv_norm * n,
        }
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
                t = math.sqrt(d) * st[k] / e
                q = torch.quantile(t.double(), torch.tensor([0.5, 0.9, quantile]).double())
                lr, lse = _log_rms(st[k])
                logs[k].append((math.log(d), lr, lse))
                row.update(
                    {
                        f"{k}_q50": q[0].item(),
                        f"{k}_q90": q[1].item(),
                        f"{k}_qhi": q[2].item(),
                        f"{k}_ratio": (q[2] / q[0]).item(),
                        f"{k}_ratio_se": _bootstrap_ratio_se(t, quantile, 0.5, n_boot),
                        f"{k}_rms": math.exp(lr),
                        f"{k}_normalised_rms": math.exp(lr) * math.sqrt(d) / e,
                    }
                )
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
    sl = pd.DataFrame(slopes)
    for _, r in sl.iterrows():
        mask = table["activation"] == r["activation"]
        table.loc[mask, f"{r['statistic']}_slope"] = r["slope"]
        table.loc[mask, f"{r['statistic']}_slope_se"] = r["slope_se"]
    sl["dev"] = (sl["slope"] + 0.5).abs() / sl["slope_se"]
    cases = f"phi in {list(activations)}, d in {list(widths)}, n = {n}"

    def tail_claim(k: str, lemma: str, eps_text: str):
        i = (table[f"{k}_ratio"] - shape).idxmax()
        r = table.loc[i]
        return evaluate(
            id=f"mean_field.lemma_b1_b2.{k}_tail",
            statement=(
                f"Lemma {lemma}: T = sqrt(d) ||.||_F / ({eps_text}) has a tail no heavier than "
                f"Gaussian: q_{quantile:g} / q_0.5 <= sqrt(ln(1/{1 - quantile:.3g}) / ln 2) = "
                f"{shape:.4g} (ratio of P(T > s) = exp(-(s/K)^2)); worst case over {cases}"
            ),
            source=SOURCE_B,
            measured=float(r[f"{k}_ratio"]),
            measured_se=float(r[f"{k}_ratio_se"]),
            relation="<=",
            bound=shape,
            tolerance=z * float(r[f"{k}_ratio_se"]),
            note=(
                f"Worst case {r['activation']}, d={r['width']}: q_0.5 = {r[f'{k}_q50']:.4g}, "
                f"q_{quantile:g} = {r[f'{k}_qhi']:.4g}; {draws} draws; tolerance {z} bootstrap SE "
                f"({n_boot} resamples). The lemma's constant is hidden (~): only the shape is "
                "tested."
            ),
        )

    def width_claim(k: str, what: str, source: str):
        r = sl.loc[sl.loc[sl["statistic"] == k, "dev"].idxmax()]
        return evaluate(
            id=f"mean_field.lemma_b1_b2.{k if k != 'l33' else 'lemma3_3'}_width",
            statement=(
                f"{what} scales as n / sqrt(d): slope of log RMS vs log d = -1/2 within {z} SE, "
                f"worst case over {cases}"
            ),
            source=source,
            measured=float(r["dev"]),
            relation="<=",
            bound=z,
            note=(
                f"Worst case {r['activation']}: slope {r['slope']:.4f} +- {r['slope_se']:.4f} "
                "(weighted LS over widths, delta-method SE of log RMS from i.i.d. draws)."
            ),
        )

    ctrl_row = table.loc[table["exp_ratio"].idxmin()]
    ctrl_sl = sl.loc[sl.loc[sl["statistic"] == "ctrl", "dev"].idxmin()]
    claims = [
        evaluate(
            id="mean_field.lemma_b1_b2.row_norm_bound",
            statement=(
                "every row x = phi(BN(w)) obeys ||x||^2 <= B n (Eq. (B.37)-(B.39)); measured max "
                f"||x||^2 / (B n) over all draws, {cases}"
            ),
            source=SOURCE_B,
            measured=float(table["max_row_norm_ratio"].max()),
            relation="<=",
            bound=1.0,
            tolerance=1e-12,
            note="B = 1 for linear, tanh, relu, sin; tolerance: float64 round-off of the row norm.",
        ),
        tail_claim("b1", "B.1", "B n"),
        width_claim("b1", "Lemma B.1: ||C_d - C||_F", SOURCE_B),
        tail_claim("b2", "B.2", "B ||C^{-1}|| n"),
        width_claim("b2", "Lemma B.2: ||C^{-1} C_d - I||_F", SOURCE_B),
        width_claim(
            "l33",
            "Lemma 3.3 proxy: ||G_*^{-1} G_1 - I||_F one layer after rows ~ N(0, G_*)",
            SOURCE_33,
        ),
        evaluate(
            id="mean_field.lemma_b1_b2.tail_control",
            statement=(
                "negative control: rows exp(s w), w ~ N(0, G_*), without BN (unbounded norms) "
                f"have q_{quantile:g} / q_0.5 of sqrt(d) ||C_d - C||_F above {shape:.4g}, "
                "so the tail claims can fail"
            ),
            source=SOURCE_B,
            measured=float(ctrl_row["exp_ratio"]),
            relation=">=",
            bound=shape,
            note=(
                f"s = {control_scale}; smallest ratio at {ctrl_row['activation']}, "
                f"d={ctrl_row['width']}."
            ),
        ),
        evaluate(
            id="mean_field.lemma_b1_b2.lemma3_3_control",
            statement=(
                "negative control: one layer from an AR(1) start (rho = "
                f"{control_correlation}, not G_*), ||G_*^{{-1}} G_1 - I||_F does not scale as "
                f"d^(-1/2): |slope + 1/2| >= {z} SE, closest case"
            ),
            source=SOURCE_33,
            measured=float(ctrl_sl["dev"]),
            relation=">=",
            bound=z,
            note=(
                f"{ctrl_sl['activation']}: slope {ctrl_sl['slope']:.4f} +- "
                f"{ctrl_sl['slope_se']:.4f}."
            ),
        ),
    ]
    return TheoremCheck(table, claims)


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


SUMMARIES = ("distance", "isometry_gap")


def mixing(
    *,
    batch_size: int = 10,
    widths: Sequence[int] = (200,),
    activations: Sequence[str] = ("tanh", "relu"),
    depth: int = 30,
    n_runs: int = 20,
    collinear_noise: float = 1e-3,
    summaries: Sequence[str] = SUMMARIES,
    fixed_point_samples: int = 200_000,
    merged_from: int = 20,
    n_boot: int = 500,
    z: float = 3.0,
    device: str = "auto",
) -> TheoremCheck:
    """Assumption 3.1 proxy (module docstring): two starts, per-layer summaries, fitted rate.

    Group A starts from ``collinear_inputs``, group B from i.i.d. N(0, 1) inputs (nearly
    orthogonal columns); ``n_runs`` independent chains each (inputs and weights), rows of W A
    sampled as N(0, G_l) (``chains.GaussianGramProduct``, exact in law). Summaries of
    G_l = gram(phi(BN(h_l))): ``distance`` ||G_l - G_*||_F, ``isometry_gap`` -log I(G_l)
    (Thesis Def. 4.1). Per case, Delta_l = mean_A - mean_B with the Welch SE.

    Claims (worst case over widths, activations, summaries):
        ``starts_differ`` (negative control): |Delta_1| / SE_1 >= z, the groups are still apart
            after one layer, so merging is not vacuous.
        ``decay``: slope of log|Delta_l| vs l (layers 1.. until |Delta_l| <= z SE) over its
            bootstrap SE <= -z; fitted alpha = 1 - exp(slope) in the table.
        ``merged``: the per-run average of the summary over layers merged_from..depth differs
            between the groups by <= z Welch SE.
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
        fp = mf.sphere_fixed_point(
            act, n, fixed_point_samples, seeding.generator(f"{eid}.{act}.n{n}", 0, "sphere")
        )
        g_star = (mf.linear_fixed_point(n) if act == "linear" else fp.matrix()).to(dev)
        for d in widths:
            traces = {}
            for start in ("collinear", "orthogonal"):
                tag = f"{eid}.{act}.d{d}.{start}"
                if start == "collinear":
                    h0 = collinear_inputs(tag, runs, d, n, collinear_noise, device=dev)
                else:
                    h0 = gaussian_inputs(tag, list(runs), d, n, device=dev)
                product = chains.GaussianGramProduct(tag, runs, d, n, 1.0 / d, device=dev)

                def observe(a, g_star=g_star):
                    g = mf.gram(a)
                    return {
                        "distance": torch.linalg.matrix_norm(g - g_star),
                        "isometry_gap": isometry.isometry_gap(g),
                    }

                tr = chains.simulate(
                    mf.bn_activation(h0, act),
                    chains.Step("bn_centered", act),
                    product,
                    depth,
                    {"s": observe},
                    list(layers),
                    runs,
                    desc=tag,
                )
                traces[start] = {k: tr.values[k].numpy() for k in summaries}
            for s in summaries:
                a, b = traces["collinear"][s], traces["orthogonal"][s]
                diff = a.mean(0) - b.mean(0)
                se = np.sqrt(a.var(0, ddof=1) / n_runs + b.var(0, ddof=1) / n_runs)
                slope, slope_se, window = _fit_rate(a, b, layers, z, merged_from, n_boot)
                ta, tb = a[:, merged_from:].mean(1), b[:, merged_from:].mean(1)
                tail_se = math.sqrt(ta.var(ddof=1) / n_runs + tb.var(ddof=1) / n_runs)
                fits.append(
                    {
                        "activation": act,
                        "width": d,
                        "summary": s,
                        "slope": slope,
                        "slope_se": slope_se,
                        "alpha": 1 - math.exp(slope) if math.isfinite(slope) else math.nan,
                        "fit_last_layer": int(layers[window[-1]]) if window else 0,
                        "first_t": abs(diff[1]) / se[1],
                        "tail_diff": float(ta.mean() - tb.mean()),
                        "tail_se": tail_se,
                        "tail_t": abs(ta.mean() - tb.mean()) / tail_se,
                    }
                )
                for i, layer in enumerate(layers):
                    rows.append(
                        {
                            "activation": act,
                            "width": d,
                            "summary": s,
                            "layer": int(layer),
                            "mean_collinear": a[:, i].mean(),
                            "mean_orthogonal": b[:, i].mean(),
                            "diff": diff[i],
                            "diff_se": se[i],
                        }
                    )
    fit = pd.DataFrame(fits)
    table = pd.DataFrame(rows).merge(fit, on=["activation", "width", "summary"])
    fit["decay_t"] = fit["slope"] / fit["slope_se"]
    cases = f"phi in {list(activations)}, d in {list(widths)}, summaries {list(summaries)}, n = {n}"
    desc = lambda r: f"{r['activation']}, d={r['width']}, {r['summary']}"  # noqa: E731
    dt = fit["decay_t"]  # NaN (fewer than 3 layers to fit) is the worst case: fails
    worst_decay = fit.loc[dt.isna().idxmax()] if dt.isna().any() else fit.loc[dt.idxmax()]
    worst_tail = fit.loc[fit["tail_t"].idxmax()]
    worst_first = fit.loc[fit["first_t"].idxmin()]
    alphas = ", ".join(f"{desc(r)}: {r['alpha']:.3f}" for _, r in fit.iterrows())
    claims = [
        evaluate(
            id="mean_field.mixing.starts_differ",
            statement=(
                "negative control: after one layer the chains from near-collinear and from "
                f"orthogonal inputs still differ: |Delta_1| >= {z} Welch SE, closest case over "
                f"{cases}"
            ),
            source=SOURCE_MIX,
            measured=float(worst_first["first_t"]),
            relation=">=",
            bound=z,
            note=f"Closest case {desc(worst_first)}; {n_runs} runs per start.",
        ),
        evaluate(
            id="mean_field.mixing.decay",
            statement=(
                "the difference of the two starts' mean summaries decays exponentially: slope of "
                f"log|Delta_l| vs layer <= -{z} bootstrap SE, worst case over {cases}"
            ),
            source=SOURCE_MIX,
            measured=float(worst_decay["decay_t"]),
            relation="<=",
            bound=-z,
            note=(
                f"Worst case {desc(worst_decay)}: slope {worst_decay['slope']:.4f} +- "
                f"{worst_decay['slope_se']:.4f} over layers 1..{worst_decay['fit_last_layer']}. "
                f"Fitted alpha = 1 - exp(slope): {alphas}. SE: {n_boot} resamples of runs."
            ),
        ),
        evaluate(
            id="mean_field.mixing.merged",
            statement=(
                f"the starts have merged by layer {merged_from}: the per-run average of the "
                f"summary over layers {merged_from}..{depth} differs by <= {z} Welch SE, worst "
                f"case over {cases}"
            ),
            source=SOURCE_MIX,
            measured=float(worst_tail["tail_t"]),
            relation="<=",
            bound=z,
            note=(
                f"Worst case {desc(worst_tail)}: difference {worst_tail['tail_diff']:.3g} +- "
                f"{worst_tail['tail_se']:.3g}."
            ),
        ),
    ]
    return TheoremCheck(table, claims)
