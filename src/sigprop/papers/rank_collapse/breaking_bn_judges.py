"""Claims of Dan+20's "breaking BN" conv-net figures from their plotted curves (torch-free):
Fig. 5 (VGG19) and Fig. 13 (ResNet-50): the asymmetric init U[0, 2/sqrt(fan_in)] lowers the
rank of the last hidden layer and slows training, dropping BN's centering changes little;
Fig. 7 (VGG19): centering does not change training accuracy (averaged over the iterations) or
r(H_L).

Each network at the step size with the best final training accuracy (one step size at the
configured scales). Point 0 is at initialization. Every claim is a Student-t interval over the
per-run values (runs with the same index are paired).
"""

from __future__ import annotations

import math

import pandas as pd

from ...engine.stats import t_mean
from ...training.curves import curves_at_chosen_rates
from ...verdicts.claims import Claim, Record
from .records import judge, largest_gaps, paired, per_run, ratio
from .training_spec import FIGURE_NETWORKS

__all__ = ["fig13_claims", "fig5_claims", "fig7_claims"]

NETWORKS = FIGURE_NETWORKS["breaking_bn_vgg"]


def per_run_curve_mean(curves: pd.DataFrame, network: str, metric: str) -> pd.Series:
    """Per run, ``metric`` averaged over the log points (NaN if a point is NaN)."""
    rows = curves[curves["network"] == network]
    return rows.groupby("run")[metric].agg(lambda v: v.mean(skipna=False))


def _final(curves: pd.DataFrame, network: str, metric: str) -> pd.Series:
    last = curves[curves["point"] == curves["point"].max()]
    return per_run(last, metric, network=network)


BREAKING_BN = (
    Record(
        "asymmetric_init_lowers_rank",
        "{network} with BN: the asymmetric init U[0, 2/sqrt(fan_in)] 'reduces the rank "
        "preserving quality of BN significantly': the numerical rank of the last hidden layer, "
        "averaged over the log points, is at most {asymmetric_rank_ratio:g} x the default "
        "init's (mean {bn_rank:.3g}); measured is, run by run, the ratio",
        "{source} (right); Sec. 4", "paper", "rank_ratio", "<=", "asymmetric_rank_ratio",
        tolerance_reason="wording: Sec. 4 'this small change reduces the rank preserving quality "
        "of BN significantly': read as at most {asymmetric_rank_ratio:g} x the default init's "
        "rank - our reading, asymmetric_rank_ratio (the seed prints no number)",
    ),
    Record(
        "asymmetric_init_slows_training",
        "'... which is reflected in much slower learning': {network} with BN and the default "
        "init ends {epochs:g} epochs at least {min_gap:g} above the asymmetric init in training "
        "accuracy; measured is, run by run, default minus asymmetric",
        "{source} (left); Sec. 4", "paper", "slowing", ">=", "min_gap",
        tolerance_reason="wording: Sec. 4 '... much slower learning behaviour. Even sophisticated "
        "modern day architectures such as VGG and ResNet networks are unable to fit the CIFAR-10 "
        "dataset after changing the initialization in this way': read as a final training "
        "accuracy at least {min_gap:g} below the default init's - our reading, min_gap",
    ),
    Record(
        "centering_changes_little",
        "dropping BN's mean subtraction changes little: {network} with BN without centering ends "
        "{epochs:g} epochs within {centering_tolerance:g} of BN's training accuracy (mean "
        "{bn_accuracy:.3g}); measured is, run by run, without minus with centering",
        "{source}; Sec. 2", "paper", "centering", "within", 0.0, "centering_tolerance",
        note="the margin (centering_tolerance) is a declared equivalence margin in accuracy",
        tolerance_reason="wording: Sec. 2 'As demonstrated empirically in Fig. 5, and "
        "theoretically in App. C this simplification does not change the performance of BN in "
        "our settings': 'does not change' read as final training accuracies within "
        "{centering_tolerance:g} - our equivalence margin, centering_tolerance",
    ),
)  # fmt: skip


def breaking_bn_claims(
    table: pd.DataFrame,
    asymmetric_rank_ratio: float,
    min_gap: float,
    centering_tolerance: float,
    prefix: str,
    network: str,
    source: str,
) -> list[Claim]:
    """Sec. 4 and Sec. 2 on Figs. 5 and 13 (``prefix`` the claim ids, ``network`` its name).

    Args:
        table: columns network (``NETWORKS``), depth, lr, run, point, epoch, train_accuracy,
            rank (numerical rank of H_L on the probe batch, "torch.matrix_rank").
        asymmetric_rank_ratio: the asymmetric init's rank, averaged over the log points, is at
            most this fraction of the default init's ("reduces the rank ... significantly").
        min_gap: the default init's final training accuracy exceeds the asymmetric one's by
            at least this ("much slower learning").
        centering_tolerance: BN without centering ends within this training accuracy of BN.
    """
    curves = curves_at_chosen_rates(table, "train_accuracy")
    rank = {n: per_run_curve_mean(curves, n, "rank") for n in NETWORKS}
    acc = {n: _final(curves, n, "train_accuracy") for n in NETWORKS}
    context = {
        "network": network, "source": source, "epochs": float(table["epoch"].max()),
        "asymmetric_rank_ratio": asymmetric_rank_ratio, "min_gap": min_gap,
        "centering_tolerance": centering_tolerance, "bn_rank": rank["BN"].mean(),
        "bn_accuracy": acc["BN"].mean(),
        "rank_ratio": t_mean(ratio(rank["BN asymmetric"], rank["BN"])),
        "slowing": t_mean(paired(acc["BN"], acc["BN asymmetric"])),
        "centering": t_mean(paired(acc["BN w/o centering"], acc["BN"])),
    }  # fmt: skip
    return judge(BREAKING_BN, context, prefix + ".")


