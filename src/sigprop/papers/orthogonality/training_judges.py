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

from ...claims import Claim, evaluate
from ...training.curves import curves_at_chosen_rates, mean_se_at, per_point_means, slowdown

__all__ = [
    "FIGURE_NETWORKS",
    "fig3a_claims",
    "fig3b_claims",
    "fig4_claims",
    "fig7_claims",
    "fig_a1_claims",
    "gap_and_loss",
]

FIGURE_NETWORKS = {
    "depth_orthogonality": (
        "Xavier", "iterative orthogonalization", "orthogonal weights", "AGC 0.1", "AGC 1",
    ),
    "deep_convnets": ("Xavier", "iterative orthogonalization"),
}  # fmt: skip
"""The curves each training simulation's figures compare, by name (``networks``)."""

XAVIER, ITERATIVE, ORTHOGONAL = "Xavier", "iterative orthogonalization", "orthogonal weights"
SOURCE_FIG3 = "DJB21 Sec. 5.1, Fig. 3 (Thesis Fig. 2.4)"
SOURCE_FIG4 = "DJB21 Sec. 5.2, Fig. 4 (Thesis Fig. 2.5)"
SOURCE_A1 = "Thesis App. A.5, Fig. A.1"


def _final(table: pd.DataFrame) -> pd.DataFrame:
    curves = curves_at_chosen_rates(table, "train_loss")
    return curves[curves["point"] == curves["point"].max()]


def gap_and_loss(table: pd.DataFrame, network: str = XAVIER) -> pd.DataFrame:
    """Per (depth, run): the gap V(H_L) at initialization and the final training loss, the
    points of Fig. 3a (at the chosen step size)."""
    curves = curves_at_chosen_rates(table, "train_loss")
    rows = curves[curves["network"] == network]
    first = rows[rows["point"] == 0].set_index(["depth", "run"])["orthogonality_gap"]
    last = rows[rows["point"] == rows["point"].max()].set_index(["depth", "run"])["train_loss"]
    return pd.DataFrame({"gap_at_init": first, "final_loss": last}).reset_index()


def _smallest_step(values: pd.Series) -> float:
    """The smallest increase between consecutive depths (NaN if any value is)."""
    v = values.sort_index().to_numpy(float)
    return float(np.diff(v).min()) if not np.isnan(v).any() else math.nan


