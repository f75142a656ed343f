"""Theorem checks of Thesis app. C.3 (proof of Thm. 6.5 = Thm. C.10): the BN Jacobian lemmas.

Thesis app. C.3 (Thm. C.10 and Lemmas C.11-C.21, Eq. (C.79)-(C.82)) and Remark 6.7. BN =
``ops.bn_unit`` (Eq. (6.4)); its Jacobian and the bounds are ``bn_jacobian``. All in float64.
Each item is a ``measure_<item>`` (all random numbers, one table) and a ``judge_<item>`` (the
claims, from that table read back from CSV, and the config slice; in ``jacobian_theorem_judges``,
torch-free). Items (claim ids
``gradients.<item>.<what>``):

- ``jacobian``: random X (d = n in ``widths``, trace-normalized): autograd Jacobian of BN vs
  Lemma C.18's closed form and block structure (C.136), spectrum {1/||x||, 0} (Cor. C.19; printed
  multiplicity d^2 - 1 is an erratum, expected to fail), ||J_BN|| = 1/min row norm (C.138),
  ||J_BN||^2 <= 1/lambda_min (C.16), C.20, C.17 (both parts, with sharpness), C.13 (with a
  scale control), C.21 (equality for orthogonal W; Gaussian W breaks it: control).
- ``lemma_c11``: per-sample logit gradients of CE and MSE-on-softmax <= 2 (CE: sup sqrt(2)
  attained); MSE on raw logits is not bounded (control).
- ``chain_rule``: in small orthogonal ``bn_unit`` nets (``bn_mlp``), log ||dL/dW_l||_F <=
  log ||dL/dH^L||_F + sum_{k=l}^{L-1} log ||J_BN(H^k)|| + log ||X^l||_op (C.79/C.80/C.82);
  a read-out with ||W^L|| = 3 violates it (control).
- ``lemma_c12``: chains X^{l+1} = BN(W X^l), d = n: cumulative sum_k log(1/min_i ||H^k_i.||) with
  H^k trace-normalized (||H||_F^2 = d, the C.13/C.17 convention; a no-op for orthogonal W)
  converges for Haar W (late slope ~ 0) and grows linearly for Gaussian W.
- ``lemma_c14_c15``: hitting time S (C.86) vs 512 d^4 psi_0^2 (C.14) and the proof's C.118, the
  second-phase sum vs C.15, and the one-step contraction E sqrt(psi') <= (1 - 1/(32 d^4))
  sqrt(psi) (C.108) by Monte Carlo; Gaussian W: no hitting, no contraction (controls).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import Tensor

from ...base.config import check_positive, check_widths
from ...engine import metrics, ops, seeding, stats
from ...engine.devices import resolve_device
from ...engine.stats import EPS
from ...nets.initializations import STACKED_INITS, haar_weights
from . import bn_jacobian as bj
from . import bn_mlp
from .jacobian_theorem_spec import late_window

__all__ = [
    "measure_chain_rule",
    "measure_jacobian",
    "measure_lemma_c11",
    "measure_lemma_c12",
    "measure_lemma_c14_c15",
]

DTYPE = torch.float64


def _haar(g: torch.Generator, c: int, d: int, device) -> Tensor:
    """c Haar d x d matrices from one generator, shape (c, d, d)."""
    return haar_weights([g] * c, d, d, DTYPE, device)


def _cases(d: int, n_cases: int, log10_spread: float, g: torch.Generator, device) -> dict:
    """Three families of trace-normalized d x d matrices X = U diag(s) V^T (U, V Haar).

    ``spread``: s = 10^(-log10_spread U(0,1)) per singular value; ``near_isometric``: s_k^2 =
    1 + eps_k with psi <= 1/(16 d); ``one_small``: s = (1, .., 1, t), t^2 = 10^(-U(1, 4)) (where
    Lemma C.17's first bound is nearly tight)."""
    draws = seeding.Draws(g, DTYPE, device)
    u, v = _haar(g, n_cases, d, device), _haar(g, n_cases, d, device)
    out = {}
    s = 10.0 ** (-log10_spread * draws.rand(n_cases, d))
    out["spread"] = s
    eps = (draws.rand(n_cases, d) - 0.5) * (0.6 / math.sqrt(d))
    out["near_isometric"] = torch.sqrt(1.0 + eps)
    t = 10.0 ** (-(1.0 + 3.0 * draws.rand(n_cases)) / 2)
    small = torch.ones(n_cases, d, dtype=DTYPE, device=device)
    small[:, -1] = t
    out["one_small"] = small
    return {k: bj.trace_normalize((u * s[:, None, :]) @ v.mT) for k, s in out.items()}


def _autograd_jacobian(f, x: Tensor) -> Tensor:
    """Batched Jacobian of f: (d, n) -> (d, n) at x (c, d, n), flattened to (c, d n, d n)."""
    jac = torch.vmap(torch.func.jacrev(f))(x)
    c, d, n = x.shape
    return jac.reshape(c, d * n, d * n)


def measure_jacobian(
    *,
    widths: Sequence[int],
    n_cases: int,
    log10_spread: float,
    scale_control: float,
    device: str = "auto",
) -> pd.DataFrame:
    """Lemmas C.13, C.16-C.21 on ``n_cases`` random X per family and width (d = n): one row per
    X with the Jacobian errors, norms, eigenvalues and bounds."""
    device = resolve_device(device)
    widths = check_widths(widths)
    check_positive(n_cases=n_cases, log10_spread=log10_spread, scale_control=scale_control)
    rows = []
    for d in widths:
        g = seeding.generator("gradients.jacobian", 0, f"d{d}")
        for family, x in _cases(d, int(n_cases), log10_spread, g, device).items():
            c = x.shape[0]
            j_auto = _autograd_jacobian(ops.bn_unit, x)
            j_closed = bj.bn_jacobian(x)
            jmax = j_auto.abs().amax((-2, -1))
            closed_err = (j_auto - j_closed).abs().amax((-2, -1)) / jmax
            blocks = j_auto.reshape(c, d, d, d, d)
            mask = ~torch.eye(d, dtype=torch.bool, device=device)[:, None, :, None]
            off_block = (blocks * mask).abs().amax((1, 2, 3, 4)) / jmax
            diag_blocks = blocks.diagonal(dim1=1, dim2=3).permute(0, 3, 1, 2)  # (c, d, n, n)
            eig = torch.linalg.eigvalsh((diag_blocks + diag_blocks.mT) / 2)  # ascending
            r = torch.linalg.vector_norm(x, dim=-1)  # (c, d)
            spec_err = torch.maximum(
                (eig[..., 1:] * r[..., None] - 1.0).abs().amax((-2, -1)),
                (eig[..., 0] * r).abs().amax(-1),
            )
            n_top = ((eig * r[..., None] - 1.0).abs() < 1e-8).sum(-1)  # per block: n - 1
            op = metrics.spectral_norm(j_auto)
            op_closed = bj.bn_jacobian_norm(x)
            lam = torch.linalg.eigvalsh(x @ x.mT)
            lam_min, lam_max = lam[..., 0], lam[..., -1]
            kappa = lam_max / lam_min
            psi = bn_mlp.representation_gap(x)
            general, small = bj.c17_bound(psi, d)
            neg_log_lam = -lam_min.log()
            log_j = bj.log_bn_jacobian_norm(x)
            log_j_scaled = bj.log_bn_jacobian_norm(scale_control * x)
            wo = _haar(g, c, d, device)
            wg = torch.randn(c, d, d, generator=g, dtype=DTYPE).to(device) / math.sqrt(d)
            xb = ops.bn_unit(x)
            layer = {}
            for name, w in (("orthogonal", wo), ("gaussian", wg)):
                jl = torch.vmap(torch.func.jacrev(lambda xx, ww: ops.bn_unit(ww @ xx)))(xb, w)
                layer[name] = metrics.spectral_norm(
                    jl.reshape(c, d * d, d * d)
                ).log() - bj.log_bn_jacobian_norm(w @ xb)
            for i in range(c):
                rows.append(
                    dict(
                        d=d,
                        family=family,
                        psi=psi[i].item(),
                        lambda_min=lam_min[i].item(),
                        kappa=kappa[i].item(),
                        closed_form_error=closed_err[i].item(),
                        off_block=off_block[i].item(),
                        spectrum_error=spec_err[i].item(),
                        eig_top_multiplicity=int(n_top[i].min()),
                        op_norm=op[i].item(),
                        op_norm_closed=op_closed[i].item(),
                        min_row_norm_sq=(r[i].amin() ** 2).item(),
                        neg_log_lambda_min=neg_log_lam[i].item(),
                        c17_general=general[i].item(),
                        c17_small=small[i].item(),
                        log_j=log_j[i].item(),
                        c13_bound=bj.c13_bound(psi[i], d).item(),
                        log_j_scaled=log_j_scaled[i].item(),
                        c21_orthogonal=layer["orthogonal"][i].item(),
                        c21_gaussian=layer["gaussian"][i].item(),
                    )
                )
    return pd.DataFrame(rows)


def measure_lemma_c11(
    *,
    classes: Sequence[int],
    n_samples: int,
    logit_scales: Sequence[float],
    device: str = "auto",
) -> pd.DataFrame:
    """Lemma C.11 on random logits z = s N(0, I_C) and labels, per C and scale s: per-sample
    ||grad_z L|| of CE and MSE-on-softmax (closed forms checked against autograd), one row per
    loss, C and s."""
    device = resolve_device(device)
    cls = check_widths(classes)
    check_positive(n_samples=n_samples, **{
        f"logit_scales[{i}]": s for i, s in enumerate(logit_scales)})  # fmt: skip
    rows = []
    for c in cls:
        g = seeding.generator("gradients.lemma_c11", 0, f"C{c}")
        for s in logit_scales:
            z = float(s) * torch.randn(n_samples, c, generator=g, dtype=DTYPE).to(device)
            y = torch.randint(0, c, (n_samples,), generator=g).to(device)
            zz = z.clone().requires_grad_(True)
            ce_auto = torch.autograd.grad(F.cross_entropy(zz, y, reduction="sum"), zz)[0]
            p = torch.softmax(zz, -1)
            oh = F.one_hot(y, c).to(DTYPE)
            mse = ((oh - p) ** 2).mean(-1).sum()
            mse_auto = torch.autograd.grad(mse, zz)[0]
            ce = bj.ce_logit_gradient(z, y)
            ms = bj.mse_softmax_logit_gradient(z, y)
            raw = 2.0 * (z - oh) / c  # MSE on raw logits (no softmax): not Lipschitz
            for name, grad, auto in (("ce", ce, ce_auto), ("mse_softmax", ms, mse_auto),
                                     ("mse_raw", raw, None)):  # fmt: skip
                norm = torch.linalg.vector_norm(grad, dim=-1)
                err = (grad - auto).abs().amax().item() if auto is not None else math.nan
                rows.append(dict(loss=name, classes=c, logit_scale=float(s),
                                 max_norm=norm.max().item(), mean_norm=norm.mean().item(),
                                 autograd_error=err))  # fmt: skip
    return pd.DataFrame(rows)


def _chain_rule_net(d, depth, n_classes, runs, readout_scale, experiment_id, device):
    """One orthogonal bn_unit net per run (bn_mlp's parameters), D = n = d: per layer the
    actual log ||dL/dW_l||_F and the RHS of (C.80)/(C.82), shapes (R, L + 1)."""
    arch = bn_mlp.Architecture(depth=depth, width=d, norm="bn_unit", init="orthogonal")
    g = seeding.generator(experiment_id, 0, "input")
    x = torch.randn(d, d, generator=g, dtype=DTYPE).to(device)
    labels = torch.randint(0, n_classes, (d,), generator=g).to(device)
    params = bn_mlp.init_parameters(arch, d, n_classes, experiment_id, range(runs), DTYPE, device)
    ws = [w.requires_grad_(True) for w in params.weights]
    xs, hs = [], []
    h = x.expand(runs, d, d)
    for layer, w in enumerate(ws):
        xs.append(h.detach())
        h = (readout_scale * w if layer == depth else w) @ h
        hs.append(h)
        if layer < depth:
            h = ops.bn_unit(h)
    loss = F.cross_entropy(h, labels.expand(runs, -1), reduction="none").mean(-1)
    grads = torch.autograd.grad(loss.sum(), ws + [hs[-1]])
    lhs = torch.stack([torch.linalg.matrix_norm(gw).log() for gw in grads[:-1]], -1)
    top = torch.linalg.matrix_norm(grads[-1]).log()
    log_j = torch.stack([bj.log_bn_jacobian_norm(hk.detach()) for hk in hs[:-1]], -1)
    tail = torch.flip(torch.cumsum(torch.flip(log_j, [-1]), -1), [-1])
    tail = torch.cat([tail, torch.zeros(runs, 1, dtype=DTYPE, device=device)], -1)
    x_norm = torch.stack([metrics.spectral_norm(xx).expand(runs) for xx in xs], -1).log()
    rhs = top[:, None] + tail + x_norm
    return arch, x, labels, lhs.detach(), rhs.detach(), top.detach(), tail, x_norm


def measure_chain_rule(
    *,
    widths: Sequence[int],
    depths: Sequence[int],
    n_classes: int,
    runs: int,
    readout_scale: float,
    device: str = "auto",
) -> pd.DataFrame:
    """The chain-rule bound (C.79)/(C.80)/(C.82) per layer and run in orthogonal BN nets: rows of
    kind ``layer`` (per width, depth, run and layer) and ``net`` (per width and depth: the
    largest |difference| from ``bn_mlp.gradient_profile`` and the read-out control's largest
    LHS - RHS)."""
    device = resolve_device(device)
    widths, depths = check_widths(widths), check_widths(depths, lo=1)
    check_positive(runs=runs, readout_scale=readout_scale - 1.0, n_classes=n_classes - 1)
    rows, nets = [], []
    for d in widths:
        for depth in depths:
            eid = f"gradients.chain_rule.d{d}.L{depth}"
            arch, x, labels, lhs, rhs, top, tail, xn = _chain_rule_net(
                d, depth, n_classes, runs, 1.0, eid, device
            )
            prof = bn_mlp.gradient_profile(arch, x, labels, eid, range(runs), n_classes, DTYPE,
                                           device)  # fmt: skip
            consistency = (prof.log_grad - lhs).abs().max().item()
            *_, lhs_c, rhs_c, _, _, _ = _chain_rule_net(
                d, depth, n_classes, runs, readout_scale, eid, device
            )
            control = (lhs_c - rhs_c)[:, :-1].max().item()
            nets.append(dict(d=d, depth=depth, consistency=consistency, control=control))
            for r in range(runs):
                for layer in range(depth + 1):
                    rows.append(dict(
                        d=d, depth=depth, run=r, layer=layer, log_grad=lhs[r, layer].item(),
                        rhs=rhs[r, layer].item(), log_dl_dhl=top[r].item(),
                        sum_log_j=tail[r, layer].item(), log_x_norm=xn[r, layer].item(),
                        rhs_thesis=(top[r] + tail[r, layer] + math.log(d)).item()
                        if layer > 0 else math.nan,
                    ))  # fmt: skip
    t = pd.DataFrame(rows)
    t["slack"] = t["rhs"] - t["log_grad"]
    return pd.concat(
        [t.assign(kind="layer"), pd.DataFrame(nets).assign(kind="net")], ignore_index=True
    )


def _bn_chain(x0: Tensor, init: str, depth: int, experiment_id: str, device) -> dict[str, Tensor]:
    """X^{l+1} = BN(W_l X^l), l = 0..depth-1, W_l Haar or N(0, 1/d) (one generator per run):
    per layer psi(X^l) and X^l (l = 0..depth), log ||J_BN(H^l)|| of the trace-normalized H^l."""
    runs, d, _ = x0.shape
    gens = seeding.generators(experiment_id, range(runs), "weights")
    draw = STACKED_INITS[init]
    x, psi, log_j, xs = x0, [bn_mlp.representation_gap(x0)], [], [x0]
    for _ in range(depth):
        h = draw(gens, d, d, DTYPE, device) @ x
        log_j.append(bj.log_bn_jacobian_norm(bj.trace_normalize(h)))
        x = ops.bn_unit(h)
        psi.append(bn_mlp.representation_gap(x))
        xs.append(x)
    return dict(psi=torch.stack(psi, -1), log_j=torch.stack(log_j, -1), xs=torch.stack(xs, 1))


def _inputs(experiment_id: str, runs: int, d: int, device) -> Tensor:
    """X^0 = BN(G), G a d x d standard Gaussian per run (psi_0 ~ 1, non-degenerate)."""
    g = seeding.generator(experiment_id, 0, "input")
    return ops.bn_unit(torch.randn(runs, d, d, generator=g, dtype=DTYPE).to(device))


def _late_slopes(cum: Tensor, window: Sequence[int]) -> np.ndarray:
    lo, hi = window
    layers = np.arange(lo, hi + 1)
    return np.array([stats.ols_slope(layers, c[lo : hi + 1]).value for c in cum.cpu().numpy()])


def measure_lemma_c12(
    *,
    widths: Sequence[int],
    depth: int,
    runs: int,
    late_from: float,
    device: str = "auto",
) -> pd.DataFrame:
    """Lemma C.12 along deep chains: cumulative sum_k log ||J_BN(H^k)|| for Haar and Gaussian W.

    Rows of kind ``layer`` (psi, log ||J_BN||, cumulative sum per width, init, run and layer),
    ``slope`` (the late slope over layers [late_from L, L - 1] per width, init and run) and
    ``width`` (per width, Haar W: layers violating the C.13 bound, and the largest ratio of the
    total sum to the explicit C.94 bound).
    """
    device = resolve_device(device)
    widths = check_widths(widths)
    check_positive(depth=depth, runs=runs - 1)
    window = late_window(depth, late_from)
    rows, slope_rows, width_rows = [], [], []
    for d in widths:
        x0 = _inputs(f"gradients.lemma_c12.d{d}", runs, d, device)
        for init in ("orthogonal", "gaussian"):
            out = _bn_chain(x0, init, depth, f"gradients.lemma_c12.d{d}.{init}", device)
            cum = out["log_j"].cumsum(-1)
            slopes = _late_slopes(cum, window)
            psi = out["psi"]
            for r in range(runs):
                for layer in range(depth):
                    rows.append(dict(d=d, init=init, run=r, layer=layer,
                                     psi=psi[r, layer].item(), log_j=out["log_j"][r, layer].item(),
                                     cumulative=cum[r, layer].item()))  # fmt: skip
                slope_rows.append(dict(d=d, init=init, run=r, late_slope=float(slopes[r])))
            if init == "orthogonal":
                # psi(H^l) = psi(X^l) for Haar W; psi carries eigensolver round-off ~ d eps, which
                # the sqrt of (C.85) amplifies: the bound is taken at psi + 16 d eps
                bound = bj.c13_bound(psi[:, :-1].clamp_min(0) + 16 * d * EPS, d)
                viol = int((out["log_j"] > bound).sum())
                psi0 = psi[:, 0]
                explicit = 512 * d**4 * psi0**2 * (1 + d * psi0) + 32 * d**4 * (
                    -math.expm1(-depth / (32 * d**4))
                )
                ratio = (cum[:, -1] / explicit).max().item()
                width_rows.append(dict(d=d, c13_violations=viol, c94_ratio=ratio))
    return pd.concat(
        [
            pd.DataFrame(rows).assign(kind="layer"),
            pd.DataFrame(slope_rows).assign(kind="slope"),
            pd.DataFrame(width_rows).assign(kind="width"),
        ],
        ignore_index=True,
    )


def measure_lemma_c14_c15(
    *,
    widths: Sequence[int],
    depth: int,
    runs: int,
    step_states: int,
    step_draws: int,
    device: str = "auto",
) -> pd.DataFrame:
    """Lemmas C.14/C.15 and Eq. (C.108): hitting time S of psi <= 1/(16 d) along Haar chains from
    X^0 = BN(Gaussian), vs 512 d^4 psi_0^2 and C.118; sum_{l > S} sqrt(d psi(X^l)) vs C.15; and the
    one-step ratio E sqrt(psi(BN(W X)))/sqrt(psi(X)) for X with psi <= 1/(16 d) (states taken
    from the chains at S) vs 1 - 1/(32 d^4), by ``step_draws`` Monte Carlo draws of W.

    Rows of kind ``chain`` (per width and run), ``step`` (per width, init and state: mean and SE
    of the ratio over the draws) and ``pooled`` (per width and init: the ratio's mean over all
    states and draws).
    """
    device = resolve_device(device)
    widths = check_widths(widths)
    check_positive(depth=depth, runs=runs - 1, step_states=step_states, step_draws=step_draws - 1)
    rows, steps, pooled = [], [], []
    for d in widths:
        eid = f"gradients.lemma_c14_c15.d{d}"
        x0 = _inputs(eid, runs, d, device)
        hit = {}
        for init in ("orthogonal", "gaussian"):
            out = _bn_chain(x0, init, depth, f"{eid}.{init}", device)
            hit[init] = (bj.hitting_time(out["psi"], d), out["psi"], out["xs"])
        s, psi, xs = hit["orthogonal"]
        psi0 = psi[:, 0]
        root = (d * psi.clamp_min(0)).sqrt()
        after = torch.arange(depth + 1, device=device)[None, :] > s[:, None]
        phase2 = (root * after).sum(-1)
        c15 = bj.c15_bound(psi0, d, depth)
        for r in range(runs):
            rows.append(dict(d=d, run=r, psi0=psi0[r].item(), S=s[r].item(),
                             S_gaussian=hit["gaussian"][0][r].item(),
                             c14_bound=bj.c14_bound(psi0[r], d).item(),
                             c118_bound=bj.c14_proof_bound(psi0[r], d).item(),
                             phase2_sum=phase2[r].item(), c15_bound=c15[r].item()))  # fmt: skip
        # C.108: the chains' states at their hitting times (psi <= 1/(16 d)), fresh W draws
        g = seeding.generator(eid, 0, "step")
        states = [xs[r, int(s[r])] for r in range(runs) if math.isfinite(s[r].item())]
        states = states[:step_states]
        ratios = {"orthogonal": [], "gaussian": []}
        for xst in states:
            p = bn_mlp.representation_gap(xst).clamp_min(1e-300)
            wo = _haar(g, step_draws, d, device)
            wg = torch.randn(step_draws, d, d, generator=g, dtype=DTYPE).to(device)
            for name, w in (("orthogonal", wo), ("gaussian", wg)):
                q = bn_mlp.representation_gap(ops.bn_unit(w @ xst)).clamp_min(0)
                ratios[name].append((q.sqrt() / p.sqrt()).cpu().numpy())
                steps.append(dict(d=d, init=name, psi=p.item(), ratio_mean=float(
                    ratios[name][-1].mean()), ratio_se=float(ratios[name][-1].std(ddof=1) /
                    math.sqrt(step_draws))))  # fmt: skip
        if states:
            for name, r in ratios.items():
                pooled.append(dict(d=d, init=name, ratio_mean=float(np.concatenate(r).mean())))
    return pd.concat(
        [
            pd.DataFrame(rows).assign(kind="chain"),
            pd.DataFrame(steps).assign(kind="step"),
            pd.DataFrame(pooled).assign(kind="pooled"),
        ],
        ignore_index=True,
    )
