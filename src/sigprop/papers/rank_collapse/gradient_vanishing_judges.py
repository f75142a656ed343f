"""Claims of Dan+20 App. H, directional gradient vanishing: Prop. 19 (from the
``gradient_vanishing.measure_prop19`` table) and Fig. 10 (from its plotted curves). Torch-free.

"Gradient alignment" is our reading (the seed gives no formula): the mean |cos| between the
per-sample gradients of each row of the classification layer, averaged over rows
(``training.probes.gradient_alignment``).
"""

from __future__ import annotations

import pandas as pd

from ...claims import Claim, evaluate
from ...stats import mean_se
from .training_judges import curves_at_chosen_rates, per_point_means

__all__ = ["fig10_claims", "judge_prop19"]

SOURCE_PROP19 = "Dan+20 Prop. 19, Eq. (96) (App. H)"
SOURCE_FIG10 = "Dan+20 App. H, Fig. 10"


def judge_prop19(
    table: pd.DataFrame,
    *,
    exact_tolerance: float,
    control_max: float,
    min_alignment: float,
    max_bn_alignment: float,
    depth: int,
    width: int,
    **_settings,
) -> list[Claim]:
    """Prop. 19 holds exactly on rank-one features (either sign, and after a ReLU); a full-rank
    control is far from aligned; an untrained deep vanilla MLP's H_L aligns the gradients, a BN
    MLP's does not (the mechanism of Fig. 10).

    Args:
        table: ``measure_prop19``'s rows (case, run, mean_abs_cos, min_abs_cos, feature_rank).
        exact_tolerance: 1 - |cos| allowed on rank-one features (float64 round-off).
        control_max: the full-rank control's mean |cos| must be at most this.
        min_alignment, max_bn_alignment: the deep vanilla MLP's mean |cos| at least the first,
            the BN MLP's at most the second.
    """
    by_case = {case: rows for case, rows in table.groupby("case")}
    claims = []
    for case, reading in (("rank_one", "c_i of either sign"), ("rank_one_relu", "c_i >= 0")):
        worst = 1.0 - by_case[case]["min_abs_cos"].min(skipna=False)
        claims.append(
            evaluate(
                id=f"rank_collapse.prop19.{case}_gradients_collinear",
                statement=(
                    f"rank-one last-layer features h_i = c_i v ({reading}, d = {width}) under "
                    f"cross-entropy: the per-sample gradients of every row of W_{{L+1}} are "
                    f"collinear, |cos| = 1 for every pair (Eq. (96)); measured is 1 - the "
                    f"smallest |cos| over rows, pairs and runs (float64, torch.func)"
                ),
                source=SOURCE_PROP19,
                measured=worst, relation="<=", bound=exact_tolerance,
            )
        )  # fmt: skip
    mean, se = mean_se(by_case["full_rank"]["mean_abs_cos"].to_numpy())
    claims.append(
        evaluate(
            id="rank_collapse.prop19.full_rank_control_not_aligned",
            statement=(
                f"control outside the hypothesis: Gaussian (full-rank) features in d = {width} "
                f"give a mean |cos| of at most {control_max:g} between per-sample gradients"
            ),
            source=SOURCE_PROP19 + ", negative control",
            measured=mean, measured_se=se, relation="<=", bound=control_max,
        )
    )  # fmt: skip
    vanilla, vanilla_se = mean_se(by_case["deep_vanilla"]["mean_abs_cos"].to_numpy())
    bn, bn_se = mean_se(by_case["deep_bn"]["mean_abs_cos"].to_numpy())
    net = f"untrained ReLU MLP of depth {depth}, width {width}, PyTorch default init"
    claims += [
        evaluate(
            id="rank_collapse.prop19.deep_vanilla_aligned",
            statement=(
                f"{net}, Gaussian inputs: the per-sample last-layer gradients are aligned, mean "
                f"|cos| >= {min_alignment:g} (Sec. 4 and App. H: rank collapse makes the "
                f"gradients collinear)"
            ),
            source=SOURCE_PROP19 + " with Lemma 3",
            measured=vanilla, measured_se=vanilla_se, relation=">=", bound=min_alignment,
        ),
        evaluate(
            id="rank_collapse.prop19.deep_bn_not_aligned",
            statement=(
                f"{net} with BN: the per-sample last-layer gradients are not aligned, mean "
                f"|cos| <= {max_bn_alignment:g}"
            ),
            source=SOURCE_PROP19 + " with Thm. 2",
            measured=bn, measured_se=bn_se, relation="<=", bound=max_bn_alignment,
        ),
    ]  # fmt: skip
    return claims


