"""Claims of DJB21 (seed 003; Thesis ch. 2), from the plotted tables.

Each judge derives a context of ``stats.Measurement``s (intervals over runs, the unit of
independence) and evaluates the module's ``claims.Record`` tuples on it.
"""

from __future__ import annotations

import math

import pandas as pd

from ...engine.stats import bootstrap_slope, per_run_slopes, t_mean
from ...verdicts.claims import Claim, Record
from .verdicts import judge, local_slopes

__all__ = [
    "FIG1_RECORDS",
    "FIG2A_RECORDS",
    "FIG2B_RECORDS",
    "fig1_claims",
    "fig2a_claims",
    "fig2b_claims",
    "plateau_slope_margin",
]

SOURCE_FIG1 = "DJB21 Fig. 1 (Thesis Fig. 2.1)"
SOURCE_FIG2A = "DJB21 Fig. 2a and Sec. 3 (Thesis Fig. 2.2a)"

FIG1_RECORDS = (
    Record(
        "bn_orthogonalizes",
        "BN chain, d={width}: samples with |cos| ~ 1 at the input reach |cos| <= 1/sqrt(d) = "
        "{inv_sqrt_d:.3f}; measured is the mean |cos| over layers {half}..{depth} (t over runs)",
        SOURCE_FIG1,
        "paper",
        "bn",
        "<=",
        "inv_sqrt_d",
        note="1/sqrt(d) is the O(1/sqrt d) scale of DJB21 Thm. 1 (for n = 2, |cos| = sqrt(2) V).",
        tolerance_reason="theorem: the bound is the O(1/sqrt(d)) order of the floor of DJB21 "
        "Thm. 1, Eq. (3), with its hidden constant set to 1 (our choice: the theorem's own "
        "3n/(alpha sqrt(d)) is far larger)",
    ),
    Record(
        "vanilla_aligns",
        "vanilla linear chain, d={width}: orthogonal inputs (|cos| = 0) become aligned; measured "
        "is the mean |cos| at layer {depth} (t over runs)",
        SOURCE_FIG1,
        "paper",
        "vanilla",
        ">=",
        "vanilla_min_final_cosine",
        tolerance_reason="wording: our rule for 'they become increasingly aligned in a vanilla "
        "network' (DJB21 Sec. 3.1): aligned means |cos| >= {vanilla_min_final_cosine:g}, past "
        "half way from orthogonal (0) to collinear (1) "
        "(orthogonality/fig1/vanilla_min_final_cosine)",
    ),
)


def fig1_claims(table: pd.DataFrame, width: int, vanilla_min_final_cosine: float) -> list[Claim]:
    """BN orthogonalizes nearly collinear samples; a vanilla net aligns orthogonal ones.

    Args:
        table: columns network (BN | vanilla), run, layer, abs_cos.
        width: d. The BN claim bounds the mean |cos| over the second half of the layers by
            1/sqrt(d).
        vanilla_min_final_cosine: the vanilla |cos| at the last layer must reach this.
    """
    depth = int(table["layer"].max())
    bn = table.query("network == 'BN' and layer >= @depth / 2").groupby("run")["abs_cos"].mean()
    last = table.query("network == 'vanilla' and layer == @depth")["abs_cos"]
    context = dict(
        width=width,
        depth=depth,
        half=math.ceil(depth / 2),
        inv_sqrt_d=1 / math.sqrt(width),
        vanilla_min_final_cosine=vanilla_min_final_cosine,
        bn=t_mean(bn),
        vanilla=t_mean(last),
    )
    return judge(FIG1_RECORDS, context, "fig1")


PLATEAU_REASON = (
    "wording: our rule for 'then it wiggles around a small constant' (DJB21 Sec. 3.3 on "
    "Fig. 2a): the level of V changes by at most {plateau_drift:.0%} across layers "
    "{plateau_window[0]}..{plateau_window[1]}, i.e. |slope of log V| <= log(1 + "
    "{plateau_drift:g}) / {window_length} = {margin:.4g} per layer (plateau_drift)"
)
"""Why a plateau's margin is what it is (fig2a and thm1 plateaus)."""


def plateau_slope_margin(plateau_drift: float, window: tuple[int, int]) -> float:
    """The largest |slope| of log V per layer that is still "flat": a change of the level by at
    most ``plateau_drift`` (relative) across the window."""
    return math.log1p(plateau_drift) / (window[1] - window[0])


FIG2A_RECORDS = (
    Record(
        "decay_d{d}",
        "d={d}: log V(H_l) decreases over layers {decay_window[0]}..{decay_window[1]}; measured "
        "is the mean per-run OLS slope (t over runs)",
        SOURCE_FIG2A,
        "paper",
        "decay",
        "<=",
        0.0,
    ),
    Record(
        "plateau_d{d}",
        "d={d}: log V(H_l) is flat over layers {plateau_window[0]}..{plateau_window[1]}: the "
        "mean per-run slope is 0 within {margin:.4g} per layer (the level changes by at most "
        "{plateau_drift:.0%} across the window)",
        SOURCE_FIG2A,
        "paper",
        "flat",
        "within",
        0.0,
        tolerance="margin",
        note="Margin: config orthogonality/fig2a/plateau_drift (relative change of V across the "
        "window), an equivalence margin of 'wiggles around a constant' on the seed's log scale.",
        tolerance_reason=PLATEAU_REASON,
    ),
)