def fig5_claims(
    table: pd.DataFrame, asymmetric_rank_ratio: float, min_gap: float, centering_tolerance: float
) -> list[Claim]:
    """Dan+20 Fig. 5 (VGG19): ``breaking_bn_claims``."""
    return breaking_bn_claims(
        table, asymmetric_rank_ratio, min_gap, centering_tolerance, "rank_collapse.fig5",
        "VGG19", "Dan+20 Fig. 5",
    )  # fmt: skip


def fig13_claims(
    table: pd.DataFrame, asymmetric_rank_ratio: float, min_gap: float, centering_tolerance: float
) -> list[Claim]:
    """Dan+20 Fig. 13 (ResNet-50, App. I): ``breaking_bn_claims``."""
    return breaking_bn_claims(
        table, asymmetric_rank_ratio, min_gap, centering_tolerance, "rank_collapse.fig13",
        "ResNet-50", "Dan+20 App. I, Fig. 13",
    )  # fmt: skip


FIG7 = (
    Record(
        "centering_mean_accuracy_gap",
        "VGG19: BN with and without mean subtraction follow the same training-accuracy path: "
        "the accuracy gap (without minus with centering) averaged over the log points after "
        "initialization is 0 within {path_tolerance:g}; measured run by run (paired runs; "
        "largest |gap| of a run over the points, means over runs: {max_gap:.3g})",
        "Dan+20 App. C, Fig. 7 (left)", "paper", "path_gap", "within", 0.0, "path_tolerance",
        note="the gap averaged over the path, not its largest value: two runs of one network "
        "differ at single log points by run-to-run noise alone (the BN runs among themselves by "
        "up to {bn_max_gap:.3g} here), so a per-run maximum would fail for two equal networks",
        tolerance_reason="wording: App. C 'Fig. 7 shows that the centering does not affect the "
        "performance of BN on a VGG net when training CIFAR-10': 'does not affect' read as the "
        "path-averaged training-accuracy gap within {path_tolerance:g} - our equivalence margin, "
        "fig7.path_tolerance",
    ),
    Record(
        "centering_keeps_rank",
        "VGG19: r(H_L) (Eq. (4)) without centering over r(H_L) with centering, averaged over "
        "the log points, is 1 within {rank_tolerance:g}; measured run by run",
        "Dan+20 App. C, Fig. 7 (right)", "paper", "rank_ratio", "within", 1.0, "rank_tolerance",
        tolerance_reason="wording: App. C 'the centering does not affect the performance of BN' "
        "with Fig. 7 (right), which plots r(H_L) of both nets: read as a ratio within "
        "{rank_tolerance:g} of 1 - our equivalence margin, fig7.rank_tolerance",
    ),
)  # fmt: skip


def fig7_claims(table: pd.DataFrame, path_tolerance: float, rank_tolerance: float) -> list[Claim]:
    """Dan+20 App. C on Fig. 7: "the centering does not affect the performance of BN on a VGG
    net when training CIFAR-10", on the whole curves over iterations.

    Args:
        table: Fig. 5's VGG19 runs; the curves BN and BN w/o centering are compared.
        path_tolerance: the training-accuracy gap (without minus with centering), averaged over
            the log points after initialization, must be 0 within this.
        rank_tolerance: r(H_L) without centering over r(H_L) with, averaged over the log
            points, within this of 1.
    """
    curves = curves_at_chosen_rates(table, "train_accuracy")
    wide = curves.pivot_table(
        index=["run", "point"], columns="network", values=["train_accuracy", "r_lower_bound"],
        dropna=False,
    )  # fmt: skip
    a, r = wide["train_accuracy"], wide["r_lower_bound"]
    gap = a["BN w/o centering"] - a["BN"]
    gap = (
        gap[gap.index.get_level_values("point") > 0]
        .groupby("run")
        .agg(lambda v: v.mean(skipna=False))
    )
    bn = a["BN"].unstack("run")
    bn_max_gap = max(
        ((bn[i] - bn[j])[bn.index > 0].abs().max() for i in bn for j in bn if i < j),
        default=math.nan,
    )
    rank_ratio = (
        (r["BN w/o centering"] / r["BN"]).groupby("run").agg(lambda v: v.mean(skipna=False))
    )
    context = {
        "path_tolerance": path_tolerance, "rank_tolerance": rank_tolerance,
        "path_gap": t_mean(gap), "rank_ratio": t_mean(rank_ratio),
        "max_gap": largest_gaps(a, "BN w/o centering", "BN").mean(), "bn_max_gap": bn_max_gap,
    }  # fmt: skip
    return judge(FIG7, context, "rank_collapse.fig7.")
