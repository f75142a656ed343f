"""Claims of DJB21's training figures from their plotted numbers (torch-free): Fig. 3 (Thesis
Fig. 2.4: orthogonality gap and slowdown with depth, Xavier), Fig. 4 (Thesis Fig. 2.5: iterative
orthogonalization vs Xavier), Thesis Fig. A.1 (vs adaptive gradient clipping and orthogonal
weights) and Fig. 7 (App. G: deep conv nets).

The orthogonality gap is V(H_L) of DJB21 Eq. (2) on the probe batch (the last hidden layer, as
the paper's text says; the authors' code measures a singular-value gap of the logits instead).
"Final" is the last log point; each network at the step size with the lowest final training loss
(one step size at the configured scales). Depth counts hidden blocks (DJB21's "depth", the
number of Linear layers, is one more) or, for Fig. 7, convolutions.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...engine.stats import correlation, t_mean
from ...training.curves import curves_at_chosen_rates, per_point_means, slowdown
from ...verdicts.claims import Claim, Record
from .training_spec import ITERATIVE, ORTHOGONAL, XAVIER
from .training_tables import gap_and_loss
from .verdicts import judge, paired

__all__ = [
    "fig3a_claims",
    "fig3b_claims",
    "fig4_claims",
    "fig7_claims",
    "fig_a1_claims",
]


SOURCE_FIG3 = "DJB21 Sec. 5.1, Fig. 3 (Thesis Fig. 2.4)"
SOURCE_FIG4 = "DJB21 Sec. 5.2, Fig. 4 (Thesis Fig. 2.5)"
SOURCE_A1 = "Thesis App. A.5, Fig. A.1"
AGC_CURVE = "agc_clip_share"
"""The training simulation's curve of the share of clipped weight-gradient updates."""


def _final(table: pd.DataFrame) -> pd.DataFrame:
    curves = curves_at_chosen_rates(table, "train_loss")
    return curves[curves["point"] == curves["point"].max()]


def _runs(final: pd.DataFrame, network: str, depth: int, metric: str = "train_loss") -> pd.Series:
    """Per-run values of ``metric`` of one (network, depth), indexed by run."""
    rows = final[(final["network"] == network) & (final["depth"] == depth)]
    if rows.empty:
        raise ValueError(f"no rows for network {network!r} at depth {depth}")
    return rows.set_index("run")[metric].sort_index()


def _smallest_steps(points: pd.DataFrame, value: str) -> np.ndarray:
    """Per run: the smallest increase of ``value`` between consecutive depths (runs are the
    independent units; NaN for a run with a NaN value)."""
    wide = points.pivot(index="run", columns="depth", values=value).sort_index(axis=1)
    return np.diff(wide.to_numpy(float), axis=1).min(axis=1)


FIG3A_RECORDS = (
    Record(
        "gap_grows_with_depth",
        "Xavier ReLU MLPs: the orthogonality gap V(H_L) at initialization increases with depth "
        "{depths}; measured is the per-run smallest increase between consecutive depths (t over "
        "runs)",
        SOURCE_FIG3 + " (a, red)",
        "paper",
        "gap_steps",
        ">=",
        0.0,
    ),
    Record(
        "slowdown_grows_with_depth",
        "Xavier ReLU MLPs: the training loss after {epochs:g} epochs increases with depth "
        "{depths}; measured is the per-run smallest increase between consecutive depths (t over "
        "runs)",
        SOURCE_FIG3 + " (a, blue)",
        "paper",
        "loss_steps",
        ">=",
        0.0,
    ),
    Record(
        "gap_correlates_with_slowdown",
        "'training slowdown highly correlates with the orthogonality gap': Pearson's r between "
        "V(H_L) at initialization and the training loss after {epochs:g} epochs over the {points} "
        "(depth, run) nets is at least {min_correlation:g} (Fisher z interval)",
        SOURCE_FIG3 + " (a)",
        "paper",
        "r",
        ">=",
        "min_correlation",
        tolerance_reason="wording: our rule for 'the training slowdown highly correlates with "
        "the orthogonality gap' (DJB21 Sec. 5): Pearson's r >= {min_correlation:g} "
        "(orthogonality/fig3a/min_correlation)",
        note="The nets are independent draws, but depth drives both quantities: the interval "
        "treats the {points} nets as the sample.",
    ),
)