def fig10_claims(
    table: pd.DataFrame,
    min_alignment: float,
    max_bn_alignment: float,
    chance_margin: float,
    path_tolerance: float,
    min_gap: float,
    n_classes: int = 10,
) -> list[Claim]:
    """Dan+20 App. H on Fig. 10: without BN the per-sample gradients are "perfectly aligned",
    which "renders it un-trainable"; on uniform-noise images "SGD takes almost the exact same
    path"; "even a 100x increase in the learning rate does not allow training"; with BN the
    gradients are not aligned (and the net trains).

    Args:
        table: columns network (BN | SGD | SGD 100x lr | SGD random data), depth, lr, run,
            point, epoch, train_accuracy, gradient_alignment.
        min_alignment: vanilla (SGD) alignment at every log point must be at least this.
        max_bn_alignment: BN's alignment, averaged over the log points, at most this.
        chance_margin: "un-trainable": final training accuracy within this of 1 / n_classes.
        path_tolerance: "the exact same path": largest accuracy gap over log points.
        min_gap: BN's final training accuracy must exceed vanilla's by this.
    """
    curves = curves_at_chosen_rates(table, "train_accuracy")
    last = curves["point"].max()
    epochs = float(table["epoch"].max())
    accuracy = {n: per_point_means(curves, n, "train_accuracy") for n in curves["network"].unique()}
    alignment = {n: per_point_means(curves, n, "gradient_alignment") for n in ("SGD", "BN")}
    chance = 1 / n_classes
    gap = (accuracy["SGD"] - accuracy["SGD random data"]).abs()

    def final(name: str) -> tuple[float, float]:
        rows = curves[(curves["network"] == name) & (curves["point"] == last)]
        return mean_se(rows["train_accuracy"].to_numpy())

    sgd, sgd_se = final("SGD")
    fast, fast_se = final("SGD 100x lr")
    bn, _ = final("BN")
    return [
        evaluate(
            id="rank_collapse.fig10.vanilla_gradients_aligned",
            statement=(
                f"VGG19 without BN: 'perfectly aligned gradients': the mean |cos| between "
                f"per-sample gradients of the classification layer's rows stays >= "
                f"{min_alignment:g}; measured is its smallest value over the log points"
            ),
            source=SOURCE_FIG10 + " (right)",
            measured=float(alignment["SGD"].min(skipna=False)), relation=">=", bound=min_alignment,
        ),
        evaluate(
            id="rank_collapse.fig10.bn_gradients_not_aligned",
            statement=(
                f"VGG19 with BN: the per-sample gradients are not aligned, mean |cos| averaged "
                f"over the log points <= {max_bn_alignment:g}"
            ),
            source=SOURCE_FIG10 + " (right)",
            measured=float(alignment["BN"].mean(skipna=False)),
            relation="<=", bound=max_bn_alignment,
        ),
        evaluate(
            id="rank_collapse.fig10.vanilla_untrainable",
            statement=(
                f"aligned gradients render VGG19 without BN 'un-trainable': its training "
                f"accuracy after {epochs:g} epochs stays within {chance_margin:g} of chance "
                f"({chance:g})"
            ),
            source=SOURCE_FIG10 + " (left)",
            measured=sgd, measured_se=sgd_se, relation="<=", bound=chance + chance_margin,
        ),
        evaluate(
            id="rank_collapse.fig10.random_data_same_path",
            statement=(
                f"on images drawn uniformly from [0, 255] (same labels) 'SGD takes almost the "
                f"exact same path': the largest gap in training accuracy between real and "
                f"random images over the log points is at most {path_tolerance:g}"
            ),
            source=SOURCE_FIG10 + " (left)",
            measured=float(gap.max(skipna=False)), relation="<=", bound=path_tolerance,
        ),
        evaluate(
            id="rank_collapse.fig10.large_lr_does_not_help",
            statement=(
                f"'even a 100x increase in the learning rate does not allow training': VGG19 "
                f"without BN at 100x the step size ends within {chance_margin:g} of chance "
                f"({chance:g}) after {epochs:g} epochs (a diverged run counts as untrained)"
            ),
            source=SOURCE_FIG10 + " (left)",
            measured=fast, measured_se=fast_se, relation="<=", bound=chance + chance_margin,
        ),
        evaluate(
            id="rank_collapse.fig10.bn_trains",
            statement=(
                f"VGG19 with BN trains: its training accuracy after {epochs:g} epochs exceeds "
                f"the net without BN's by at least {min_gap:g}; measured is BN minus without"
            ),
            source=SOURCE_FIG10 + " (left)",
            measured=bn - sgd, relation=">=", bound=min_gap,
        ),
    ]  # fmt: skip
