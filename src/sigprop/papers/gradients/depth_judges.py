"""Claims of Thesis Figs. 6.2, 6.3 (Thm. 6.5), C.9 and C.10: gradient norm vs depth at init.

Slopes: for each run index r, the OLS slope of ln ||grad||_F against the depth L over the depths
inside the fit window (every (L, r) is an independent network); the claim's interval is the
Student-t interval of the mean over runs. An explosion claim holds when the whole interval lies
above the threshold; a flatness claim when it lies inside +- the flatness threshold (a declared
margin, config ``gradients.depth_claims``).
"""

from __future__ import annotations

import math

import pandas as pd

from ...engine import stats
from ...engine.stats import per_run_slopes
from ...verdicts.claims import Claim, Record, judge_records
from .verdicts import per_run, welch

__all__ = ["fig6_2_claims", "fig6_3_claims", "fig_c9_claims", "fig_c10_claims"]


def _run_slopes(table: pd.DataFrame, hue: str, level: str, window):
    """Per-run slopes of log_grad vs depth in ``window`` for ``table[hue] == level``."""
    rows = table[table[hue] == level]
    lo, hi = window
    inside = sorted(d for d in rows["depth"].unique() if lo <= d <= hi)
    if len(inside) < 2:
        raise ValueError(f"fit window {list(window)} holds depths {inside}: need at least 2")
    return per_run_slopes(rows, "depth", "log_grad", (lo, hi))


def _window_text(table: pd.DataFrame, window) -> str:
    depths = sorted(d for d in table["depth"].unique() if window[0] <= d <= window[1])
    return f"L in {{{', '.join(str(int(d)) for d in depths)}}}"


FLAT_RULE = (
    " read as |slope| <= {flat_slope} per layer (config gradients.depth_claims.flat_slope): at "
    "most e^({flat_slope} x 1000) ~ {flat_per_1000:.1f}-fold over the seed's largest depth 1000; "
    "our reading, the seed prints no slope"
)
EXPLODES_RULE = (
    " read as a slope of at least {min_slope} per layer (config gradients.depth_claims): "
    "e^({min_slope} x 1000) ~ {explosion_per_1000:.3g}-fold over the seed's largest depth 1000, "
    "{explosion_over_flat:g} x the flatness margin; our reading, the seed prints no rate"
)


def _slope_numbers(flat_slope: float, min_slope: float | None = None) -> dict:
    """The growth factors the flatness and explosion thresholds stand for (their reasons)."""
    c = {"flat_per_1000": math.exp(1000 * flat_slope)}
    if min_slope is not None:
        c["explosion_per_1000"] = math.exp(1000 * min_slope)
        c["explosion_over_flat"] = min_slope / flat_slope
    return c


def _flat(cid: str, quantity: str, source: str, what: str, quote: str) -> Record:
    return Record(
        cid,
        f"{what}: ln ||grad||_F does not grow with depth: the mean per-run slope over "
        "{window_text} (t over runs) lies within +-{flat_slope} per layer",
        source,
        "paper",
        quantity,
        "within",
        0.0,
        "flat_slope",
        note="Margin: the flatness threshold of config gradients.depth_claims (the explosion "
        "threshold is at least 2.5 times larger).",
        tolerance_reason="wording: " + quote + FLAT_RULE,
    )


def _explodes(cid: str, quantity: str, source: str, what: str, quote: str, note="") -> Record:
    return Record(
        cid,
        f"{what}: ln ||grad||_F grows linearly in depth: the mean per-run slope over "
        "{window_text} (t over runs) is >= {min_slope} per layer",
        source,
        "paper",
        quantity,
        ">=",
        "min_slope",
        note=note,
        tolerance_reason="wording: " + quote + EXPLODES_RULE,
    )