def _pearson_ci(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Pearson's r with its Fisher-z 95% interval (NaN where a value is NaN or fewer than 3
    points; the interval NaN with fewer than 4)."""
    if np.isnan(x).any() or np.isnan(y).any() or len(x) < 3:
        return math.nan, math.nan, math.nan
    r = float(np.corrcoef(x, y)[0, 1])
    if len(x) < 4:
        return r, math.nan, math.nan
    half = 1.959964 / math.sqrt(len(x) - 3)
    z = math.atanh(min(max(r, -0.999999), 0.999999))
    return r, math.tanh(z - half), math.tanh(z + half)


def fig3a_claims(table: pd.DataFrame, min_correlation: float) -> list[Claim]:
    """DJB21 Sec. 5.1 on Fig. 3a (Xavier MLPs): the initial orthogonality gap and the final
    training loss both increase with depth, and "training slowdown highly correlates with the
    orthogonality gap".

    Args:
        table: columns network, depth, lr, run, point, epoch, train_loss, orthogonality_gap.
        min_correlation: Pearson's r between gap at init and final loss over (depth, run).
    """
    points = gap_and_loss(table)
    means = points.groupby("depth")[["gap_at_init", "final_loss"]].mean(skipna=False)
    epochs = float(table["epoch"].max())
    r, low, high = _pearson_ci(points["gap_at_init"].to_numpy(), points["final_loss"].to_numpy())
    depths = [int(d) for d in means.index]
    return [
        evaluate(
            id="orthogonality.fig3a.gap_grows_with_depth",
            statement=(
                f"Xavier ReLU MLPs: the orthogonality gap V(H_L) at initialization increases with "
                f"depth {depths}; measured is the smallest increase between consecutive depths "
                f"(means over runs)"
            ),
            source=SOURCE_FIG3 + " (a, red)",
            measured=_smallest_step(means["gap_at_init"]), relation=">=", bound=0.0,
        ),
        evaluate(
            id="orthogonality.fig3a.slowdown_grows_with_depth",
            statement=(
                f"Xavier ReLU MLPs: the training loss after {epochs:g} epochs increases with depth "
                f"{depths}; measured is the smallest increase between consecutive depths"
            ),
            source=SOURCE_FIG3 + " (a, blue)",
            measured=_smallest_step(means["final_loss"]), relation=">=", bound=0.0,
        ),
        evaluate(
            id="orthogonality.fig3a.gap_correlates_with_slowdown",
            statement=(
                f"'training slowdown highly correlates with the orthogonality gap': Pearson's r "
                f"between V(H_L) at initialization and the training loss after {epochs:g} epochs "
                f"over the {len(points)} (depth, run) nets is at least {min_correlation:g} (95% "
                f"interval {low:.2f} to {high:.2f}, Fisher z)"
            ),
            source=SOURCE_FIG3 + " (a)",
            measured=r, relation=">=", bound=min_correlation,
            details={"ci_low": low, "ci_high": high, "n": len(points)},
        ),
    ]  # fmt: skip


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
    r, low, high = _pearson_ci(gap.to_numpy(float), loss.to_numpy(float))
    epochs = float(table["epoch"].max())
    return [
        evaluate(
            id="orthogonality.fig3b.sgd_lowers_gap",
            statement=(
                f"Xavier ReLU MLP of depth {depth}: SGD lowers the orthogonality gap V(H_L) by at "
                f"least {min_drop:g} from initialization ({gap.iloc[0]:.3g}) to epoch "
                f"{epochs:g}; measured is the final minus the initial gap"
            ),
            source=SOURCE_FIG3 + " (b)",
            measured=float(gap.iloc[-1] - gap.iloc[0]), relation="<=", bound=-min_drop,
        ),
        evaluate(
            id="orthogonality.fig3b.gap_falls_with_loss",
            statement=(
                f"depth {depth}: the gap falls together with the training loss: Pearson's r of "
                f"the two over the {len(gap)} log points is positive (95% interval {low:.2f} to "
                f"{high:.2f})"
            ),
            source=SOURCE_FIG3 + " (b)",
            measured=r, relation=">=", bound=0.0,
        ),
    ]  # fmt: skip


def _ratio(final: pd.DataFrame, network: str, reference: str = XAVIER) -> float:
    """``network``'s rise in final training loss from the shallowest to the deepest depth over
    the reference's (NaN if the reference does not slow down)."""
    ref = slowdown(final, reference, "train_loss")
    return slowdown(final, network, "train_loss") / ref if ref > 0 else math.nan


def _deep_difference(final: pd.DataFrame, network: str, other: str) -> tuple[float, float]:
    deep = final["depth"].max()
    a, a_se = mean_se_at(final, "train_loss", network=network, depth=deep)
    b, b_se = mean_se_at(final, "train_loss", network=other, depth=deep)
    return a - b, math.hypot(a_se, b_se)


def fig4_claims(table: pd.DataFrame, max_ratio: float) -> list[Claim]:
    """DJB21 Sec. 5.2 on Fig. 4: iterative orthogonalization "significantly alleviates the slow
    down of training with depth, with no need for BN".

    Args:
        max_ratio: "most" of the slowdown removed: the iterative net's rise in final training
            loss from the shallowest to the deepest depth is at most this fraction of Xavier's.
    """
    final = _final(table)
    shallow, deep = int(final["depth"].min()), int(final["depth"].max())
    epochs = float(table["epoch"].max())
    difference, se = _deep_difference(final, ITERATIVE, XAVIER)
    return [
        evaluate(
            id="orthogonality.fig4.iterative_removes_most_slowdown",
            statement=(
                f"iterative orthogonalization removes most of the slowdown with depth: the rise "
                f"of the training loss after {epochs:g} epochs from depth {shallow} to {deep} is "
                f"at most {max_ratio:g} x Xavier's ({slowdown(final, XAVIER, 'train_loss'):.3g});"
                f" measured is the ratio"
            ),
            source=SOURCE_FIG4,
            measured=_ratio(final, ITERATIVE), relation="<=", bound=max_ratio,
        ),
        evaluate(
            id="orthogonality.fig4.iterative_beats_xavier_deep",
            statement=(
                f"at depth {deep}, the iteratively orthogonalized net's training loss after "
                f"{epochs:g} epochs is below Xavier's; measured is iterative minus Xavier"
            ),
            source=SOURCE_FIG4,
            measured=difference, measured_se=se, relation="<=", bound=0.0,
        ),
    ]  # fmt: skip


