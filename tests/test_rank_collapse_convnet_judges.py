"""Claims of Dan+20's conv-net figures (Figs. 5, 7, 10, 13) and of Prop. 19: they pass on the
paper's picture and fail on a picture that contradicts it."""

import math

import pandas as pd
import pytest
from item_setups import quick_setup

from sigprop.papers.rank_collapse.breaking_bn_judges import fig5_claims, fig7_claims, fig13_claims
from sigprop.papers.rank_collapse.gradient_vanishing_judges import fig10_claims, judge_prop19
from sigprop.papers.rank_collapse.gradient_vanishing_theorems import measure_prop19


def curves(per_network: dict, points=3, runs=3, depth=19) -> pd.DataFrame:
    """network -> {metric: [value at each point]}; run r adds 0.001 r."""
    rows = []
    for network, metrics in per_network.items():
        for run in range(runs):
            for point in range(points):
                row = dict(network=network, depth=depth, lr=0.01, run=run, point=point,
                           epoch=float(point), iteration=10.0 * point)  # fmt: skip
                row |= {k: v[point] + 0.001 * run for k, v in metrics.items()}
                rows.append(row)
    return pd.DataFrame(rows)


def breaking(uncentered_acc=(0.1, 0.5, 0.78), asym_rank=(3, 1, 1), asym_acc=(0.1, 0.12, 0.12)):
    return curves({
        "BN": {"train_accuracy": [0.1, 0.5, 0.8], "rank": [128, 128, 128],
               "r_lower_bound": [1.5, 2.0, 3.0]},
        "BN asymmetric": {"train_accuracy": list(asym_acc), "rank": list(asym_rank),
                          "r_lower_bound": [1.0, 1.0, 1.0]},
        "BN w/o centering": {"train_accuracy": list(uncentered_acc), "rank": [128, 127, 128],
                             "r_lower_bound": [1.4, 2.1, 2.8]},
    })  # fmt: skip


def short(claims):
    return {c.id.split(".")[-1]: c for c in claims}


def test_breaking_bn_claims_pass_and_fail():
    for judge, prefix in ((fig5_claims, "fig5"), (fig13_claims, "fig13")):
        claims = short(judge(breaking(), 0.5, 0.1, 0.05))
        assert all(c.passed for c in claims.values()), claims
        assert claims["asymmetric_init_lowers_rank"].measured == pytest.approx(5 / 3 / 128, 1e-3)
        assert claims["centering_changes_little"].measured == pytest.approx(-0.02)
        assert all(c.id.startswith(f"rank_collapse.{prefix}.") for c in claims.values())
    # asymmetric keeps the rank and trains as well; no centering trains much worse
    failing = short(fig5_claims(breaking((0.1, 0.3, 0.5), (128, 120, 125), (0.1, 0.5, 0.79)),
                                0.5, 0.1, 0.05))  # fmt: skip
    assert {k: c.passed for k, c in failing.items()} == {
        "asymmetric_init_lowers_rank": False,
        "asymmetric_init_slows_training": False,
        "centering_changes_little": False,
    }


def test_fig7_claims_pass_and_fail():
    claims = short(fig7_claims(breaking(), 0.1, 0.25))
    assert all(c.passed for c in claims.values()), claims
    # gaps (without - with) at points 1, 2: 0 and -0.02, averaged per run
    assert claims["centering_mean_accuracy_gap"].measured == pytest.approx(-0.01)
    assert claims["centering_mean_accuracy_gap"].tolerance_reason.startswith("wording: App. C")
    bad = breaking((0.1, 0.1, 0.5))  # without centering trains much slower all the way
    bad.loc[bad["network"] == "BN w/o centering", "r_lower_bound"] *= 2
    assert {k: c.passed for k, c in short(fig7_claims(bad, 0.1, 0.25)).items()} == {
        "centering_mean_accuracy_gap": False,
        "centering_keeps_rank": False,
    }


def test_fig7_path_claim_reads_the_average_gap_not_the_largest():
    """'the centering does not affect the performance of BN' (App. C): two nets with the same
    path in law differ at single log points by run-to-run noise; the claim averages the gap over
    the path (it holds on noise of +-0.2 that alternates in sign), where the largest per-run gap
    (0.2, the old reading ``centering_accuracy_path``) would fail any margin of 0.1."""
    path, wobble = [0.1, 0.5, 0.6, 0.7, 0.8], [0.0, 0.2, -0.2, 0.2, -0.2]
    uncentered = [a + w for a, w in zip(path, wobble, strict=True)]
    table = curves({
        "BN": {"train_accuracy": path, "r_lower_bound": [2.0] * 5},
        "BN w/o centering": {"train_accuracy": uncentered, "r_lower_bound": [2.0] * 5},
    }, points=5)  # fmt: skip
    claims = short(fig7_claims(table, 0.1, 0.25))
    assert "centering_accuracy_path" not in claims
    assert claims["centering_mean_accuracy_gap"].measured == pytest.approx(0.0, abs=1e-12)
    assert claims["centering_mean_accuracy_gap"].verdict == "holds"
    assert "largest |gap| of a run over the points, means over runs: 0.2" in (
        claims["centering_mean_accuracy_gap"].statement
    )