def _difference(cid: str, what: str, source: str, quote: str) -> Record:
    return Record(
        cid,
        "at the largest depth L = {depth}, ln ||grad||_F of the " + what + " exceeds the "
        "{other} one by more than {min_difference} (paired by run, t over runs)",
        source,
        "paper",
        "difference",
        ">=",
        "min_difference",
        note="Threshold of config gradients.depth_claims (set for L = 500).",
        tolerance_reason="wording: " + quote + " read as a gap of at least {min_difference} in ln "
        "||grad||_F (e^{min_difference} ~ {difference_factor:.3g}-fold) at the largest depth "
        "(config gradients.depth_claims); our reading, the seed prints no value",
    )


def _context(table: pd.DataFrame, hue: str, high: str, low: str, window, **settings) -> dict:
    """Slopes of ``high`` and ``low`` and their paired difference at the largest depth."""
    depth = int(table["depth"].max())
    last = table[table["depth"] == depth].pivot(index="run", columns=hue, values="log_grad")
    return {
        **settings,
        **_slope_numbers(settings["flat_slope"], settings["min_slope"]),
        "difference_factor": math.exp(settings["min_difference"]),
        "window_text": _window_text(table, window),
        "depth": depth,
        "other": low,
        "high": per_run(_run_slopes(table, hue, high, window)),
        "low": per_run(_run_slopes(table, hue, low, window)),
        "difference": per_run((last[high] - last[low]).to_numpy()),
    }


_SRC_63 = "Thesis Fig. 6.3, Thm. 6.5 (Eq. (6.10)), Eq. (6.2); ICLR 2024 Fig. 2"
_MEAN_FIELD_NOTE = (
    "Not compared with a theory rate: the mean-field (d -> infinity, B fixed) rate of uncentered "
    "linear BN derived under gradient independence is 0.5 ln((B-1)/(B-2)) = {rate_b1:.5f}; the "
    "candidate 0.5 ln(B/(B-2)) = {rate_b:.5f} drops the projection in the BN Jacobian; at d = n "
    "the Gram's Wishart fluctuations are O(1), outside the mean-field regime (config/README.md, "
    "gradients.depth_sweep)."
)
_Q63_FLAT = "'for orthogonal weights (blue) gradients remain bounded by a constant' (Fig. 6.3)"
_Q63_EXPLODES = "'For Gaussian weights (orange) the gradient-norm grows at an exponential rate' "
FIG6_3 = (
    _flat("orthogonal_flat", "low", _SRC_63, "orthogonal weights", _Q63_FLAT),
    _explodes(
        "gaussian_explodes",
        "high",
        "Yang et al. 2019 Thm. 3.9 as cited in Thesis Sec. 6.1 and Fig. 6.3",
        "Gaussian (xavier_normal) weights",
        _Q63_EXPLODES + "(Fig. 6.3)",
        note=_MEAN_FIELD_NOTE,
    ),
    _difference(
        "gaussian_above_orthogonal",
        "Gaussian network",
        _SRC_63,
        _Q63_EXPLODES + "vs " + _Q63_FLAT,
    ),
)


def fig6_3_claims(
    table: pd.DataFrame,
    window: list[int],
    flat_slope: float,
    min_slope: float,
    min_difference: float,
    batch_size: int,
) -> list[Claim]:
    """Thm. 6.5 (orthogonal: bounded) vs Yang et al. 2019 (Gaussian: exponential), Fig. 6.3.

    Args:
        table: columns init (orthogonal | Gaussian), depth, run, log_grad (of fc_1).
        window: [first, last] depth of the slope fits.
        flat_slope: orthogonal |slope| margin per layer; min_slope: Gaussian explosion threshold.
        min_difference: Gaussian minus orthogonal ln-grad at the largest depth must exceed it.
        batch_size: B = n, for the recorded mean-field candidate rates.
    """
    b = batch_size
    c = _context(table, "init", "Gaussian", "orthogonal", window, flat_slope=flat_slope,
                 min_slope=min_slope, min_difference=min_difference)  # fmt: skip
    c["rate_b"], c["rate_b1"] = 0.5 * math.log(b / (b - 2)), 0.5 * math.log((b - 1) / (b - 2))
    c["details"] = {"gaussian_explodes": {"candidate_rates": {
        "half_log_B_over_B_minus_2": c["rate_b"],
        "half_log_B_minus_1_over_B_minus_2": c["rate_b1"]}}}  # fmt: skip
    return judge_records(FIG6_3, c, prefix="gradients.fig6_3.")


