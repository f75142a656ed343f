"""Dan+20 theorem items on the BN chain (seeds 000-002): Lemmas 1, 4, 5, 6 and 7.

Each item is a ``measure_<item>`` (its settings in, one table row per case out; every random
number and all heavy compute) and a ``judge_<item>`` (the measured table and the item's config
slice in, the claims out; pure, torch-free, in ``bn_chain_lemma_judges``):

- ``lemma1``: Lemma 1, rank(H) >= r(H) (Eq. (4), proof Eq. (11)-(14)) and
  rank_tau(H_l) >= (1 - tau)^2 r(H_l) on BN states (Eq. (3), proof Eq. (15)-(21)), with a
  negative control (Tr M != d) that must violate the second inequality.
- ``lemma4``: Lemma 4 and Eq. (31)-(32) (off-diagonal M_ij average to zero along the
  chain), and App. C's "Comment on BN-centering" (row means are O(1/sqrt N); centering is
  redundant in the linear chain).
- ``lemma5_6``: Lemma 6 / Eq. (33), (36)-(37) (a rank-one state is absorbing: M stays constant
  with entries +-1) and Lemma 5 / Eq. (30) (rank >= 2 along chains from a full-rank X).
- ``lemma7``: Lemma 7 / Eq. (43), Monte Carlo over one BN layer with antithetic pairs (W, -W).

Every check runs the library's chain engine (``chains``), metrics (``metrics``) and BN
(``ops``); every random number comes from ``seeding`` generators addressed by the experiment
ids below. Computations are float64. Claim ids are ``rank_collapse.<item>.<what>``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch
from torch import Tensor

from ...engine import chains, inputs, metrics, ops, seeding
from ...engine.devices import resolve_device
from ...engine.stats import mean_se
from .bn_chain_lemma_spec import FLOAT_TOLERANCE, MATRIX_KINDS, TAU_GRID, gamma_tag

__all__ = [
    "DTYPE",
    "EXPERIMENT_IDS",
    "FLOAT_TOLERANCE",
    "MATRIX_KINDS",
    "PAIRS_PER_CHUNK",
    "TAU_GRID",
    "measure_lemma1",
    "measure_lemma4",
    "measure_lemma5_6",
    "measure_lemma7",
]

DTYPE = torch.float64
"""All checks run in float64."""

EXPERIMENT_IDS = {
    "lemma1": "rank_collapse.lemma1",
    "lemma4": "rank_collapse.lemma4",
    "lemma5_6": "rank_collapse.lemma5_6",
    "lemma7": "rank_collapse.lemma7",
}
"""Random-stream addresses (``seeding``) of each check; suffixes name the case."""


PAIRS_PER_CHUNK = 8192
"""Lemma 7 draws W in chunks of this many antithetic pairs, chunk k from
``seeding.generator(id, k, "weights")``; part of the stream contract (fixes the draws)."""


# ---------------------------------------------------------------------------------------------
# helpers


def _masked_max(values: Tensor, mask: Tensor) -> float:
    """max of ``values[mask]``; NaN (a failing measurement) when the mask is empty."""
    return values[mask].max().item() if mask.any() else math.nan


def _soft_rank_margin(h: Tensor, taus: Sequence[float]) -> Tensor:
    """min over the tau grid of rank_tau(H) - (1 - tau)^2 r(H) (Lemma 1, part 2), shape (...)."""
    r = metrics.rank_lower_bound(h)
    margins = [metrics.soft_rank(h, float(t)) - (1.0 - float(t)) ** 2 * r for t in taus]
    return torch.stack(margins, dim=-1).amin(dim=-1)


class _Buffered:
    """Observer that evaluates ``fn`` on blocks of stacked states instead of one layer at a time.

    Batched eigendecompositions of many small matrices are several times faster than one call
    per layer. ``fn`` maps states of shape (block, R, d, n) to values of shape (block, R, ...);
    ``values`` stacks them over the observed layers: shape (layers, R, ...). Returns zeros to
    ``chains.simulate`` (the values are read from the observer, not from the trace).
    """

    def __init__(self, fn, block: int = 256):
        self.fn, self.block = fn, block
        self._states: list[Tensor] = []
        self._values: list[Tensor] = []

    def __call__(self, h: Tensor) -> Tensor:
        self._states.append(h.clone())
        if len(self._states) == self.block:
            self._flush()
        return torch.zeros(h.shape[0], dtype=h.dtype, device=h.device)

    def _flush(self) -> None:
        if self._states:
            self._values.append(self.fn(torch.stack(self._states)))
            self._states = []

    @property
    def values(self) -> Tensor:
        self._flush()
        return torch.cat(self._values)

    def state_dict(self) -> dict:
        """The states not yet evaluated and the values so far (a resumable chain's)."""
        return {"states": list(self._states), "values": list(self._values)}

    def load_state_dict(self, state: dict) -> None:
        self._states, self._values = list(state["states"]), list(state["values"])


class _LayerMean:
    """Observer that accumulates f(h) (any shape per run) over the layers it is called at.

    ``chains.simulate`` calls an observer only at recorded layers, so ``mean`` is the ergodic
    average over the recorded window (Dan+20 Eq. (32), (49)). Returns ``summary(f(h))`` per run.
    """

    def __init__(self, f, summary):
        self.f, self.summary = f, summary
        self.total: Tensor | None = None
        self.count = 0

    def __call__(self, h: Tensor) -> Tensor:
        value = self.f(h)
        self.total = value.clone() if self.total is None else self.total + value
        self.count += 1
        return self.summary(value)

    @property
    def mean(self) -> Tensor:
        return self.total / self.count

    def state_dict(self) -> dict:
        """The running total and count (a resumable chain's)."""
        return {"total": self.total, "count": self.count}

    def load_state_dict(self, state: dict) -> None:
        self.total, self.count = state["total"], int(state["count"])


# ---------------------------------------------------------------------------------------------
# Lemma 1


def _random_matrices(
    kind: str, d: int, n: int, count: int, log10_noise: Sequence[float], device
) -> Tensor:
    """``count`` random d x n matrices of one kind, from stream ``f"{kind}.d{d}.n{n}"``.

    gaussian: i.i.d. N(0, 1). low_rank_noise: U V / sqrt(k) + s G with k uniform in
    1..max(1, min(d, n) // 2) and s = 10^u, u uniform in ``log10_noise`` (so the float64 rank
    ranges from k to min(d, n)). near_collinear: columns v + s g_j (samples nearly equal).
    """
    g = seeding.generator(EXPERIMENT_IDS["lemma1"], 0, f"{kind}.d{d}.n{n}")
    draws = seeding.Draws(g, DTYPE, device)
    lo, hi = (float(x) for x in log10_noise)
    if kind == "gaussian":
        return draws.randn(count, d, n)
    scale = 10.0 ** (lo + (hi - lo) * draws.rand(count, 1, 1))
    if kind == "low_rank_noise":
        kmax = max(1, min(d, n) // 2)
        k = torch.randint(1, kmax + 1, (count,), generator=g).to(device)
        keep = (torch.arange(kmax, device=device) < k[:, None]).to(DTYPE)  # (count, kmax)
        u = draws.randn(count, d, kmax) * keep[:, None, :]
        v = draws.randn(count, kmax, n)
        low = u @ v / k.to(DTYPE).sqrt()[:, None, None]
        return low + scale * draws.randn(count, d, n)
    if kind == "near_collinear":
        v = draws.randn(count, d, 1)
        return v + scale * draws.randn(count, d, n)
    raise ValueError(f"unknown matrix kind {kind!r}")


def _margin_row(part: str, common: dict, margin: Tensor) -> dict:
    """One row of the Lemma 1 table: the smallest margin and how many fall below -round-off."""
    below = margin < -FLOAT_TOLERANCE
    return dict(
        part=part,
        **common,
        min_margin=margin.min().item(),
        violation_fraction=below.to(DTYPE).mean().item(),
        violations=below.sum().item(),
    )


def measure_lemma1(
    *,
    widths: Sequence[int],
    batch_ratios: Sequence[int],
    n_matrices: int,
    log10_noise: Sequence[float],
    gammas: Sequence[float],
    depth: int,
    n_runs: int,
    taus: Sequence[float],
    control_scale: float,
    device: str = "auto",
) -> pd.DataFrame:
    """Dan+20 Lemma 1: rank(H) >= r(H) (Eq. (4)); rank_tau(H_l) >= (1 - tau)^2 r(H_l) (Eq. (3)).

    (a) Random d x N matrices of ``MATRIX_KINDS`` (d in ``widths``, N = d * ratio): the exact
    rank (``torch.linalg.matrix_rank`` in float64, tolerance sigma_max max(d, N) eps; Lemma 1
    concerns the algebraic rank, not the paper's 1e-7 rule, which the table also reports)
    against r(H) = Tr(M)^2 / ||M||_F^2.
    (b) States H_l, l = 1..depth, of the BN chain Eq. (1) (``Step("bn_rms", gamma)``, Gaussian
    X and W, ``n_runs`` runs): the margin min_tau [rank_tau(H_l) - (1 - tau)^2 r(H_l)] over
    ``taus``. The proof (Eq. (19)-(20)) uses ||lambda||_1 = Tr M = d, i.e. BN-normalized rows.
    (c) Negative control: the same states scaled by ``control_scale`` (Tr M = d s^2 != d) must
    violate (b) for some of them (``judge_lemma1``), so the check can fail.

    Table: one row per (part, kind, d, n, gamma) with count, min_margin, violation_fraction and
    violations (part ``rank_vs_r``: min of rank - r; ``rank_vs_r_paper_rule``: the same with
    the paper's numerical rank; ``soft_rank_*``: min of the part (b) margin; the fraction and
    the number of matrices with margin < -FLOAT_TOLERANCE).
    """
    dev = resolve_device(device)
    taus = [float(t) for t in taus]
    if not all(0.0 <= t <= 1.0 for t in taus):
        raise ValueError(f"taus must lie in [0, 1], got {taus}")
    rows = []
    shapes = [(int(d), int(d) * int(k)) for d in widths for k in batch_ratios]

    # (a) random matrices
    for kind in MATRIX_KINDS:
        for d, n in shapes:
            h = _random_matrices(kind, d, n, n_matrices, log10_noise, dev)
            r = metrics.rank_lower_bound(h)
            exact = torch.linalg.matrix_rank(h).to(DTYPE) - r
            paper = metrics.numerical_rank(h) - r
            soft = _soft_rank_margin(h, taus)
            common = dict(kind=kind, d=d, n=n, gamma=math.nan, count=n_matrices)
            rows += [
                _margin_row("rank_vs_r", common, exact),
                _margin_row("rank_vs_r_paper_rule", common, paper),
                _margin_row("soft_rank_raw", common, soft),
            ]

    # (b) BN chain states and (c) their scaled negative control
    runs = list(range(n_runs))
    for d, n in shapes:
        for gamma in gammas:
            gamma = float(gamma)
            eid = f"{EXPERIMENT_IDS['lemma1']}.chain.d{d}.n{n}.{gamma_tag(gamma)}"
            h0 = inputs.gaussian_inputs(eid, runs, d, n, DTYPE, dev)
            margin = _Buffered(lambda h: _soft_rank_margin(h, taus))
            control = _Buffered(lambda h: _soft_rank_margin(control_scale * h, taus))
            chains.simulate(
                h0,
                chains.Step("bn_rms", gamma=gamma),
                chains.ExplicitProduct(eid, runs, d, "gaussian", 1.0, DTYPE, dev),
                depth,
                {"margin": margin, "control": control},
                runs=runs,
                desc=eid,
            )
            margin, control = margin.values, control.values
            common = dict(kind="bn_chain", d=d, n=n, gamma=gamma, count=margin.numel())
            rows += [
                _margin_row("soft_rank_bn", common, margin),
                _margin_row("soft_rank_control", common, control),
            ]
    columns = ["part", "kind", "d", "n", "gamma", "count", "min_margin", "violation_fraction"]
    return pd.DataFrame(rows, columns=[*columns, "violations"])


# ---------------------------------------------------------------------------------------------
# Lemma 4 and the comment on BN centering


def _offdiag(m: Tensor) -> Tensor:
    """The d(d-1)/2 entries above the diagonal of (..., d, d), shape (..., d(d-1)/2)."""
    d = m.shape[-1]
    i, j = torch.triu_indices(d, d, offset=1, device=m.device)
    return m[..., i, j]


def measure_lemma4(
    *,
    width: int,
    batch_size: int,
    depth: int,
    burn_in: int,
    n_runs: int,
    gammas: Sequence[float],
    identity_layers: int,
    input_offset: float,
    device: str = "auto",
) -> pd.DataFrame:
    """Dan+20 Lemma 4 (Eq. (31)-(32)) and App. C "Comment on BN-centering", linear BN chain.

    For each gamma, ``n_runs`` chains H_{l+1} = BN(H_l + gamma W_l H_l) (Eq. (1), Gaussian X
    and W, d = ``width``, N = ``batch_size``) are averaged over layers burn_in..depth (Eq. (49)).

    - Eq. (31)-(32): the ergodic average Mbar_ij of every off-diagonal entry of M(H_l) tends to
      E_nu[M_ij] = 0. Rows are exchangeable, so all pairs share one mean; claim ``offdiag_mean``
      tests the pair-averaged Mbar_ij against 0 (within ``offdiag_margin``, t over runs). Claim
      ``offdiag_cross_run`` tests every pair at once: for independent runs r != s,
      E[Mbar^r_ij Mbar^s_ij] = E[M_ij]^2, so the cross-run products averaged over pairs estimate
      mean_{i<j} E[M_ij]^2 without bias and must be 0 within ``offdiag_margin`` squared (under
      the null the products of distinct run pairs are uncorrelated, which gives the SE).
    - Row means: the comment says the batch average m_i = (1/N) sum_j H_ij is close to zero
      (footnote 8: CLT, O(1/sqrt N)). For a column-sign-symmetric X (Gaussian) every column of
      H_l is sign-symmetric too (flipping x_j flips column j of every layer), so cross terms
      vanish and E[N m_i^2] = (1/N) E||H_i:||^2 = 1 exactly after BN (our derivation). Claim
      ``row_mean_small``: N * mean m_i^2 (layers, rows) is at most ``row_mean_max`` (the seed's
      "close to zero" at the CLT scale, one-sided); the table also reports the RMS row mean in
      units of 1/sqrt(N).
    - Centering: the same chain with ``Step("bn_centered")`` and the same weights and input.
      Row centering is right-multiplication by P = I - 11^T/N, which commutes with the left
      multiplications and row scalings of the chain, so the centered chain from X equals the
      uncentered chain from XP draw for draw (our derivation; claim ``centering_identity``,
      measured on r(H_l)). Centering therefore only removes the single input direction 1_N.
      Claims ``centering_r`` / ``centering_rank_half``: the layer-averaged r(H) and
      rank_{1/2}(H) of the two chains agree: the t interval of the paired mean difference over
      runs lies within ``centering_tolerance`` times the uncentered average (a relative margin
      for the one removed dimension, recorded in the claim).

    Every margin is a declared equivalence margin: the t interval over runs must lie inside it
    (``judge_lemma4``); a wider interval (fewer runs) can only make a claim undecided.

    ``input_offset`` (0 in the paper) is added to every entry of X; a nonzero value breaks the
    column sign symmetry and makes ``row_mean_small`` fail (a negative control for tests).

    Table: one row per gamma (first_layer..depth is the averaging window).
    """
    dev = resolve_device(device)
    d, n = int(width), int(batch_size)
    runs = list(range(n_runs))
    layers = chains.record_layers(depth, burn_in=burn_in)
    rows = []
    for gamma in gammas:
        gamma = float(gamma)
        eid = f"{EXPERIMENT_IDS['lemma4']}.{gamma_tag(gamma)}"
        x = inputs.gaussian_inputs(eid, runs, d, n, DTYPE, dev) + input_offset
        chained = _lemma4_chains(x, gamma, eid, runs, depth, layers)
        rows.append(_lemma4_row(chained, gamma, d, n, n_runs, depth, layers, identity_layers))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# Lemmas 5 and 6


class _RecordingProduct:
    """An ``ExplicitProduct`` that also tracks max |Delta M_ij| of the step (Dan+20 Eq. (37)).

    Delta M = gamma W M + gamma M W^T + gamma^2 W M W^T with M = M(H) of the state the weights
    are applied to; ``max_delta`` holds the running maximum per run.
    """

    def __init__(self, inner: chains.ExplicitProduct, gamma: float):
        self.inner, self.gamma = inner, gamma
        self.max_delta: Tensor | None = None

    def __call__(self, h: Tensor) -> Tensor:
        w = self.inner.next_weights()
        if math.isfinite(self.gamma):
            m = ops.second_moment(h)
            wm = w @ m
            delta = self.gamma * (wm + wm.mT) + self.gamma**2 * wm @ w.mT
            step_max = delta.abs().amax(dim=(-2, -1))
            self.max_delta = (
                step_max if self.max_delta is None else torch.maximum(self.max_delta, step_max)
            )
        return w @ h


class _SignChanges:
    """Observer: 1 where the sign pattern of M(H_l) differs from the previous recorded layer."""

    def __init__(self, m0: Tensor):
        self.previous = torch.sign(m0)

    def __call__(self, h: Tensor) -> Tensor:
        sign = torch.sign(ops.second_moment(h))
        changed = (sign != self.previous).any(dim=-1).any(dim=-1)
        self.previous = sign
        return changed.to(h.dtype)


def _lemma4_chains(x, gamma: float, eid: str, runs: list[int], depth: int, layers) -> dict:
    """Lemma 4's three chains from ``x`` with the same weights W_l: BN (``bn_rms``) with its
    ergodic statistics, centered BN, and BN from the row-centered input (``measure_lemma4``)."""
    d, n = x.shape[-2], x.shape[-1]
    all_layers = chains.record_layers(depth)

    def product(eid: str = eid) -> chains.ExplicitProduct:
        """A fresh weight stream per chain: all three chains see the same W_l."""
        return chains.ExplicitProduct(eid, runs, d, "gaussian", 1.0, DTYPE, x.device)

    m_mean = _LayerMean(ops.second_moment, lambda m: _offdiag(m).abs().mean(-1))
    row_ms = _LayerMean(lambda h: n * h.mean(-1).square().mean(-1), lambda v: v)
    half_plain = _Buffered(lambda h: metrics.soft_rank(h, 0.5))
    half_centered = _Buffered(lambda h: metrics.soft_rank(h, 0.5))
    plain = chains.simulate(
        x,
        chains.Step("bn_rms", gamma=gamma),
        product(),
        depth,
        {
            "offdiag_abs": m_mean,
            "row_ms": row_ms,
            "r": metrics.rank_lower_bound,
            "rank_half": half_plain,
        },
        layers,
        runs,
        desc=eid,
        resumable=True,
    )
    centered = chains.simulate(
        x,
        chains.Step("bn_centered", gamma=gamma),
        product(),
        depth,
        {"r": metrics.rank_lower_bound, "rank_half": half_centered},
        all_layers,
        runs,
        desc=eid + ".centered",
        resumable=True,
    )
    projected = chains.simulate(
        x - x.mean(dim=-1, keepdim=True),
        chains.Step("bn_rms", gamma=gamma),
        product(),
        depth,
        {"r": metrics.rank_lower_bound},
        all_layers,
        runs,
        desc=eid + ".projected",
        resumable=True,
    )
    return dict(plain=plain, centered=centered, projected=projected, m_mean=m_mean,
                row_ms=row_ms, half_plain=half_plain, half_centered=half_centered)  # fmt: skip


def _lemma4_row(
    chained: dict, gamma: float, d: int, n: int, n_runs: int, depth: int, layers,
    identity_layers: int,
) -> dict:  # fmt: skip
    """One gamma's row of ``measure_lemma4`` from its chains (``_lemma4_chains``)."""
    plain, centered, projected = chained["plain"], chained["centered"], chained["projected"]
    m_mean, row_ms = chained["m_mean"], chained["row_ms"]
    half_plain, half_centered = chained["half_plain"], chained["half_centered"]
    window = slice(layers[0] - 1, depth)  # the averaging window within layers 1..depth
    pairs = d * (d - 1) // 2
    rel = (centered.values["r"] - projected.values["r"]).abs() / projected.values["r"]
    rel = rel.amax(dim=0)  # (depth,), layer l at index l - 1
    identity_gap = rel[: min(identity_layers, depth)].max().item()
    apart = (rel > 1e-6).nonzero()
    separation_layer = int(apart[0].item()) + 1 if apart.numel() else math.nan
    values = {
        "plain": {"r": plain.values["r"], "rank_half": half_plain.values.T.cpu()},
        "centered": {
            "r": centered.values["r"][:, window],
            "rank_half": half_centered.values.T.cpu()[:, window],
        },
    }

    # Eq. (31)-(32): off-diagonal ergodic averages
    mbar = _offdiag(m_mean.mean).cpu().double()  # (R, pairs)
    pair_mean = mbar.mean(-1).numpy()
    off_mean, off_se = mean_se(pair_mean)
    cross = (mbar @ mbar.T / pairs).numpy()
    iu = np.triu_indices(n_runs, 1)
    cross_vals = cross[iu]
    cross_mean, cross_se = mean_se(cross_vals)  # distinct run pairs: uncorrelated (doc)
    rms_bias = math.sqrt(max(cross_mean, 0.0))
    mean_abs_erg = mbar.abs().mean().item()
    mean_abs_layer = plain.values["offdiag_abs"].mean().item()
    # row means
    row_mean, row_se = mean_se(row_ms.mean.cpu().numpy())
    # centering comparison, paired by run
    stats = {}
    for key in ("r", "rank_half"):
        a = values["plain"][key].mean(-1).numpy()
        b = values["centered"][key].mean(-1).numpy()
        diff, diff_se = mean_se(b - a)
        stats[key] = (a.mean(), b.mean(), diff, diff_se)
    l_eff = len(layers)
    return dict(
        gamma=gamma,
        d=d,
        n=n,
        n_runs=n_runs,
        first_layer=layers[0],
        layers_averaged=l_eff,
        offdiag_ergodic_mean=off_mean,
        offdiag_ergodic_mean_se=off_se,
        offdiag_cross_run=cross_mean,
        offdiag_cross_run_se=cross_se,
        offdiag_rms_bias=rms_bias,
        mean_abs_ergodic_offdiag=mean_abs_erg,
        mean_abs_layer_offdiag=mean_abs_layer,
        sqrt_l_times_mean_abs_ergodic=math.sqrt(l_eff) * mean_abs_erg,
        n_row_mean_sq=row_mean,
        n_row_mean_sq_se=row_se,
        rms_row_mean_times_sqrt_n=math.sqrt(row_mean),
        r_uncentered=stats["r"][0],
        r_centered=stats["r"][1],
        r_diff=stats["r"][2],
        r_diff_se=stats["r"][3],
        rank_half_uncentered=stats["rank_half"][0],
        rank_half_centered=stats["rank_half"][1],
        rank_half_diff=stats["rank_half"][2],
        rank_half_diff_se=stats["rank_half"][3],
        centering_identity_max_rel=identity_gap,
        float64_separation_layer=separation_layer,
    )


def _rank_one_start(eid: str, runs: list[int], d: int, n: int, device) -> Tensor:
    """H_0 with rows s_i c: c ~ N(0, I_N) rescaled to ||c||^2 = N, signs s_i = +-1 (per run).

    Rows have norm sqrt(N), so H_0 is a BN state (M_ii = 1) of rank one with M = s s^T.
    """
    states = []
    for r in runs:
        g = seeding.generator(eid, r, "rank_one")
        c = torch.randn(n, generator=g, dtype=DTYPE).to(device)
        c = c * math.sqrt(n) / c.norm()
        s = torch.randint(0, 2, (d,), generator=g).to(device).to(DTYPE) * 2 - 1
        states.append(s[:, None] * c[None, :])
    return torch.stack(states)


def measure_lemma5_6(
    *,
    widths: Sequence[int],
    depth: int,
    n_runs: int,
    control_gammas: Sequence[float],
    gammas: Sequence[float],
    device: str = "auto",
) -> pd.DataFrame:
    """Dan+20 Lemma 6 (rank one is absorbing, Eq. (33), (36)-(37)) and Lemma 5 (Eq. (30)).

    Weights are uniform[-sqrt 3, sqrt 3] (``ExplicitProduct`` law "uniform", variance 1), the
    bounded law of the lemmas, B = sqrt 3. Width d = batch size N.

    Lemma 6: from a rank-one BN state H_0 (rows +-c, ||c||^2 = N, M_0 = s s^T), run the chain
    Eq. (1) for ``depth`` layers at the proof's gamma = 1/(8 B d) and at the statement's
    gamma = 1/(8 d) (a typo: the proof needs 1/(8 B d); both are below 1/(B d), which already
    forbids any sign change since a_i = s_i + gamma (W s)_i with |(W s)_i| <= B d, our
    derivation). Claims (``judge_lemma5_6``): max_l |M_l - M_0| and max_l ||M_l,ij| - 1| are 0
    within ``float_tolerance``; with ``control_gammas`` (far above the condition) M must change
    (max |M_l - M_0| >= 1: a sign flip changes an entry by 2). The lemma is exact-arithmetic:
    in float64, round-off leaves the rank-one set, which is repelling (BN amplifies the
    small singular values, the mechanism of Lemma 5), so the maxima are taken over the states
    that are still numerically rank one (``metrics.numerical_rank`` = 1); the table reports
    the fraction of such states and the first escape layer. A case with no rank-one state
    gives NaN, which fails. Erratum check: the proof's bound
    |Delta M_ij| <= 4 gamma B (Eq. (37)) misses a factor d; the correct bound
    2 gamma B d + gamma^2 B^2 d^2 (|[W M]_ij| <= B d for |M_ij| <= 1) is what holds, and it is
    still <= 1/2 at gamma = 1/(8 B d), so the proof's conclusion stands.

    Lemma 5: from Gaussian full-rank X (d = N), chains at gamma = 1/(8 B d) and ``gammas``:
    the float64 numerical rank (``metrics.numerical_rank``, the paper's footnote-2 rule) stays
    >= 2 and r(H_l) > 1 at every layer 1..depth. (In exact arithmetic the rank of a linear
    chain never changes: each step multiplies by the a.s. invertible I + gamma W_l and a positive
    diagonal; so this checks that no float64 collapse happens.)

    Table: one row per (lemma, case, d, gamma).
    """
    dev = resolve_device(device)
    b = math.sqrt(3.0)
    runs = list(range(n_runs))
    rows = []
    for d in widths:
        d = int(d)
        cases = [("proof", 1.0 / (8 * b * d)), ("statement", 1.0 / (8 * d))]
        cases += [("control", float(g)) for g in control_gammas]
        for case, gamma in cases:
            rows.append(_lemma6_row(case, gamma, d, runs, depth, dev))
        for case, gamma in [("proof", 1.0 / (8 * b * d))] + [("chain", float(g)) for g in gammas]:
            rows.append(_lemma5_row(case, gamma, d, runs, depth, dev))
    return pd.DataFrame(rows)


def _case_keys(lemma: str, case: str, d: int, gamma: float, n_runs: int, depth: int) -> dict:
    """The leading columns of a ``measure_lemma5_6`` row (B = sqrt 3)."""
    b = math.sqrt(3.0)
    return dict(lemma=lemma, case=case, d=d, gamma=gamma, gamma_times_b_d=gamma * b * d,
                n_runs=n_runs, depth=depth)  # fmt: skip


def _lemma6_row(case: str, gamma: float, d: int, runs: list[int], depth: int, dev) -> dict:
    """One (case, d, gamma) row of Lemma 6 for ``measure_lemma5_6``: a chain from a rank-one
    start, its deviations from the start while it stays rank one, and the bounds on Delta M."""
    b = math.sqrt(3.0)
    eid = f"{EXPERIMENT_IDS['lemma5_6']}.lemma6.d{d}.{gamma_tag(gamma)}"
    h0 = _rank_one_start(eid, runs, d, d, dev)
    rank_obs = _Buffered(metrics.numerical_rank)
    m0 = ops.second_moment(h0)
    product = _RecordingProduct(
        chains.ExplicitProduct(eid, runs, d, "uniform", 1.0, DTYPE, dev), gamma
    )
    trace = chains.simulate(
        h0,
        chains.Step("bn_rms", gamma=gamma),
        product,
        depth,
        {
            "dev_start": lambda h, m0=m0: (ops.second_moment(h) - m0).abs().amax(dim=(-2, -1)),
            "dev_unit": lambda h: (ops.second_moment(h).abs() - 1).abs().amax(dim=(-2, -1)),
            "sign_change": _SignChanges(m0),
            "rank": rank_obs,
        },
        runs=runs,
        desc=eid,
    )
    v = trace.values
    rank_one = rank_obs.values.T.cpu() == 1  # (R, depth): numerically rank one
    dev_start = _masked_max(v["dev_start"], rank_one)
    dev_unit = _masked_max(v["dev_unit"], rank_one)
    escaped = (~rank_one).any(dim=1)
    first = (~rank_one).to(torch.int8).argmax(dim=1) + 1  # layer of the first escape
    escape_layer = first[escaped].min().item() if escaped.any() else math.nan
    max_delta = product.max_delta.max().item() if product.max_delta is not None else 0
    correct_bound = 2 * gamma * b * d + (gamma * b * d) ** 2
    printed_bound = 4 * gamma * b
    return dict(
        **_case_keys("lemma6", case, d, gamma, len(runs), depth),
        rank_one_fraction=rank_one.to(DTYPE).mean().item(),
        escape_layer=escape_layer,
        max_dev_from_start=dev_start,
        max_dev_from_unit=dev_unit,
        max_dev_from_start_all_layers=v["dev_start"].max().item(),
        sign_change_fraction=v["sign_change"].mean().item(),
        max_abs_delta_m=max_delta,
        printed_bound_4_gamma_b=printed_bound,
        correct_bound=correct_bound,
        min_numerical_rank=rank_obs.values.min().item(),
        max_numerical_rank=rank_obs.values.max().item(),
        min_r=math.nan,
    )


def _lemma5_row(case: str, gamma: float, d: int, runs: list[int], depth: int, dev) -> dict:
    """One (case, d, gamma) row of Lemma 5 for ``measure_lemma5_6``: the numerical rank and
    r(H) of a chain from full-rank Gaussian X."""
    eid = f"{EXPERIMENT_IDS['lemma5_6']}.lemma5.d{d}.{gamma_tag(gamma)}"
    x = inputs.gaussian_inputs(eid, runs, d, d, DTYPE, dev)
    rank_obs = _Buffered(metrics.numerical_rank)
    trace = chains.simulate(
        x,
        chains.Step("bn_rms", gamma=gamma),
        chains.ExplicitProduct(eid, runs, d, "uniform", 1.0, DTYPE, dev),
        depth,
        {"rank": rank_obs, "r": metrics.rank_lower_bound},
        runs=runs,
        desc=eid,
    )
    rank, r = rank_obs.values, trace.values["r"]
    return dict(
        **_case_keys("lemma5", case, d, gamma, len(runs), depth),
        min_numerical_rank=rank.min().item(),
        max_numerical_rank=rank.max().item(),
        min_r=r.min().item(),
    )


# ---------------------------------------------------------------------------------------------
# Lemma 7


def _order_ratio(p: float, g: Sequence[float]) -> float:
    """(g0^p - g2^p) / (g1^p - g2^p): the ratio of remainder differences for c gamma^p."""
    if abs(p) < 1e-9:
        return math.log(g[0] / g[2]) / math.log(g[1] / g[2])
    return (g[0] ** p - g[2] ** p) / (g[1] ** p - g[2] ** p)


def _solve_order(ratio: float, g: Sequence[float], lo: float = -4.0, hi: float = 8.0) -> float:
    """The p with ``_order_ratio(p, g) = ratio`` (increasing in p), by bisection; NaN if none."""
    if not math.isfinite(ratio) or not _order_ratio(lo, g) <= ratio <= _order_ratio(hi, g):
        return math.nan
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _order_ratio(mid, g) < ratio else (lo, mid)
    return (lo + hi) / 2


def measure_lemma7(
    *,
    widths: Sequence[int],
    gammas: Sequence[float],
    laws: Sequence[str],
    n_pairs: int,
    device: str = "auto",
) -> pd.DataFrame:
    """Dan+20 Lemma 7, Eq. (43): (E_W ||M_+||_F^2 - ||M||_F^2) / gamma^2 = delta_F(M) + O(gamma).

    For each width d, one fixed BN state H = bn_rms(X) (Gaussian X, d = N; M = M(H) has unit
    diagonal) and one layer H_+ = bn_rms(H + gamma W H) (Eq. (42)), M_+ = M(H_+). W is drawn
    ``n_pairs`` times per (d, law) in antithetic pairs (W, -W); the pair average
    y = (||M_+(W)||^2 + ||M_+(-W)||^2) / 2 - ||M||^2 cancels the O(gamma) term that is linear
    in W, and the estimate is mean(y) / gamma^2 with standard error sd(y) / (gamma^2 sqrt n).
    The same W serve every gamma (common random numbers), so differences between gammas are
    precise.

    Symmetric laws make g(gamma) = E_W ||M_+||^2 even in gamma (W and -W have one law), so the
    remainder is O(gamma^2), sharper than the stated O(gamma) (our derivation). Claims per
    (d, law), by ``judge_lemma7``:

    - ``delta_f``: at the smallest gamma, the normal interval of MC lies within the lemma's
      O(gamma) remainder of delta_F (``metrics.frobenius_drift``): c gamma_min, with c the change
      of MC per unit gamma between the largest and the smallest gamma; the note reports
      |c2| gamma_min^2, with c2 = (MC(gamma_max) - MC(gamma_min)) / (gamma_max^2 - gamma_min^2)
      the fitted gamma^2 remainder coefficient.
    - ``remainder_order``: the order p of the remainder c gamma^p, from g0 > g1 > g2 (the
      largest, second largest and smallest gamma) by solving (g0^p - g2^p) / (g1^p - g2^p) =
      (MC(g0) - MC(g2)) / (MC(g1) - MC(g2)); must be >= ``min_order`` (1: the lemma's
      O(gamma)); ~2 is expected. Its SE is the delta-method SE of the ratio over pairs.

    Table: one row per (d, law, gamma), gamma descending within (d, law).
    """
    dev = resolve_device(device)
    gammas = sorted((float(g) for g in gammas), reverse=True)
    if len(gammas) < 3:
        raise ValueError(f"lemma7 needs at least 3 gammas for the remainder order, got {gammas}")
    rows = []
    for d in widths:
        d = int(d)
        eid = f"{EXPERIMENT_IDS['lemma7']}.d{d}"
        h = ops.bn_rms(inputs.gaussian_inputs(eid, [0], d, d, DTYPE, dev))[0]
        f0 = metrics.frobenius_m_squared(h)
        delta_f = metrics.frobenius_drift(h).item()
        for law in laws:
            y = _antithetic_differences(h, f0, gammas, n_pairs, f"{eid}.{law}", law)
            est = y.mean(0)
            se = y.std(0, ddof=1) / math.sqrt(n_pairs)
            order, order_se, coef = _remainder_order(y, gammas)
            for k, gamma in enumerate(gammas):
                rows.append(
                    dict(
                        d=d,
                        law=law,
                        gamma=gamma,
                        n_pairs=n_pairs,
                        frobenius_m_squared=f0.item(),
                        delta_f=delta_f,
                        mc_estimate=est[k],
                        mc_se=se[k],
                        gap=est[k] - delta_f,
                        gap_over_se=(est[k] - delta_f) / se[k],
                        remainder_coef_gamma2=coef,
                        remainder_order=order,
                        remainder_order_se=order_se,
                    )
                )
    return pd.DataFrame(rows)


def _antithetic_differences(
    h: Tensor, f0: Tensor, gammas: list[float], n_pairs: int, stream: str, law: str
) -> np.ndarray:
    """(n_pairs, gammas): ((||M(BN(H + g W H))||_F^2 + ||M(BN(H - g W H))||_F^2) / 2 -
    ||M(H)||_F^2) / g^2 for antithetic pairs (W, -W), W drawn in chunks from ``stream``; the
    same W for every gamma (common random numbers)."""
    d = h.shape[0]
    y = torch.empty(n_pairs, len(gammas), dtype=DTYPE, device=h.device)
    for chunk, start in enumerate(range(0, n_pairs, PAIRS_PER_CHUNK)):
        count = min(PAIRS_PER_CHUNK, n_pairs - start)
        g = seeding.generator(stream, chunk, "weights")
        w = chains.unit_variance_draws(
            g, (PAIRS_PER_CHUNK, d, d), law, DTYPE, h.device, draw_dtype=DTYPE
        )
        wh = w[:count] @ h
        for k, gamma in enumerate(gammas):
            plus = metrics.frobenius_m_squared(ops.bn_rms(h + gamma * wh))
            minus = metrics.frobenius_m_squared(ops.bn_rms(h - gamma * wh))
            y[start : start + count, k] = ((plus + minus) / 2 - f0) / gamma**2
    return y.cpu().numpy()


def _remainder_order(y: np.ndarray, gammas: list[float]) -> tuple[float, float, float]:
    """The order of Eq. (43)'s remainder and its SE from common-random-number differences of
    the largest two gammas against the smallest, and its gamma^2 coefficient."""
    n_pairs = y.shape[0]
    g3 = (gammas[0], gammas[1], gammas[-1])
    i0, i1, i2 = 0, 1, len(gammas) - 1
    e1, e2 = y[:, i0] - y[:, i2], y[:, i1] - y[:, i2]
    ratio = e1.mean() / e2.mean()
    ratio_se = (e1 - ratio * e2).std(ddof=1) / math.sqrt(n_pairs) / abs(e2.mean())
    order = _solve_order(ratio, g3)
    if math.isfinite(order):
        step = 1e-4
        slope = (_order_ratio(order + step, g3) - _order_ratio(order - step, g3)) / (2 * step)
        order_se = ratio_se / slope
    else:
        order_se = math.nan
    coef = e1.mean() / (gammas[i0] ** 2 - gammas[i2] ** 2)
    return order, order_se, coef