def fig3a_claims(table: pd.DataFrame, min_correlation: float) -> list[Claim]:
    """DJB21 Sec. 5.1 on Fig. 3a (Xavier MLPs): the initial orthogonality gap and the final
    training loss both increase with depth, and "training slowdown highly correlates with the
    orthogonality gap".

    Args:
        table: columns network, depth, lr, run, point, epoch, train_loss, orthogonality_gap.
        min_correlation: Pearson's r between gap at init and final loss over (depth, run).
    """
    points = gap_and_loss(table)
    context = dict(
        depths=[int(d) for d in sorted(points["depth"].unique())],
        epochs=float(table["epoch"].max()),
        points=len(points),
        min_correlation=min_correlation,
        gap_steps=t_mean(_smallest_steps(points, "gap_at_init")),
        loss_steps=t_mean(_smallest_steps(points, "final_loss")),
        r=correlation(points["gap_at_init"], points["final_loss"]),
    )
    return judge(FIG3A_RECORDS, context, "fig3a")


FIG3B_RECORDS = (
    Record(
        "sgd_lowers_gap",
        "Xavier ReLU MLP of depth {depth}: SGD lowers the orthogonality gap V(H_L) by at least "
        "{min_drop:g} from initialization ({gap0:.3g}) to epoch {epochs:g}; measured is the "
        "per-run final minus initial gap (t over runs)",
        SOURCE_FIG3 + " (b)",
        "paper",
        "drop",
        "<=",
        "neg_min_drop",
        tolerance_reason="wording: our rule for 'SGD updates are iteratively orthogonalizing "
        "representations, marked by the reduction in the orthogonality gap' (DJB21 Sec. 5.1, "
        "Fig. 3b): V(H_L) falls by at least {min_drop:g} (orthogonality/fig3b/min_drop)",
    ),
    Record(
        "gap_falls_with_loss",
        "depth {depth}: the gap falls together with the training loss ('SGD updates are "
        "iteratively orthogonalizing representations'): Pearson's r of the run-mean gap and loss "
        "over the {n_points} log points is positive (Fisher z interval)",
        SOURCE_FIG3 + " (b)",
        "paper",
        "r",
        ">=",
        0.0,
        note="Tests the co-movement of the two curves over training, which sgd_lowers_gap (a "
        "difference of end points) does not imply; the log points of one curve are the sample, "
        "as the seed plots one curve.",
    ),
)


def fig3b_claims(table: pd.DataFrame, depth: int, min_drop: float) -> list[Claim]:
    """DJB21 Sec. 5.1 on Fig. 3b: during training of one Xavier MLP, "SGD updates are
    iteratively orthogonalizing representations, marked by the reduction in the orthogonality
    gap", together with the loss.

    Args:
        depth: the plotted depth (one of the simulation's).
        min_drop: the gap must fall from initialization to the end by at least this.
    """
    rows = curves_at_chosen_rates(table[table["depth"] == depth], "train_loss")
    gap = per_point_means(rows, XAVIER, "orthogonality_gap")
    loss = per_point_means(rows, XAVIER, "train_loss")
    xavier = rows[rows["network"] == XAVIER]
    first = xavier[xavier["point"] == 0].set_index("run")["orthogonality_gap"]
    last = xavier[xavier["point"] == xavier["point"].max()].set_index("run")["orthogonality_gap"]
    context = dict(
        depth=depth,
        min_drop=min_drop,
        neg_min_drop=-min_drop,
        gap0=float(gap.iloc[0]),
        epochs=float(table["epoch"].max()),
        n_points=len(gap),
        drop=t_mean(paired(last, first)),
        r=correlation(gap.to_numpy(float), loss.to_numpy(float)),
    )
    return judge(FIG3B_RECORDS, context, "fig3b")