_SRC_62 = "Thesis Fig. 6.2 and Remark 6.6"
_DEGENERATE = "degenerate batch ({distinct} images x {repeats} repeats, rank {distinct})"
_Q62 = "'While gradients explode for degenerate inputs, there is no explosion for non-degenerate "
FIG6_2 = (
    _explodes("degenerate_explodes", "high", _SRC_62, _DEGENERATE, _Q62 + "inputs' (Fig. 6.2)"),
    _flat(
        "nondegenerate_flat", "low", _SRC_62, "non-degenerate batch", _Q62 + "inputs' (Fig. 6.2)"
    ),
    _difference("difference", _DEGENERATE, _SRC_62, _Q62 + "inputs' (Fig. 6.2)"),
)


def fig6_2_claims(
    table: pd.DataFrame,
    window: list[int],
    flat_slope: float,
    min_slope: float,
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
    c = _context(table, "batch", "degenerate", "non-degenerate", window, flat_slope=flat_slope,
                 min_slope=min_slope, min_difference=min_difference, distinct=distinct,
                 repeats=repeats)  # fmt: skip
    return judge_records(FIG6_2, c, prefix="gradients.fig6_2.")


_SRC_C9 = "Thesis Fig. C.9 and App. C.7"
_QC9 = "'After stabilizing the isometry gap, the non-linearities have an exponential gradient "
_QC9 += "explosion' (Fig. C.9)"
FIG_C9 = (
    *(
        _explodes(
            f"{a}_explodes", f"slope_{a}", _SRC_C9, f"orthogonal {a} network without gain", _QC9
        )
        for a in ("sin", "tanh")
    ),  # fmt: skip
    _flat(
        "identity_flat",
        "slope_identity",
        _SRC_C9,
        "orthogonal identity network (control)",
        "'the identity activation achieves perfect orthogonality in order to prove that the "
        "gradients remain bounded in depth' (app. C.7, Fig. C.9)",
    ),
    *(
        Record(
            f"{a}_gap_large",
            f"{a}: psi of the fc_(L-1) output stays large: its mean over "
            "{window_text} (per run, t over runs) is >= {gap_floor}",
            _SRC_C9,
            "paper",
            f"gap_{a}",
            ">=",
            "gap_floor",
            tolerance_reason="wording: 'non-linearities maintain a large isometry gap' (app. "
            "C.7, Fig. C.9) read as a mean psi of at least {gap_floor} over the window (config "
            "gap_floor): the arithmetic mean of the Gram's eigenvalues at least e^{gap_floor} ~ "
            "{gap_floor_factor:.2f} x their geometric mean; our reading of 'large'",
        )
        for a in ("sin", "tanh")
    ),  # fmt: skip
    Record(
        "identity_gap_decays",
        "identity: psi of the fc_(L-1) output decays with depth: its mean at L = {last} (t over "
        "runs) is <= {gap_decay} x its mean at L = {first} ({start:.3g})",
        "Thesis Fig. C.9 (right) and Thm. 6.1",
        "paper",
        "gap_end",
        "<=",
        lambda c: c["gap_decay"] * c["start"],
        tolerance_reason="wording: 'isometry gap of representations vanishes at an exponential "
        "rate' (Fig. 6.1 caption, Thm. 6.1) read for the identity curve of Fig. C.9 as psi at the "
        "largest depth at most {gap_decay} x its value at the smallest (config gap_decay); our "
        "reading, Fig. C.9 prints no value",
    ),
)


def fig_c9_claims(
    table: pd.DataFrame,
    window: list[int],
    flat_slope: float,
    min_slope: float,
    gap_floor: float,
    gap_decay: float,
) -> list[Claim]:
    """Fig. C.9: without gain sin and tanh explode once psi has settled; identity does not.

    Args:
        table: columns activation (identity | sin | tanh), depth, run, log_grad (of fc_1),
            gap_last (psi of the fc_{L-1} output).
        window: depths of the slope fits and of the mean psi (after psi stabilizes).
        flat_slope: identity |slope| margin (the negative control of the explosion claims).
        min_slope: explosion threshold per layer for sin and tanh (config: 0.05).
        gap_floor: the mean psi_last over the window must stay >= this for sin and tanh.
        gap_decay: identity psi_last at the largest depth <= gap_decay x its value at the
            smallest depth.
    """
    lo, hi = window
    c = dict(window_text=_window_text(table, window), flat_slope=flat_slope,
             min_slope=min_slope, gap_floor=gap_floor, gap_decay=gap_decay,
             gap_floor_factor=math.exp(gap_floor))  # fmt: skip
    c |= _slope_numbers(flat_slope, min_slope)
    for act in ("sin", "tanh", "identity"):
        c[f"slope_{act}"] = per_run(_run_slopes(table, "activation", act, window))
    for act in ("sin", "tanh"):
        rows = table[(table["activation"] == act) & table["depth"].between(lo, hi)]
        c[f"gap_{act}"] = per_run(rows.groupby("run")["gap_last"].mean(skipna=False))
    ident = table[table["activation"] == "identity"]
    c["first"], c["last"] = int(ident["depth"].min()), int(ident["depth"].max())
    c["start"] = float(ident[ident["depth"] == c["first"]]["gap_last"].mean(skipna=False))
    c["gap_end"] = per_run(ident[ident["depth"] == c["last"]]["gap_last"])
    return judge_records(FIG_C9, c, prefix="gradients.fig_c9.")


_SRC_C10 = "Thesis Fig. C.10 and App. C.7"
FIG_C10 = (
    *(
        _flat(
            f"{name}_flat",
            name,
            _SRC_C10,
            f"orthogonal identity network, {name} mean reduction",
            "'for the identity activation, the result remains similar, with the gradients "
            "remaining bounded in depth' (app. C.7, Fig. C.10)",
        )
        for name in ("with", "without")
    ),  # fmt: skip
    Record(
        "slopes_agree",
        "with and without mean reduction, the slopes of ln ||grad fc_0||_F vs depth over "
        "{window_text} agree within {flat_slope} per layer (Welch interval of the difference of "
        "the run means)",
        _SRC_C10,
        "paper",
        "slope_difference",
        "within",
        0.0,
        "flat_slope",
        note="The levels differ by a constant (BN factor sqrt(n) vs 1): mean offset {offset:.3f} "
        "over the window. Margin: the flatness threshold, smaller than any explosion rate of the "
        "other figures.",
        tolerance_reason="wording: 'Notice that the 2 traces are similar in terms of gradient "
        "explosion' (Fig. C.10 caption) read as slopes within +-{flat_slope} per layer of each "
        "other (the flatness margin, config flat_slope: e^({flat_slope} x 1000) ~ "
        "{flat_per_1000:.1f}-fold over 1000 layers); our reading of 'similar'",
    ),
)


def fig_c10_claims(table: pd.DataFrame, window: list[int], flat_slope: float) -> list[Claim]:
    """Fig. C.10: mean reduction does not change the (absent) explosion of fc_0's gradient.

    Args:
        table: columns mean_reduction (with | without), depth, run, log_grad (of fc_0).
        window: depths of the slope fits.
        flat_slope: both |slopes| and |slope difference| must stay within it (a margin).
    """
    lo, hi = window
    with_ = _run_slopes(table, "mean_reduction", "with", window)
    without = _run_slopes(table, "mean_reduction", "without", window)
    levels = table[table["depth"].between(lo, hi)].groupby("mean_reduction")["log_grad"].mean()
    offset = float(levels["with"] - levels["without"])
    c = {
        "window_text": _window_text(table, window),
        "flat_slope": flat_slope,
        **_slope_numbers(flat_slope),
        "with": stats.t_mean(with_),
        "without": stats.t_mean(without),
        "slope_difference": welch(with_, without),
        "offset": offset,
        "details": {"slopes_agree": {"level_offset": offset}},
    }
    return judge_records(FIG_C10, c, prefix="gradients.fig_c10.")