def fig2a_claims(
    table: pd.DataFrame,
    decay_window: tuple[int, int],
    plateau_window: tuple[int, int],
    plateau_drift: float,
) -> list[Claim]:
    """log V(H_l) decreases linearly at first, then wiggles around a constant, per width.

    Args:
        table: columns width, run, layer, log_gap.
        decay_window: layers where the decay is fitted; the mean per-run slope must be < 0.
        plateau_window: layers where the mean per-run slope must be 0 within the margin of
            ``plateau_slope_margin(plateau_drift, plateau_window)``.
    """
    claims = []
    for d in sorted(table["width"].unique()):
        rows = table[table["width"] == d]
        context = dict(
            d=int(d),
            decay_window=decay_window,
            plateau_window=plateau_window,
            plateau_drift=plateau_drift,
            margin=plateau_slope_margin(plateau_drift, plateau_window),
            window_length=plateau_window[1] - plateau_window[0],
            decay=t_mean(per_run_slopes(rows, "layer", "log_gap", decay_window)),
            flat=t_mean(per_run_slopes(rows, "layer", "log_gap", plateau_window)),
        )
        claims += judge(FIG2A_RECORDS, context, "fig2a")
    return claims


FIG2B_RECORDS = (
    Record(
        "gap_slope",
        "the layer-averaged V over layers {window[0]}..{window[1]} scales as d^beta with "
        "beta = -1/2 (fit log V = a + beta log d + c/d, d = {widths[0]}..{widths_last}), within "
        "{slope_margin:g} (bootstrap over runs)",
        "DJB21 Fig. 2b and Thm. 1 (Thesis Fig. 2.2b, window of the thesis)",
        "paper",
        "beta",
        "within",
        -0.5,
        tolerance="slope_margin",
        tolerance_reason="wording: our rule for 'the O(1/sqrt(d)) dependency on width is almost "
        "tight' (Thesis Sec. 2.2.3 on Fig. 2.2b, which drops the paper's -0.46 and averages "
        "after the transient): the exponent is nearer Thm. 1's -1/2 than the paper protocol's "
        "printed -0.46, i.e. within half their distance, {slope_margin:g}",
        note="Margin: orthogonality/fig2b/slope_margin, half the distance between Thm. 1's -1/2 "
        "and the printed -0.46 of the paper protocol, so the claim separates the two. Plain "
        "log-log slope {plain.value:.4f}; local slopes {local_text} (finite-width curvature). The "
        "paper protocol (layers {paper_window[0]}..{paper_window[1]}, with the transient) gives "
        "{printed.value:.4f}: claim orthogonality.fig2b.paper_protocol_slope.",
    ),
    Record(
        "paper_protocol_slope",
        "paper protocol: the plain log-log slope of V averaged over layers "
        "{paper_window[0]}..{paper_window[1]} (transient included) vs d is the printed "
        "{paper_slope}, within {slope_margin:g} (bootstrap over runs)",
        "DJB21 Fig. 2b caption and Sec. 3 (slope -0.46; dropped in Thesis Fig. 2.2b)",
        "paper",
        "printed",
        "within",
        "paper_slope",
        tolerance="slope_margin",
        printed="paper_slope",
        tolerance_reason="wording: our reading of 'The slope of the right plot is -0.46' (DJB21 "
        "Fig. 2 caption) beside Sec. 3.3's 'slope is close to -1/2': the paper protocol gives "
        "-0.46 rather than Thm. 1's -1/2, i.e. a slope nearer -0.46, within half their distance "
        "({slope_margin:g}); not the printed precision (0.005): the printed slope is one "
        "estimate from the seed's 20 runs, whose spread it does not print",
        note="The shallower slope than -1/2 comes from the transient: at small d the chain leaves "
        "the nearly rank-one H_0 faster, so early layers weigh less. The thesis window after the "
        "transient gives claim orthogonality.fig2b.gap_slope.",
    ),
)


def fig2b_claims(
    table: pd.DataFrame,
    window: tuple[int, int],
    slope_margin: float,
    paper_window: tuple[int, int],
    paper_slope: float,
) -> list[Claim]:
    """The layer-averaged gap scales as d^{-1/2} (DJB21 Fig. 2b, Thm. 1), in both protocols.

    Thesis protocol (``window``, after the transient): the exponent is fitted as the leading
    power in log V = a + beta log d + c / d over all plotted widths (finite-width curvature).
    Paper protocol (``paper_window``, layers 1..500 with the transient): the plain log-log slope,
    as the paper reports it (-0.46), compared with the printed number. Intervals: percentile
    bootstrap over runs (``stats.bootstrap_slope``).

    Args:
        table: columns protocol (thesis | paper), width, run, mean_gap (V averaged over the
            protocol's window, per run).
        slope_margin: the equivalence margin of both slopes (config/README.md).
    """
    thesis = table[table["protocol"] == "thesis"]
    paper = table[table["protocol"] == "paper"]
    widths = sorted(int(w) for w in thesis["width"].unique())
    if len(widths) < 4:
        raise ValueError(f"the corrected fit needs at least 4 widths, got {widths}")
    beta = bootstrap_slope(
        thesis, x="width", y="mean_gap", inverse_correction=True, as_measurement=True
    )
    plain = bootstrap_slope(thesis, x="width", y="mean_gap")
    printed = bootstrap_slope(paper, x="width", y="mean_gap", as_measurement=True)
    means = thesis.groupby("width")["mean_gap"].mean()
    local = local_slopes(means)
    context = dict(
        window=window,
        widths=widths,
        widths_last=widths[-1],
        paper_window=paper_window,
        paper_slope=paper_slope,
        slope_margin=slope_margin,
        beta=beta,
        plain=plain,
        printed=printed,
        local_text=", ".join(f"{x:.3f}" for x in local),
        details={
            "gap_slope": {
                "plain_slope": plain.value,
                "plain_slope_se": plain.se,
                "local_slopes": local.tolist(),
                "widths": widths,
            }
        },
    )
    return judge(FIG2B_RECORDS, context, "fig2b")
