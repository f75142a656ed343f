"""Claims of Dan+20 App. H, directional gradient vanishing: Prop. 19 (from the
``gradient_vanishing_theorems.measure_prop19`` table) and Fig. 10 (from its plotted curves).
Torch-free.

"Gradient alignment" is our reading (the seed gives no formula): the mean |cos| between the
per-sample gradients of each row of the classification layer, averaged over rows
(``training.probes.gradient_alignment``). Every random quantity is a Student-t interval over
runs; a run that diverged (NaN from then on) is never counted as an untrained one.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...engine.stats import exact, t_mean
from ...verdicts.claims import Claim, Record
from .records import judge, largest_gaps, paired, per_run

__all__ = ["diverged_runs", "fig10_claims", "judge_prop19"]

SOURCE_PROP19 = "Dan+20 Prop. 19, Eq. (96) (App. H)"
SOURCE_FIG10 = "Dan+20 App. H, Fig. 10"

PROP19 = (
    *(
        Record(
            f"prop19.{case}_gradients_collinear",
            f"rank-one last-layer features h_i = c_i v ({reading}, d = {{width}}) under "
            "cross-entropy: the per-sample gradients of every row of W_{{L+1}} are collinear, "
            "|cos| = 1 for every pair (Eq. (96)); measured is 1 - the smallest |cos| over rows, "
            "pairs and runs (float64, torch.func)",
            SOURCE_PROP19, "identity", f"{case}_worst", "<=", "exact_tolerance",
            note="exact to round-off (a property of every sample): it tests our gradients",
            tolerance_reason="round_off: a float64 cosine of d-vectors carries round-off of "
            "about d x 1e-16 = {cos_round_off:.1g}; the budget {exact_tolerance:g} leaves "
            "orders of magnitude above it, prop19.exact_tolerance",
        )
        for case, reading in (("rank_one", "c_i of either sign"), ("rank_one_relu", "c_i >= 0"))
    ),
    Record(
        "prop19.full_rank_control_not_aligned",
        "control outside the hypothesis: Gaussian (full-rank) features in d = {width} give a "
        "mean |cos| of at most {control_max:g} between per-sample gradients",
        SOURCE_PROP19 + ", negative control", "control", "full_rank", "<=", "control_max",
        tolerance_reason="wording: 'not aligned' for the control read as a mean |cos| of at "
        "most {control_max:g}, far above E|cos| ~ sqrt(2 / (pi d)) = {random_cos:.2f} of "
        "independent Gaussian d-vectors and far below 1 - our threshold, prop19.control_max",
    ),
    Record(
        "prop19.deep_vanilla_aligned",
        "{net}, Gaussian inputs: the per-sample last-layer gradients are aligned, mean |cos| >= "
        "{min_alignment:g} (Sec. 4 and App. H: rank collapse makes the gradients collinear)",
        SOURCE_PROP19 + " with Lemma 3", "paper", "deep_vanilla", ">=", "min_alignment",
        tolerance_reason="wording: App. H's 'perfectly aligned gradients' (Fig. 10) read as a "
        "mean |cos| of at least {min_alignment:g} - our reading, prop19.min_alignment",
        requires=("prop19.full_rank_control_not_aligned",),
    ),
    Record(
        "prop19.deep_bn_not_aligned",
        "{net} with BN: the per-sample last-layer gradients are not aligned, mean |cos| <= "
        "{max_bn_alignment:g}",
        SOURCE_PROP19 + " with Thm. 2", "paper", "deep_bn", "<=", "max_bn_alignment",
        tolerance_reason="wording: with BN the gradients are not aligned (Thm. 2: the rank does "
        "not collapse, so Prop. 19's hypothesis fails): read as a mean |cos| of at most "
        "{max_bn_alignment:g} - our reading, prop19.max_bn_alignment (the seed prints no number)",
    ),
)  # fmt: skip


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
    context = {
        "width": width, "exact_tolerance": exact_tolerance, "control_max": control_max,
        "min_alignment": min_alignment, "max_bn_alignment": max_bn_alignment,
        "random_cos": math.sqrt(2 / (math.pi * width)), "cos_round_off": width * 1e-16,
        "net": f"untrained ReLU MLP of depth {depth}, width {width}, PyTorch default init",
        **{
            f"{case}_worst": exact(1.0 - by_case[case]["min_abs_cos"].min(skipna=False))
            for case in ("rank_one", "rank_one_relu")
        },
        "full_rank": t_mean(by_case["full_rank"]["mean_abs_cos"]),
        "deep_vanilla": t_mean(by_case["deep_vanilla"]["mean_abs_cos"]),
        "deep_bn": t_mean(by_case["deep_bn"]["mean_abs_cos"]),
    }  # fmt: skip
    return judge(PROP19, context, "rank_collapse.")


def diverged_runs(table: pd.DataFrame, network: str) -> list[int]:
    """The runs of ``network`` whose training loss is not finite at some log point."""
    rows = table[table["network"] == network]
    finite = rows.groupby("run")["train_loss"].agg(lambda v: bool(np.isfinite(v).all()))
    return sorted(int(r) for r, ok in finite.items() if not ok)


FIG10 = (
    Record(
        "vanilla_gradients_aligned",
        "VGG19 without BN: 'perfectly aligned gradients': the mean |cos| between per-sample "
        "gradients of the classification layer's rows stays >= {min_alignment:g}; measured is, "
        "run by run, its smallest value over the log points",
        SOURCE_FIG10 + " (right)", "paper", "sgd_alignment", ">=", "min_alignment",
        tolerance_reason="wording: App. H 'the network shows perfectly aligned gradients without "
        "BN': 'perfectly' read as a mean |cos| of at least {min_alignment:g} - our reading, "
        "fig10.min_alignment",
    ),
    Record(
        "bn_gradients_not_aligned",
        "VGG19 with BN: the per-sample gradients are not aligned, mean |cos| averaged over the "
        "log points <= {max_bn_alignment:g}; measured run by run",
        SOURCE_FIG10 + " (right)", "paper", "bn_alignment", "<=", "max_bn_alignment",
        tolerance_reason="wording: Fig. 10 (right) shows the BN net's alignment below the "
        "vanilla curves: read as a mean |cos| of at most {max_bn_alignment:g} - our reading, "
        "fig10.max_bn_alignment (the seed prints no number)",
    ),
    Record(
        "vanilla_untrainable",
        "aligned gradients render VGG19 without BN 'un-trainable': its training accuracy after "
        "{epochs:g} epochs stays within {chance_margin:g} of chance ({chance:g})",
        SOURCE_FIG10 + " (left)", "paper", "sgd_final", "<=", "chance_bound",
        tolerance_reason="wording: App. H '... which renders it un-trainable': read as a final "
        "training accuracy within {chance_margin:g} of chance - our reading, fig10.chance_margin",
    ),
    Record(
        "random_data_same_path",
        "on images drawn uniformly from [0, 255] (same labels) 'SGD takes almost the exact same "
        "path': the training loss of the net without BN on random and on real images differs "
        "by at most {loss_path_margin:g} x ln({n_classes}) (the loss at chance) at every log "
        "point; measured is, run by run, the largest gap over the log points after "
        "initialization, over ln({n_classes})",
        SOURCE_FIG10 + " (left)", "paper", "loss_path_gap", "<=", "loss_path_margin",
        tolerance_reason="wording: App. H 'SGD takes almost the exact same path on this data': "
        "'almost the exact same' read as a training-loss gap of at most {loss_path_margin:g} x "
        "the loss at chance at every log point - our reading, fig10.loss_path_margin",
        note="the path is compared on the training loss, not the accuracy: both accuracies "
        "sit at chance (vanilla_untrainable), so an accuracy gap is implied by that claim and "
        "cannot fail on its own; a net that learns anything from the real images lowers its "
        "loss below the random-data net's (largest accuracy gap, means over runs: {acc_gap:.3g})",
    ),
    Record(
        "large_lr_stays_finite",
        "setup of the 100x claim: VGG19 without BN at 100x the step size stays finite (no NaN or "
        "inf training loss at any log point) in every run; measured is the number of diverged "
        "runs out of {n_fast} (runs {diverged})",
        SOURCE_FIG10 + " (left)", "setup", "n_diverged", "<=", 0.0,
        note="a count of our runs (exact): a diverged run says nothing about whether a 100x "
        "step trains, so large_lr_does_not_help is measured on the finite runs only and "
        "presumes this claim (invalid when a run diverged)",
    ),
    Record(
        "large_lr_does_not_help",
        "'even a 100x increase in the learning rate does not allow training': VGG19 without BN "
        "at 100x the step size ends within {chance_margin:g} of chance ({chance:g}) after "
        "{epochs:g} epochs; measured on the {n_finite} of {n_fast} runs that stayed finite",
        SOURCE_FIG10 + " (left)", "paper", "fast_final", "<=", "chance_bound",
        note="a diverged run is not counted as untrained: the claim presumes "
        "large_lr_stays_finite (invalid when a run diverged; its interval verdict on the "
        "finite runs stays in the note); with no finite run the claim is invalid",
        tolerance_reason="wording: App. H 'even a 100x increase in the learning rate does not "
        "allow training': read as a final training accuracy within {chance_margin:g} of chance "
        "- our reading, fig10.chance_margin",
        requires=("large_lr_stays_finite",),
    ),
    Record(
        "bn_trains",
        "VGG19 with BN trains: its training accuracy after {epochs:g} epochs exceeds the net "
        "without BN's by at least {min_gap:g}; measured is, run by run, BN minus without",
        SOURCE_FIG10 + " (left)", "paper", "bn_gap", ">=", "min_gap",
        tolerance_reason="wording: Fig. 10 (left) contrasts the BN net with the 'un-trainable' "
        "net without BN: read as BN's final training accuracy at least {min_gap:g} above it - "
        "our reading, fig10.min_gap",
    ),
)  # fmt: skip


def _path_gaps(table: pd.DataFrame, metric: str) -> pd.Series:
    """Per run, the largest |real - random| of ``metric`` over the log points after init."""
    wide = table.pivot_table(index=["run", "point"], columns="network", values=metric,
                             dropna=False)  # fmt: skip
    return largest_gaps(wide, "SGD", "SGD random data")


def fig10_claims(
    table: pd.DataFrame,
    min_alignment: float,
    max_bn_alignment: float,
    chance_margin: float,
    loss_path_margin: float,
    min_gap: float,
    n_classes: int = 10,
) -> list[Claim]:
    """Dan+20 App. H on Fig. 10: without BN the per-sample gradients are "perfectly aligned",
    which "renders it un-trainable"; on uniform-noise images "SGD takes almost the exact same
    path"; "even a 100x increase in the learning rate does not allow training" (judged on the
    runs that stayed finite; it requires the setup claim that every run did); with BN the
    gradients are not aligned (and the net trains). One step size per network (no grid): the
    raw curves.

    Args:
        table: columns network (BN | SGD | SGD 100x lr | SGD random data), depth, lr, run,
            point, epoch, train_loss, train_accuracy, gradient_alignment.
        min_alignment: vanilla (SGD) alignment at every log point must be at least this.
        max_bn_alignment: BN's alignment, averaged over the log points, at most this.
        chance_margin: "un-trainable": final training accuracy within this of 1 / n_classes.
        loss_path_margin: "the exact same path": the largest training-loss gap between real and
            random images over the log points, as a fraction of ln(n_classes).
        min_gap: BN's final training accuracy must exceed vanilla's by this.
    """
    last = table[table["point"] == table["point"].max()]
    align = table.groupby(["network", "run"])["gradient_alignment"]
    fast = "SGD 100x lr"
    diverged = diverged_runs(table, fast)
    fast_final = per_run(last, "train_accuracy", network=fast)
    sgd_final = per_run(last, "train_accuracy", network="SGD")
    context = {
        "epochs": float(table["epoch"].max()), "chance": 1 / n_classes, "n_classes": n_classes,
        "chance_margin": chance_margin, "chance_bound": 1 / n_classes + chance_margin,
        "min_alignment": min_alignment, "max_bn_alignment": max_bn_alignment,
        "loss_path_margin": loss_path_margin, "min_gap": min_gap,
        "n_fast": fast_final.size, "n_finite": fast_final.size - len(diverged),
        "diverged": ", ".join(map(str, diverged)) or "none",
        "sgd_alignment": t_mean(align.agg(lambda v: v.min(skipna=False)).loc["SGD"]),
        "bn_alignment": t_mean(align.agg(lambda v: v.mean(skipna=False)).loc["BN"]),
        "sgd_final": t_mean(sgd_final),
        "loss_path_gap": t_mean(_path_gaps(table, "train_loss") / math.log(n_classes)),
        "acc_gap": _path_gaps(table, "train_accuracy").mean(),
        "n_diverged": exact(len(diverged)),
        "fast_final": t_mean(fast_final.drop(index=diverged)),
        "bn_gap": t_mean(paired(per_run(last, "train_accuracy", network="BN"), sgd_final)),
    }  # fmt: skip
    return judge(FIG10, context, "rank_collapse.fig10.")