def _ratios(final: pd.DataFrame, network: str, reference: str = XAVIER) -> np.ndarray:
    """Per run: ``network``'s rise in final training loss from the shallowest to the deepest
    depth over the reference's (runs share their initial draw across networks)."""
    shallow, deep = int(final["depth"].min()), int(final["depth"].max())
    rise = paired(_runs(final, network, deep), _runs(final, network, shallow))
    ref = paired(_runs(final, reference, deep), _runs(final, reference, shallow))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ref > 0, rise / ref, math.nan)


def _deep_difference(final: pd.DataFrame, network: str, other: str) -> np.ndarray:
    deep = int(final["depth"].max())
    return paired(_runs(final, network, deep), _runs(final, other, deep))


FIG4_RECORDS = (
    Record(
        "iterative_removes_most_slowdown",
        "iterative orthogonalization removes most of the slowdown with depth: the rise of the "
        "training loss after {epochs:g} epochs from depth {shallow} to {deep} is at most "
        "{max_ratio:g} x Xavier's ({xavier_rise:.3g}); measured is the per-run ratio (t over runs)",
        SOURCE_FIG4,
        "paper",
        "ratio",
        "<=",
        "max_ratio",
        tolerance_reason="wording: our rule for 'this initialization significantly alleviates "
        "the slow down of training with depth' (DJB21 Sec. 5.2, Fig. 4): at most {max_ratio:g} "
        "of Xavier's rise in loss remains, i.e. most of it is removed "
        "(orthogonality/fig4/max_ratio)",
    ),
    Record(
        "iterative_beats_xavier_deep",
        "at depth {deep}, the iteratively orthogonalized net's training loss after {epochs:g} "
        "epochs is below Xavier's; measured is the per-run paired iterative minus Xavier (t over "
        "runs)",
        SOURCE_FIG4,
        "paper",
        "difference",
        "<=",
        0.0,
    ),
)


def _depth_context(final: pd.DataFrame, table: pd.DataFrame) -> dict:
    return dict(
        shallow=int(final["depth"].min()),
        deep=int(final["depth"].max()),
        epochs=float(table["epoch"].max()),
        xavier_rise=slowdown(final, XAVIER, "train_loss"),
    )


def fig4_claims(table: pd.DataFrame, max_ratio: float) -> list[Claim]:
    """DJB21 Sec. 5.2 on Fig. 4: iterative orthogonalization "significantly alleviates the slow
    down of training with depth, with no need for BN".

    Args:
        max_ratio: "most" of the slowdown removed: the iterative net's rise in final training
            loss from the shallowest to the deepest depth is at most this fraction of Xavier's.
    """
    final = _final(table)
    context = _depth_context(final, table) | dict(
        max_ratio=max_ratio,
        ratio=t_mean(_ratios(final, ITERATIVE)),
        difference=t_mean(_deep_difference(final, ITERATIVE, XAVIER)),
    )
    return judge(FIG4_RECORDS, context, "fig4")


FIG_A1_RECORDS = (
    Record(
        "orthogonal_weights_do_not_help",
        "orthogonal weights (mean singular value x U V^T of the Xavier draw) do not help: their "
        "rise in training loss after {epochs:g} epochs from the shallowest to the deepest net is "
        "at least {min_ratio:g} x Xavier's; measured is the per-run ratio (t over runs)",
        SOURCE_A1 + " (i)",
        "paper",
        "orthogonal",
        ">=",
        "min_ratio",
        tolerance_reason="wording: our rule for 'such an initialization does not help with the "
        "slow down of training with depth' (Thesis App. A.5 (i)): at least {min_ratio:g} of "
        "Xavier's rise in loss remains (orthogonality/fig_a1/min_ratio)",
    ),
)