def alignment_table(sgd_align=1.0, bn_align=0.6, random_acc=0.1, fast_acc=0.1, bn_acc=0.8,
                    real_loss=2.301):  # fmt: skip
    return curves({
        "BN": {"train_accuracy": [0.1, 0.5, bn_acc], "gradient_alignment": [bn_align] * 3,
               "train_loss": [2.303, 1.5, 0.7]},
        "SGD": {"train_accuracy": [0.1, 0.1, 0.1], "gradient_alignment": [1.0, 1.0, sgd_align],
                "train_loss": [2.303, 2.302, real_loss]},
        "SGD 100x lr": {"train_accuracy": [0.1, 0.1, fast_acc],
                        "gradient_alignment": [1.0, math.nan, math.nan],
                        "train_loss": [2.303, 2.33, 2.34]},
        "SGD random data": {"train_accuracy": [0.1, 0.1, random_acc],
                            "gradient_alignment": [1.0, 1.0, 1.0],
                            "train_loss": [2.303, 2.302, 2.301]},
    })  # fmt: skip


FIG10 = dict(min_alignment=0.99, max_bn_alignment=0.9, chance_margin=0.05,
             loss_path_margin=0.05, min_gap=0.1)  # fmt: skip


def test_fig10_claims_pass_and_fail():
    claims = short(fig10_claims(alignment_table(), **FIG10))
    assert {k: c.verdict for k, c in claims.items()} == dict.fromkeys(claims, "holds")
    assert claims["large_lr_stays_finite"].kind == "setup"
    # the 100x run's alignment is NaN: its accuracy is still judged, not its alignment
    assert claims["large_lr_does_not_help"].measured == pytest.approx(0.101)
    failing = short(fig10_claims(alignment_table(0.7, 0.95, 0.4, 0.6, 0.12, 1.2), **FIG10))
    assert {k: c.verdict for k, c in failing.items()} == {
        "vanilla_gradients_aligned": "fails",
        "bn_gradients_not_aligned": "fails",
        "vanilla_untrainable": "holds",
        "random_data_same_path": "fails",
        "large_lr_stays_finite": "holds",
        "large_lr_does_not_help": "fails",
        "bn_trains": "fails",
    }
    # a NaN in an alignment the claims read makes them invalid, never averaged around
    damaged = alignment_table()
    damaged.loc[(damaged["network"] == "SGD") & (damaged["point"] == 1), "gradient_alignment"] = (
        math.nan
    )
    assert short(fig10_claims(damaged, **FIG10))["vanilla_gradients_aligned"].verdict == "invalid"


def test_fig10_same_path_is_more_than_both_at_chance():
    """List 3: both nets at chance accuracy, but the real-image net lowers its loss (it uses
    its inputs): "the exact same path" fails, while vanilla_untrainable still holds."""
    claims = short(fig10_claims(alignment_table(real_loss=1.9), **FIG10))
    assert claims["vanilla_untrainable"].verdict == "holds"
    assert claims["random_data_same_path"].verdict == "fails"
    assert claims["random_data_same_path"].kind == "paper"


def test_fig10_a_diverged_100x_run_never_counts_as_untrained():
    """List 3: a 100x run that diverged (NaN loss, chance accuracy) fails the setup claim and is
    left out of the paper claim; if every 100x run diverged the paper claim is invalid."""
    table = alignment_table()
    fast = table["network"] == "SGD 100x lr"
    table.loc[fast & (table["run"] == 1) & (table["point"] == 2), "train_loss"] = math.nan
    claims = short(fig10_claims(table, **FIG10))
    assert claims["large_lr_stays_finite"].verdict == "fails"
    assert claims["large_lr_stays_finite"].measured == 1
    assert claims["large_lr_does_not_help"].n == 2  # runs 0 and 2 only
    table.loc[fast & (table["point"] == 2), "train_loss"] = math.inf
    claims = short(fig10_claims(table, **FIG10))
    assert claims["large_lr_stays_finite"].measured == 3
    assert claims["large_lr_does_not_help"].verdict == "invalid"
    # a finite 100x run that trains fails the paper claim
    trains = short(fig10_claims(alignment_table(fast_acc=0.7), **FIG10))
    assert trains["large_lr_stays_finite"].verdict == "holds"
    assert trains["large_lr_does_not_help"].verdict == "fails"


