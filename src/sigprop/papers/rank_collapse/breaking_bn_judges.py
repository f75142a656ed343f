"""Claims of Dan+20's "breaking BN" conv-net figures from their plotted curves (torch-free):
Fig. 5 (VGG19) and Fig. 13 (ResNet-50): the asymmetric init U[0, 2/sqrt(fan_in)] lowers the
rank of the last hidden layer and slows training, dropping BN's centering changes little;
Fig. 7 (VGG19): centering does not change training accuracy or r(H_L) over the iterations.

Each network at the step size with the best final training accuracy (one step size at the
configured scales). Point 0 is at initialization.
"""

from __future__ import annotations

import math

import pandas as pd

from ...claims import Claim, evaluate
from ...stats import mean_se
from .training_judges import FIGURE_NETWORKS, curves_at_chosen_rates, per_point_means

__all__ = ["fig13_claims", "fig5_claims", "fig7_claims"]

NETWORKS = FIGURE_NETWORKS["breaking_bn_vgg"]


def _final(curves: pd.DataFrame, network: str, metric: str) -> tuple[float, float]:
    rows = curves[(curves["network"] == network) & (curves["point"] == curves["point"].max())]
    return mean_se(rows[metric].to_numpy())


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
    epochs = float(table["epoch"].max())
    rank = {n: float(per_point_means(curves, n, "rank").mean(skipna=False)) for n in NETWORKS}
    default, default_se = _final(curves, "BN", "train_accuracy")
    asymmetric, asymmetric_se = _final(curves, "BN asymmetric", "train_accuracy")
    uncentered, uncentered_se = _final(curves, "BN w/o centering", "train_accuracy")
    ratio = rank["BN asymmetric"] / rank["BN"] if rank["BN"] > 0 else math.nan
    return [
        evaluate(
            id=f"{prefix}.asymmetric_init_lowers_rank",
            statement=(
                f"{network} with BN: the asymmetric init U[0, 2/sqrt(fan_in)] 'reduces the rank "
                f"preserving quality of BN significantly': the numerical rank of the last hidden "
                f"layer, averaged over the log points, is at most {asymmetric_rank_ratio:g} x "
                f"the default init's ({rank['BN']:.3g}); measured is the ratio"
            ),
            source=f"{source} (right); Sec. 4",
            measured=ratio, relation="<=", bound=asymmetric_rank_ratio,
        ),
        evaluate(
            id=f"{prefix}.asymmetric_init_slows_training",
            statement=(
                f"'... which is reflected in much slower learning': {network} with BN and the "
                f"default init ends {epochs:g} epochs at least {min_gap:g} above the asymmetric "
                f"init in training accuracy; measured is default minus asymmetric"
            ),
            source=f"{source} (left); Sec. 4",
            measured=default - asymmetric, measured_se=math.hypot(default_se, asymmetric_se),
            relation=">=", bound=min_gap,
        ),
        evaluate(
            id=f"{prefix}.centering_changes_little",
            statement=(
                f"dropping BN's mean subtraction changes little: {network} with BN without "
                f"centering ends {epochs:g} epochs within {centering_tolerance:g} of BN's "
                f"training accuracy ({default:.3g}); measured is without minus with centering"
            ),
            source=f"{source}; Sec. 2",
            measured=uncentered - default, measured_se=math.hypot(default_se, uncentered_se),
            relation="within", bound=0.0, tolerance=centering_tolerance,
        ),
    ]  # fmt: skip


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


def fig7_claims(table: pd.DataFrame, path_tolerance: float, rank_tolerance: float) -> list[Claim]:
    """Dan+20 App. C on Fig. 7: "the centering does not affect the performance of BN on a VGG
    net when training CIFAR-10", on the whole curves over iterations.

    Args:
        table: Fig. 5's VGG19 runs; the curves BN and BN w/o centering are compared.
        path_tolerance: the largest training-accuracy gap over the log points after
            initialization must be at most this.
        rank_tolerance: r(H_L) without centering over r(H_L) with, averaged over the log
            points, within this of 1.
    """
    curves = curves_at_chosen_rates(table, "train_accuracy")
    accuracy = {n: per_point_means(curves, n, "train_accuracy") for n in ("BN", "BN w/o centering")}
    r = {n: per_point_means(curves, n, "r_lower_bound") for n in ("BN", "BN w/o centering")}
    gap = (accuracy["BN w/o centering"] - accuracy["BN"]).abs().drop(index=0, errors="ignore")
    ratio = (r["BN w/o centering"] / r["BN"]).mean(skipna=False)
    source = "Dan+20 App. C, Fig. 7"
    return [
        evaluate(
            id="rank_collapse.fig7.centering_accuracy_path",
            statement=(
                f"VGG19: BN with and without mean subtraction follow the same training-accuracy "
                f"path: the largest gap over the log points after initialization is at most "
                f"{path_tolerance:g}"
            ),
            source=source + " (left)",
            measured=float(gap.max(skipna=False)), relation="<=", bound=path_tolerance,
        ),
        evaluate(
            id="rank_collapse.fig7.centering_keeps_rank",
            statement=(
                f"VGG19: r(H_L) (Eq. (4)) without centering over r(H_L) with centering, averaged "
                f"over the log points, is 1 within {rank_tolerance:g}"
            ),
            source=source + " (right)",
            measured=float(ratio), relation="within", bound=1.0, tolerance=rank_tolerance,
        ),
    ]  # fmt: skip