FIG_A1_AGC_RECORDS = (
    Record(
        "agc_{key}_engaged",
        "adaptive gradient clipping ({network}) engaged: the share of (SGD step, weight matrix) "
        "updates whose gradient it rescaled, over all epochs and depths, is at least "
        "{min_clip_share:g} (t over runs)",
        SOURCE_A1 + " (ii), Eq. (A.21)",
        "setup",
        "share",
        ">=",
        "min_clip_share",
        tolerance_reason="wording: our rule for clipping to count as engaged, which Thesis "
        "App. A.5 (ii) presumes ('adaptive gradient clipping adjusts the norm of G_l', Eq. "
        "(A.21)): at least {min_clip_share:g} of the (SGD step, weight matrix) updates rescaled "
        "(orthogonality/fig_a1/min_clip_share)",
        note="Eq. (A.21) clips where ||G||_F >= lambda ||W||_F^*. A Xavier (gain sqrt 2) d x d "
        "layer has ||W||_F ~ sqrt(2 d) (11.3 at d = 64, 40 at the seed's d = 800, DJB21 Sec. 5), "
        "so lambda = {lam:g} clips a weight gradient only when its Frobenius norm exceeds "
        "lambda ||W||_F^* ~ {lam:g} x sqrt(2 d) ({seed_threshold:.3g} at d = 800); whether it "
        "clips at the seed's settings (width 800, batch 500, CIFAR-10) is not measured here. "
        "Where it never clipped, the clipped network is the Xavier network and the claims "
        "agc_{key}_* test nothing about clipping: they require this claim.",
    ),
    Record(
        "agc_{key}_alleviates_slowdown",
        "adaptive gradient clipping (Eq. (A.21), {network}) 'effectively alleviates the training "
        "slow down with depth': its rise in training loss is at most {max_ratio:g} x Xavier's; "
        "measured is the per-run ratio (t over runs)",
        SOURCE_A1 + " (ii)",
        "paper",
        "agc_ratio",
        "<=",
        "max_ratio",
        tolerance_reason="wording: our rule for 'adaptive gradient clipping effectively "
        "alleviates the training slow down with depth' (Thesis App. A.5 (ii), Fig. A.1): at most "
        "{max_ratio:g} of Xavier's rise in loss remains (orthogonality/fig_a1/max_ratio)",
        note="Clipping rescaled {share_text} of the updates (claim agc_{key}_engaged).",
        requires=("agc_{key}_engaged",),
    ),
    Record(
        "iterative_beats_agc_{key}",
        "'iterative orthogonalization achieves a better training loss after {epochs:g} epochs' "
        "than {network}, at depth {deep}; measured is the per-run paired iterative minus clipped "
        "(t over runs)",
        SOURCE_A1 + " (ii)",
        "paper",
        "difference",
        "<=",
        0.0,
        note="Clipping rescaled {share_text} of the updates (claim agc_{key}_engaged).",
        requires=("agc_{key}_engaged",),
    ),
)


def _clip_lambda(network: str) -> float:
    """lambda of a clipping network named "AGC <lambda>" (NaN for another name)."""
    try:
        return float(network.split()[-1])
    except ValueError:
        return math.nan


def _clip_share(table: pd.DataFrame, network: str) -> np.ndarray:
    """Per run: the share of clipped updates over all depths and epochs (NaN without the
    simulation's ``agc_clip_share`` curve)."""
    rows = curves_at_chosen_rates(table, "train_loss")
    rows = rows[(rows["network"] == network) & (rows["point"] > 0)]
    if AGC_CURVE not in rows or rows.empty:
        return np.array([math.nan])
    return rows.groupby("run")[AGC_CURVE].mean().to_numpy(float)