def fig_a1_claims(table: pd.DataFrame, min_ratio: float, max_ratio: float) -> list[Claim]:
    """Thesis App. A.5 on Fig. A.1: orthogonal weights do not help with the slowdown; adaptive
    gradient clipping "effectively alleviates the training slow down with depth"; "iterative
    orthogonalization achieves a better training loss" than clipping. One claim per clipping
    network (names starting with "AGC").

    Args:
        min_ratio: "does not help": orthogonal weights' slowdown is at least this x Xavier's.
        max_ratio: "effectively alleviates": clipping's slowdown is at most this x Xavier's.
    """
    final = _final(table)
    epochs = float(table["epoch"].max())
    deep = int(final["depth"].max())
    claims = [
        evaluate(
            id="orthogonality.fig_a1.orthogonal_weights_do_not_help",
            statement=(
                f"orthogonal weights (mean singular value x U V^T of the Xavier draw) do not help: "
                f"their rise in training loss after {epochs:g} epochs from the shallowest to the "
                f"deepest net is at least {min_ratio:g} x Xavier's; measured is the ratio"
            ),
            source=SOURCE_A1 + " (i)",
            measured=_ratio(final, ORTHOGONAL), relation=">=", bound=min_ratio,
        )
    ]  # fmt: skip
    for network in sorted(n for n in final["network"].unique() if n.startswith("AGC")):
        key = network.split()[-1].replace(".", "_")
        difference, se = _deep_difference(final, ITERATIVE, network)
        claims += [
            evaluate(
                id=f"orthogonality.fig_a1.agc_{key}_alleviates_slowdown",
                statement=(
                    f"adaptive gradient clipping (Eq. (A.21), {network}) 'effectively "
                    f"alleviates the training slow down with depth': its rise in training loss "
                    f"is at most {max_ratio:g} x Xavier's; measured is the ratio"
                ),
                source=SOURCE_A1 + " (ii)",
                measured=_ratio(final, network), relation="<=", bound=max_ratio,
            ),
            evaluate(
                id=f"orthogonality.fig_a1.iterative_beats_agc_{key}",
                statement=(
                    f"'iterative orthogonalization achieves a better training loss after "
                    f"{epochs:g} epochs' than {network}, at depth {deep}; measured is iterative "
                    f"minus clipped"
                ),
                source=SOURCE_A1 + " (ii)",
                measured=difference, measured_se=se, relation="<=", bound=0.0,
            ),
        ]  # fmt: skip
    return claims


def fig7_claims(table: pd.DataFrame, min_difference: float) -> list[Claim]:
    """DJB21 App. G on Fig. 7: the proposed (orthogonalizing) init "slows SGD for the shallow
    network with 20 [convolutions] compared to standard Xavier's initialization. However, this
    initialization outperforms Xavier's initialization when the depth is significantly large".

    Args:
        min_difference: the final training losses must differ by at least this, in the stated
            direction at each depth.
    """
    final = _final(table)
    shallow, deep = int(final["depth"].min()), int(final["depth"].max())
    epochs = float(table["epoch"].max())
    claims = []
    for depth, relation, bound, words, key in (
        (deep, "<=", -min_difference or 0.0, "below", "faster_deep"),
        (shallow, ">=", min_difference, "above", "slower_shallow"),
    ):
        a, a_se = mean_se_at(final, "train_loss", network=ITERATIVE, depth=depth)
        b, b_se = mean_se_at(final, "train_loss", network=XAVIER, depth=depth)
        claims.append(
            evaluate(
                id=f"orthogonality.fig7.proposed_init_{key}",
                statement=(
                    f"conv net of {depth} convolutions (DJB21 Table 3): the training loss after "
                    f"{epochs:g} epochs with the orthogonalizing init is {words} Xavier's "
                    f"({b:.3g}) by at least {min_difference:g}; measured is proposed minus Xavier"
                ),
                source="DJB21 App. G, Fig. 7",
                measured=a - b,
                measured_se=math.hypot(a_se, b_se),
                relation=relation,
                bound=bound,
            )
        )
    return claims