PROP19 = dict(exact_tolerance=1e-10, control_max=0.5, min_alignment=0.99, max_bn_alignment=0.9)


def test_prop19_measured_and_judged():
    """Rank-one features give |cos| = 1 to round-off; the controls separate."""
    table = measure_prop19(
        **quick_setup(
            "rank_collapse", "prop19", width=16, n_samples=24, depth=24, n_runs=2, device="cpu"
        )
    )
    by_case = table.groupby("case")
    assert (by_case["feature_rank"].max()[["rank_one", "rank_one_relu"]] == 1).all()
    assert by_case["feature_rank"].min()["full_rank"] == 16
    claims = short(judge_prop19(table, depth=24, width=16, **PROP19))
    assert all(c.passed for c in claims.values()), claims
    assert claims["rank_one_gradients_collinear"].measured <= 1e-12


def test_prop19_claims_fail_when_the_features_are_not_rank_one():
    table = measure_prop19(
        **quick_setup(
            "rank_collapse", "prop19", width=16, n_samples=24, depth=24, n_runs=2, device="cpu"
        )
    )
    swapped = table.copy()
    swapped["case"] = swapped["case"].map({"rank_one": "full_rank", "full_rank": "rank_one",
                                           "deep_vanilla": "deep_bn", "deep_bn": "deep_vanilla",
                                           "rank_one_relu": "rank_one_relu"})  # fmt: skip
    verdicts = {k: c.passed for k, c in short(judge_prop19(swapped, depth=24, width=16,
                                                             **PROP19)).items()}  # fmt: skip
    assert verdicts == {
        "rank_one_gradients_collinear": False,
        "rank_one_relu_gradients_collinear": True,
        "full_rank_control_not_aligned": False,
        "deep_vanilla_aligned": False,
        "deep_bn_not_aligned": False,
    }


def written(claim_list):
    """The claims as ``claims.write`` records them (requirements applied)."""
    from dataclasses import asdict

    from sigprop.verdicts import claims

    return {
        r["id"].split(".")[-1]: r
        for r in claims.apply_requirements([asdict(c) for c in claim_list], strict=False)
    }


def test_fig10_large_lr_claim_requires_every_100x_run_finite():
    """'even a 100x increase in the learning rate does not allow training' presumes the setup
    claim large_lr_stays_finite: with a diverged run it is invalid, its interval verdict on the
    finite runs kept in the note."""
    out = written(fig10_claims(alignment_table(), **FIG10))
    assert out["large_lr_does_not_help"]["verdict"] == "holds"
    assert out["large_lr_does_not_help"]["requires"] == "rank_collapse.fig10.large_lr_stays_finite"
    table = alignment_table()
    fast = table["network"] == "SGD 100x lr"
    table.loc[fast & (table["run"] == 1) & (table["point"] == 2), "train_loss"] = math.nan
    out = written(fig10_claims(table, **FIG10))
    assert out["large_lr_stays_finite"]["verdict"] == "fails"
    claim = out["large_lr_does_not_help"]
    assert claim["verdict"] == "invalid"
    assert claim["note"].startswith(
        "INVALID: requires rank_collapse.fig10.large_lr_stays_finite, which fails"
    )
    assert "its own interval verdict: holds" in claim["note"]
    assert out["vanilla_untrainable"]["verdict"] == "holds"  # presumes nothing


def test_prop19_alignment_claim_requires_the_full_rank_control():
    """The deep vanilla MLP's aligned gradients count only where full-rank features are not
    aligned (the control): a control that fails makes the paper claim invalid."""
    table = pd.DataFrame(
        [dict(case=case, run=run, mean_abs_cos=cos, min_abs_cos=cos, feature_rank=rank)
         for case, cos, rank in (("rank_one", 1.0, 1), ("rank_one_relu", 1.0, 1),
                                 ("full_rank", 0.15, 16), ("deep_vanilla", 0.999, 1),
                                 ("deep_bn", 0.3, 16))
         for run in range(3)]
    )  # fmt: skip
    table["mean_abs_cos"] += 0.001 * table["run"]
    out = written(judge_prop19(table, depth=24, width=16, **PROP19))
    assert {r["verdict"] for r in out.values()} == {"holds"}
    assert out["deep_vanilla_aligned"]["requires"] == (
        "rank_collapse.prop19.full_rank_control_not_aligned"
    )
    table.loc[table["case"] == "full_rank", "mean_abs_cos"] = 0.9 + 0.001 * table["run"]
    out = written(judge_prop19(table, depth=24, width=16, **PROP19))
    assert out["full_rank_control_not_aligned"]["verdict"] == "fails"
    assert out["deep_vanilla_aligned"]["verdict"] == "invalid"
    assert out["deep_bn_not_aligned"]["verdict"] == "holds"
