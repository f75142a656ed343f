"""Claims of Thesis Figs. 6.2, 6.3 (Thm. 6.5), C.9 and C.10: gradient norm vs depth at init.

Slopes: for each run index r, the OLS slope of ln ||grad||_F against the depth L over the depths
inside the fit window (every (L, r) is an independent network), then the mean and standard
error over runs. An explosion claim tests the lower confidence limit mean - z SE against the
threshold; a flatness claim tests |mean slope| against the flatness threshold.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...claims import Claim, evaluate
from ...stats import mean_se, per_run_slopes

__all__ = ["fig6_2_claims", "fig6_3_claims", "fig_c9_claims", "fig_c10_claims"]


def _slopes(table: pd.DataFrame, hue: str, level: str, window) -> tuple[float, float, int]:
    """Mean and SE over runs of the per-run slope of log_grad vs depth in ``window``."""
    rows = table[table[hue] == level]
    lo, hi = window
    inside = sorted(d for d in rows["depth"].unique() if lo <= d <= hi)
    if len(inside) < 2:
        raise ValueError(f"fit window {list(window)} holds depths {inside}: need at least 2")
    mean, se = mean_se(per_run_slopes(rows, "depth", "log_grad", (lo, hi)))
    return mean, se, len(inside)


def _window_text(table: pd.DataFrame, window) -> str:
    depths = sorted(d for d in table["depth"].unique() if window[0] <= d <= window[1])
    return f"L in {{{', '.join(str(int(d)) for d in depths)}}}"


def _flat(cid, table, hue, level, window, flat_slope, source, what) -> Claim:
    mean, se, _ = _slopes(table, hue, level, window)
    return evaluate(
        id=cid,
        statement=(
            f"{what}: ln ||grad||_F does not grow with depth: |mean per-run slope| over "
            f"{_window_text(table, window)} <= {flat_slope} per layer"
        ),
        source=source,
        measured=mean,
        measured_se=se,
        relation="within",
        bound=0.0,
        tolerance=flat_slope,
        note="Tolerance: the flatness threshold of config gradients.depth_claims (the explosion "
        "threshold is at least 2.5 times larger).",
    )


def _explodes(
    cid, table, hue, level, window, min_slope, z, source, what, note="", details=None
) -> Claim:
    mean, se, _ = _slopes(table, hue, level, window)
    return evaluate(
        id=cid,
        statement=(
            f"{what}: ln ||grad||_F grows linearly in depth: the lower limit mean - {z} SE of "
            f"the per-run slope over {_window_text(table, window)} is >= {min_slope} per layer"
        ),
        source=source,
        measured=mean - z * se,
        measured_se=se,
        relation=">=",
        bound=min_slope,
        note=f"Mean per-run slope {mean:.5f} +- {se:.5f} (SE over runs). {note}".strip(),
        details={"slope": mean, "slope_se": se, **(details or {})},
    )


def _gap_at_last_depth(table, hue, high, low) -> tuple[float, float, int]:
    """Mean and SE over runs of the paired difference high - low at the largest depth."""
    depth = int(table["depth"].max())
    last = table[table["depth"] == depth].pivot(index="run", columns=hue, values="log_grad")
    return (*mean_se((last[high] - last[low]).to_numpy()), depth)


def fig6_3_claims(
    table: pd.DataFrame,
    window: list[int],
    flat_slope: float,
    min_slope: float,
    z: float,
    min_difference: float,
    batch_size: int,
) -> list[Claim]:
    """Thm. 6.5 (orthogonal: bounded) vs Yang et al. 2019 (Gaussian: exponential), Fig. 6.3.

    Args:
        table: columns init (orthogonal | Gaussian), depth, run, log_grad (of fc_1).
        window: [first, last] depth of the slope fits.
        flat_slope: orthogonal |slope| bound per layer; min_slope: Gaussian explosion threshold.
        z: standard errors of the lower confidence limit.
        min_difference: Gaussian minus orthogonal ln-grad at the largest depth must exceed it.
        batch_size: B = n, for the recorded mean-field candidate rates.
    """
    source = "Thesis Fig. 6.3, Thm. 6.5 (Eq. (6.10)), Eq. (6.2); ICLR 2024 Fig. 2"
    diff, diff_se, depth = _gap_at_last_depth(table, "init", "Gaussian", "orthogonal")
    b = batch_size
    candidates = {
        "half_log_B_over_B_minus_2": 0.5 * math.log(b / (b - 2)),
        "half_log_B_minus_1_over_B_minus_2": 0.5 * math.log((b - 1) / (b - 2)),
    }
    explodes = _explodes(
        "gradients.fig6_3.gaussian_explodes",
        table,
        "init",
        "Gaussian",
        window,
        min_slope,
        z,
        "Yang et al. 2019 Thm. 3.9 as cited in Thesis Sec. 6.1 and Fig. 6.3",
        "Gaussian (xavier_normal) weights",
        note=(
            "Not compared with a theory rate: the mean-field (d -> infinity, B fixed) rate of "
            "uncentered linear BN derived under gradient independence is 0.5 ln((B-1)/(B-2)) = "
            f"{candidates['half_log_B_minus_1_over_B_minus_2']:.5f}; the candidate "
            f"0.5 ln(B/(B-2)) = {candidates['half_log_B_over_B_minus_2']:.5f} drops the "
            "projection in the BN Jacobian; at d = n the Gram's Wishart fluctuations are O(1), "
            "outside the mean-field regime (config/README.md, gradients.depth_sweep)."
        ),
        details={"candidate_rates": candidates},
    )
    return [
        _flat(
            "gradients.fig6_3.orthogonal_flat",
            table,
            "init",
            "orthogonal",
            window,
            flat_slope,
            source,
            "orthogonal weights",
        ),
        explodes,
        evaluate(
            id="gradients.fig6_3.gaussian_above_orthogonal",
            statement=(
                f"at the largest depth L = {depth}, ln ||grad||_F of the Gaussian network "
                f"exceeds the orthogonal one by more than {min_difference} (paired by run)"
            ),
            source=source,
            measured=diff,
            measured_se=diff_se,
            relation=">=",
            bound=min_difference,
            note="Threshold of config gradients.depth_claims (set for L = 500).",
        ),
    ]


def fig6_2_claims(
    table: pd.DataFrame,
    window: list[int],
    flat_slope: float,
    min_slope: float,
    z: float,
    min_difference: float,
    distinct: int,
    repeats: int,
) -> list[Claim]:
    """Remark 6.6: a degenerate batch (psi(X_0) = inf) explodes, a full-rank one does not.

    Args:
        table: columns batch (non-degenerate | degenerate), depth, run, log_grad (of fc_1).
        distinct, repeats: the degenerate pattern (for the statements).
        Other arguments as ``fig6_3_claims``.
    """
    source = "Thesis Fig. 6.2 and Remark 6.6"
    what = f"degenerate batch ({distinct} images x {repeats} repeats, rank {distinct})"
    diff, diff_se, depth = _gap_at_last_depth(table, "batch", "degenerate", "non-degenerate")
    return [
        _explodes(
            "gradients.fig6_2.degenerate_explodes",
            table,
            "batch",
            "degenerate",
            window,
            min_slope,
            z,
            source,
            what,
        ),
        _flat(
            "gradients.fig6_2.nondegenerate_flat",
            table,
            "batch",
            "non-degenerate",
            window,
            flat_slope,
            source,
            "non-degenerate batch",
        ),
        evaluate(
            id="gradients.fig6_2.difference",
            statement=(
                f"at the largest depth L = {depth}, ln ||grad||_F of the {what} exceeds the "
                f"non-degenerate one by more than {min_difference} (paired by run)"
            ),
            source=source,
            measured=diff,
            measured_se=diff_se,
            relation=">=",
            bound=min_difference,
            note="Threshold of config gradients.depth_claims (set for L = 500).",
        ),
    ]


def fig_c9_claims(
    table: pd.DataFrame,
    window: list[int],
    flat_slope: float,
    min_slope: float,
    z: float,
    gap_floor: float,
    gap_decay: float,
) -> list[Claim]:
    """Fig. C.9: without gain sin and tanh explode once psi has settled; identity does not.

    Args:
        table: columns activation (identity | sin | tanh), depth, run, log_grad (of fc_1),
            gap_last (psi of the fc_{L-1} output).
        window: depths of the slope fits and of the mean psi (after psi stabilizes).
        flat_slope: identity |slope| bound (the negative control of the explosion claims).
        min_slope: explosion threshold per layer for sin and tanh (config: 0.05).
        gap_floor: the mean psi_last over the window must stay >= this for sin and tanh.
        gap_decay: identity psi_last at the largest depth <= gap_decay x its value at the
            smallest depth.
    """
    source = "Thesis Fig. C.9 and App. C.7"
    claims = []
    for act in ("sin", "tanh"):
        claims.append(
            _explodes(
                f"gradients.fig_c9.{act}_explodes",
                table,
                "activation",
                act,
                window,
                min_slope,
                z,
                source,
                f"orthogonal {act} network without gain",
            )
        )
    claims.append(
        _flat(
            "gradients.fig_c9.identity_flat",
            table,
            "activation",
            "identity",
            window,
            flat_slope,
            source,
            "orthogonal identity network (control)",
        )
    )
    lo, hi = window
    for act in ("sin", "tanh"):
        rows = table[(table["activation"] == act) & table["depth"].between(lo, hi)]
        gap_mean, gap_se = mean_se(rows.groupby("run")["gap_last"].mean(skipna=False).to_numpy())
        claims.append(
            evaluate(
                id=f"gradients.fig_c9.{act}_gap_large",
                statement=(
                    f"{act}: psi of the fc_(L-1) output stays large: its mean over "
                    f"{_window_text(table, window)} is >= {gap_floor}"
                ),
                source=source,
                measured=gap_mean,
                measured_se=gap_se,
                relation=">=",
                bound=gap_floor,
            )
        )
    ident = table[table["activation"] == "identity"]
    first, last = int(ident["depth"].min()), int(ident["depth"].max())
    start = ident[ident["depth"] == first]["gap_last"].mean(skipna=False)
    end_mean, end_se = mean_se(ident[ident["depth"] == last]["gap_last"].to_numpy())
    claims.append(
        evaluate(
            id="gradients.fig_c9.identity_gap_decays",
            statement=(
                f"identity: psi of the fc_(L-1) output decays with depth: its mean at L = {last} "
                f"is <= {gap_decay} x its mean at L = {first} ({start:.3g})"
            ),
            source="Thesis Fig. C.9 (right) and Thm. 6.1",
            measured=end_mean,
            measured_se=end_se,
            relation="<=",
            bound=float(gap_decay * start),
        )
    )
    return claims


def fig_c10_claims(table: pd.DataFrame, window: list[int], flat_slope: float) -> list[Claim]:
    """Fig. C.10: mean reduction does not change the (absent) explosion of fc_0's gradient.

    Args:
        table: columns mean_reduction (with | without), depth, run, log_grad (of fc_0).
        window: depths of the slope fits.
        flat_slope: both |slopes| and |slope difference| must stay below it.
    """
    source = "Thesis Fig. C.10 and App. C.7"
    with_, with_se, _ = _slopes(table, "mean_reduction", "with", window)
    without, without_se, _ = _slopes(table, "mean_reduction", "without", window)
    lo, hi = window
    levels = table[table["depth"].between(lo, hi)].groupby("mean_reduction")["log_grad"].mean()
    offset = float(levels["with"] - levels["without"])
    return [
        _flat(
            f"gradients.fig_c10.{name}_flat",
            table,
            "mean_reduction",
            name,
            window,
            flat_slope,
            source,
            f"orthogonal identity network, {name} mean reduction",
        )
        for name in ("with", "without")
    ] + [
        evaluate(
            id="gradients.fig_c10.slopes_agree",
            statement=(
                "with and without mean reduction, the slopes of ln ||grad fc_0||_F vs depth over "
                f"{_window_text(table, window)} agree within {flat_slope} per layer"
            ),
            source=source,
            measured=with_ - without,
            measured_se=float(np.hypot(with_se, without_se)),
            relation="within",
            bound=0.0,
            tolerance=flat_slope,
            note=(
                f"The levels differ by a constant (BN factor sqrt(n) vs 1): mean offset "
                f"{offset:.3f} over the window. Tolerance: the flatness threshold, smaller than "
                "any explosion rate of the other figures."
            ),
            details={"level_offset": offset},
        )
    ]