def fig_a1_claims(
    table: pd.DataFrame, min_ratio: float, max_ratio: float, min_clip_share: float
) -> list[Claim]:
    """Thesis App. A.5 on Fig. A.1: orthogonal weights do not help with the slowdown; adaptive
    gradient clipping "effectively alleviates the training slow down with depth"; "iterative
    orthogonalization achieves a better training loss" than clipping. Per clipping network
    (names starting with "AGC"): a setup claim that clipping engaged, and the two claims.

    Args:
        min_ratio: "does not help": orthogonal weights' slowdown is at least this x Xavier's.
        max_ratio: "effectively alleviates": clipping's slowdown is at most this x Xavier's.
        min_clip_share: the least share of clipped updates for clipping to count as engaged.
    """
    final = _final(table)
    base = _depth_context(final, table) | dict(
        min_ratio=min_ratio, max_ratio=max_ratio, min_clip_share=min_clip_share
    )
    claims = judge(
        FIG_A1_RECORDS, base | {"orthogonal": t_mean(_ratios(final, ORTHOGONAL))}, "fig_a1"
    )
    for network in sorted(n for n in final["network"].unique() if n.startswith("AGC")):
        share = t_mean(_clip_share(table, network))
        context = base | dict(
            network=network,
            key=network.split()[-1].replace(".", "_"),
            lam=_clip_lambda(network),
            seed_threshold=40.0 * _clip_lambda(network),
            share=share,
            share_text=f"{share.value:.2%}"
            if math.isfinite(share.value)
            else "an unrecorded share",
            agc_ratio=t_mean(_ratios(final, network)),
            difference=t_mean(_deep_difference(final, ITERATIVE, network)),
        )
        claims += judge(FIG_A1_AGC_RECORDS, context, "fig_a1")
    return claims


FIG7_REASON = (
    "wording: our rule for 'this initialization slows SGD for the shallow network with 20 "
    "compared to standard Xavier's initialization. However, this initialization outperforms "
    "Xavier's initialization when the depth is significantly large' (DJB21 App. G, Fig. 7): the "
    "final training losses differ by at least {margin:g} in the stated direction "
    "(orthogonality/fig7/margin; the seed prints no loss values)"
)

FIG7_RECORDS = (
    Record(
        "proposed_init_faster_deep",
        "conv net of {deep} convolutions (DJB21 Table 3): the training loss after {epochs:g} "
        "epochs with the orthogonalizing init is below Xavier's ({xavier_deep:.3g}) by at least "
        "{margin:g}; measured is the per-run paired proposed minus Xavier (t over runs)",
        "DJB21 App. G, Fig. 7",
        "paper",
        "deep_difference",
        "<=",
        "neg_margin",
        tolerance_reason=FIG7_REASON,
        note="Margin: orthogonality/fig7/margin.",
    ),
    Record(
        "proposed_init_slower_shallow",
        "conv net of {shallow} convolutions (DJB21 Table 3): the training loss after {epochs:g} "
        "epochs with the orthogonalizing init is above Xavier's ({xavier_shallow:.3g}) by at "
        "least {margin:g}; measured is the per-run paired proposed minus Xavier (t over runs)",
        "DJB21 App. G, Fig. 7",
        "paper",
        "shallow_difference",
        ">=",
        "margin",
        tolerance_reason=FIG7_REASON,
        note="Margin: orthogonality/fig7/margin. Float32 SGD: another CPU's rounding changes "
        "every run's trajectory, so with few runs the sign of the point estimate can change "
        "between machines; only the interval speaks.",
    ),
)


def fig7_claims(table: pd.DataFrame, margin: float) -> list[Claim]:
    """DJB21 App. G on Fig. 7: the proposed (orthogonalizing) init "slows SGD for the shallow
    network with 20 [convolutions] compared to standard Xavier's initialization. However, this
    initialization outperforms Xavier's initialization when the depth is significantly large".

    Args:
        margin: the final training losses must differ by at least this, in the stated direction
            at each depth (per-run paired differences: both inits start from the run's draw).
    """
    final = _final(table)
    shallow, deep = int(final["depth"].min()), int(final["depth"].max())
    context = dict(
        shallow=shallow,
        deep=deep,
        epochs=float(table["epoch"].max()),
        margin=margin,
        neg_margin=-margin,
        xavier_deep=float(_runs(final, XAVIER, deep).mean()),
        xavier_shallow=float(_runs(final, XAVIER, shallow).mean()),
        deep_difference=t_mean(paired(_runs(final, ITERATIVE, deep), _runs(final, XAVIER, deep))),
        shallow_difference=t_mean(
            paired(_runs(final, ITERATIVE, shallow), _runs(final, XAVIER, shallow))
        ),
    )
    return judge(FIG7_RECORDS, context, "fig7")
