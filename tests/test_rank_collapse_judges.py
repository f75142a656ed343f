"""Each Dan+20 figure judge on data that satisfies it and on a counterexample that must fail it."""

import math

import numpy as np
import pandas as pd
import pytest

from sigprop.papers.rank_collapse import bn_chain_tables, chain_judges

RNG = np.random.default_rng(0)


def rank_table(bn_rank, vanilla_final, width=32, depth=50, runs=5):
    rows = []
    for net in ("BN", "vanilla"):
        for act in ("linear", "relu"):
            for run in range(runs):
                for layer in range(1, depth + 1):
                    if net == "BN":
                        rank = bn_rank
                    else:
                        rank = width + (vanilla_final - width) * layer / depth
                    rows.append((net, act, run, layer, float(rank)))
    return pd.DataFrame(rows, columns=["network", "activation", "run", "depth", "rank"])


def test_fig2_claims_pass_on_the_papers_picture():
    out = verdicts(chain_judges.fig2_claims(rank_table(10, 1), 32, 1.0))
    assert all(out.values()) and len(out) == 4


def test_fig2_claims_fail_when_bn_dips_below_sqrt_d_and_vanilla_keeps_rank():
    out = verdicts(chain_judges.fig2_claims(rank_table(5, 12), 32, 1.0))
    assert not any(out.values())


def verdicts(claims):
    return {c.id.rsplit(".", 1)[1]: c.passed for c in claims}


def chain_averages(rank_scale=1.0, alpha=(0.89, 0.85, 0.8), frob_exponent=1.5, runs=3):
    rows = []
    for gamma in (0.1, math.inf):
        for d, a in zip((16, 32, 64), alpha, strict=True):
            for run in range(runs):
                rank = rank_scale * 1.3 * d**0.62 * (1 + 0.01 * run)
                rows.append(
                    dict(
                        gamma=gamma,
                        width=d,
                        run=run,
                        **{
                            "soft_rank_0.25": rank * 1.05,
                            "soft_rank_0.5": rank,
                            "soft_rank_0.75": rank * 0.95,
                            "rank_lower_bound": rank * 0.7,
                            "alpha_hat": a + 0.001 * run,
                            "frobenius_m_squared": 1.1 * d**frob_exponent * (1 + 0.01 * run),
                        },
                    )
                )
    return pd.DataFrame(rows)


def test_ergodic_alpha_is_a_ratio_of_layer_averages():
    """Dan+20 Eq. (46), App. E: sum g2 / sum g1, not the mean of per-layer ratios."""
    frame = pd.DataFrame(
        {
            "gamma": 1.0,
            "width": 8,
            "run": 0,
            "layer": [1, 2],
            "trace_diag_m2_squared": [1.0, 9.0],
            "trace_m_cubed": [2.0, 10.0],
        }
    )
    out = bn_chain_tables.ergodic_averages(frame)
    assert out["alpha_hat"].item() == pytest.approx(10.0 / 12.0)


def test_fig3a_claims_pass_and_fail():
    claims = chain_judges.fig3a_claims(chain_averages(), [0.25, 0.5], 16)
    assert {c.verdict for c in claims} == {"holds"} and {c.kind for c in claims} == {"paper"}
    low = chain_judges.fig3a_claims(chain_averages(rank_scale=0.02), [0.25, 0.5], 16)
    assert {c.verdict for c in low if "above_theorem14_floor" in c.id} == {"fails"}


def test_fig3a_floor_claim_uses_the_constant_of_theorem_14_under_its_own_id():
    """Thm. 2 says Omega(sqrt d) and Sec. 3.1 says Fig. 3a shows 'the established lower bound';
    the claim uses Thm. 14's constant, (1 - 1/2)^2 sqrt((1 - alpha_hat) d), under an id that
    says so. The seed states no constant 1 for avg rank_1/2, so no claim of Fig. 3a keeps the
    old id ``above_sqrt_d`` (Fig. 2's ``above sqrt d`` is the numerical rank, fig2's claim). A
    rank below sqrt(d) but above the floor holds; below the floor it fails."""
    table = chain_averages(rank_scale=0.3)  # avg rank_1/2 ~ 0.3 x 1.3 d^0.62 < sqrt(d)
    assert (table["soft_rank_0.5"] < np.sqrt(table["width"])).all()
    made = chain_judges.fig3a_claims(table, [0.25, 0.5], 16)
    assert not [c for c in made if "above_sqrt_d" in c.id]
    above = [c for c in made if "above_theorem14_floor" in c.id]
    assert {c.id for c in above} == {
        "rank_collapse.fig3a.above_theorem14_floor_gamma_0.1",
        "rank_collapse.fig3a.above_theorem14_floor_gamma_inf",
    }
    assert {c.verdict for c in above} == {"holds"}
    assert all(c.tolerance_reason.startswith("none: Eq. (62)") for c in above)
    floor = 0.25 * np.sqrt((1 - table["alpha_hat"]) * table["width"])
    low = table.assign(**{"soft_rank_0.5": 0.8 * floor})
    made = chain_judges.fig3a_claims(low, [0.25, 0.5], 16)
    above = [c for c in made if "above_theorem14_floor" in c.id]
    assert {c.verdict for c in above} == {"fails"}
    assert all(c.measured == pytest.approx(0.8) for c in above)


def test_fig8_claims_pass_and_fail():
    assert all(c.passed for c in chain_judges.fig8_claims(chain_averages(), 0.9, 10))
    rising = chain_judges.fig8_claims(chain_averages(alpha=(0.92, 0.95, 1.01)), 0.9, 10)
    assert not any(c.passed for c in rising)


def test_fig9_claims_pass_and_fail():
    assert all(c.passed for c in chain_judges.fig9_claims(chain_averages(), 0.1))
    steep = chain_judges.fig9_claims(chain_averages(frob_exponent=1.8), 0.1)
    assert not any(c.passed for c in steep)


def singular_values(late_sigma1, late_small, runs=4, layers=20):
    rows = []
    for run in range(runs):
        for layer in range(layers + 1):
            early = layer == 0
            rows.append(
                dict(
                    gamma=1.0,
                    run=run,
                    layer=layer,
                    sigma_1=5.0 if early else late_sigma1,
                    sigma_2=0.01 if early else late_small * (1 + 0.1 * run),
                    sigma_3=0.005 if early else late_small / 2,
                )
            )
    return pd.DataFrame(rows)


def test_fig3b_claims_pass_and_fail():
    assert all(c.passed for c in chain_judges.fig3b_claims(singular_values(3.0, 1.0), 10.0))
    frozen = chain_judges.fig3b_claims(singular_values(5.5, 0.02), 10.0)
    assert not any(c.passed for c in frozen)


def small_batch_table(smallest_rank_sqrt=None, square_rank=None, widths=(16, 64), runs=3):
    """A Sec. 3.1 table: N = round(sqrt d) batches keep rank N, except that the d = 16 batch drops
    to ``smallest_rank_sqrt`` at the last layer; N = d batches end at ``square_rank`` (d / 3)."""
    rows = []
    for gamma in (1.0, math.inf):
        for d in widths:
            for batch, n in (("sqrt_d", round(math.sqrt(d))), ("square", d)):
                for run in range(runs):
                    for layer in (0, 10, 20):
                        rank = n
                        lost = smallest_rank_sqrt is not None and d == 16 and layer == 20
                        if batch == "sqrt_d" and lost:
                            rank = smallest_rank_sqrt
                        if batch == "square" and layer > 0:
                            rank = d // 3 if square_rank is None else square_rank
                        rows.append((gamma, batch, d, run, layer, rank / n, float(n)))
    columns = ["gamma", "batch", "width", "run", "layer", "rank_fraction", "batch_size"]
    return pd.DataFrame(rows, columns=columns)


def test_sec3_1_claims_hold_on_full_rank_and_fail_when_a_direction_is_lost():
    """Dan+20 (seed 002) Sec. 3.1: full rank at N = O(sqrt d); the N = d contrast."""
    held = chain_judges.sec3_1_claims(small_batch_table(), rank_tolerance=0)
    assert len(held) == 8 and all(c.passed for c in held)
    lost = {c.id: c for c in chain_judges.sec3_1_claims(small_batch_table(3), rank_tolerance=0)}
    assert not lost["rank_collapse.sec3_1.full_rank_d16_g1"].passed
    assert lost["rank_collapse.sec3_1.full_rank_d16_g1"].measured == 3
    assert lost["rank_collapse.sec3_1.full_rank_d64_ginf"].passed  # 8 > 3 only at d = 16
    full = {c.id: c for c in chain_judges.sec3_1_claims(small_batch_table(square_rank=64), 0)}
    assert not full["rank_collapse.sec3_1.square_deficient_d64_g1"].passed


def fig1_table(bn_deep_accuracy=0.85, vanilla_deep_rank=1.0):
    """A Fig. 1 table: point 0 (init) and point 1 (after training), two runs, two rates."""
    rows = []
    for network in ("BN", "vanilla"):
        for depth in (1, 4, 16, 32):
            for lr in (0.01, 0.1):
                for run in (0, 1):
                    if network == "BN":
                        rank, acc = 128.0, 0.9 if depth < 32 else bn_deep_accuracy
                    else:
                        rank = 128.0 if depth < 16 else vanilla_deep_rank
                        acc = 0.85 if depth < 16 else 0.1
                    acc -= 0.2 if lr == 0.01 else 0.0  # the grid search must pick 0.1
                    for point, epoch in ((0, 0.0), (1, 6.0)):
                        rows.append(
                            dict(network=network, depth=depth, lr=lr, run=run, point=point,
                                 epoch=epoch, rank=rank, train_accuracy=acc if point else 0.1)
                        )  # fmt: skip
    return pd.DataFrame(rows)


FIG1_ARGS = dict(
    width=128, collapse_fraction=0.1, keep_fraction=0.9, learn_depth=10, chance_margin=0.05,
    mild_drop=0.1, min_gap=0.3,
)  # fmt: skip


def test_fig1_claims_pass_and_fail():
    from sigprop.papers.rank_collapse.training_judges import chosen_learning_rates, fig1_claims

    verdicts = {c.id.split(".")[-1]: c for c in fig1_claims(fig1_table(), **FIG1_ARGS)}
    assert all(c.passed for c in verdicts.values()), verdicts
    assert verdicts["bn_drops_mildly"].measured == pytest.approx(0.05)
    final = fig1_table().query("point == 1")
    assert set(chosen_learning_rates(final)["lr"]) == {0.1}
    failing = {
        c.id.split(".")[-1]: c.passed for c in fig1_claims(fig1_table(0.5, 40.0), **FIG1_ARGS)
    }
    assert failing["bn_drops_mildly"] is False and failing["vanilla_rank_collapses"] is False
    assert failing["bn_beats_vanilla_deep"] is True  # 0.5 - 0.1 >= 0.3


def test_cor15_table_and_claims():
    """Min rank_tau against Thm. 14's constant, and the share of rising steps, per chain."""
    from sigprop.papers.rank_collapse.bn_chain_tables import cor15_table
    from sigprop.papers.rank_collapse.corollary15_judges import cor15_claims

    ranks = [5.0, 4.0, 6.0, 3.0, 3.0]  # one rise in four steps, minimum 3
    frame = pd.DataFrame(
        {
            "gamma": math.inf, "width": 16, "run": 0, "layer": [10, 15, 20, 25, 30],
            "soft_rank_0.5": ranks, "trace_diag_m2_squared": 3.0, "trace_m_cubed": 4.0,
        }
    )  # fmt: skip
    row = cor15_table(frame, [0.5]).iloc[0]
    bound = 0.25 * math.sqrt(0.25 * 16)  # alpha_hat = 3 / 4
    assert (row["min_rank"], row["increase_fraction"]) == (3.0, 0.25)
    assert row["bound"] == pytest.approx(bound) and row["ratio"] == pytest.approx(3.0 / bound)
    verdicts = {c.id: c.passed for c in cor15_claims(cor15_table(frame, [0.5]), 0.3)}
    assert verdicts == {
        "rank_collapse.cor15.min_rank_tau0.5": True,
        "rank_collapse.cor15.monotone_tau0.5": True,  # 0.25 <= 0.3: the assumption nearly holds
    }


def test_eq52_table_and_claims():
    """delta_F / (2 d^2) = 0 exactly on M = I (an orthogonal state); a rank-one state drifts."""
    from sigprop.papers.rank_collapse.bn_chain_tables import eq52_table
    from sigprop.papers.rank_collapse.invariance_judges import eq52_claims

    d = 4
    identity = dict(frobenius_m_squared=d, trace_m_cubed=d, trace_diag_m2_squared=d)
    rank_one = dict(frobenius_m_squared=d**2, trace_m_cubed=d**3, trace_diag_m2_squared=d**3)
    rows = [
        dict(gamma=g, width=d, run=r, layer=k, **(identity if g < 1 or k % 2 else rank_one))
        for g in (0.1, 1.0, math.inf) for r in (0, 1) for k in range(4)
    ]  # fmt: skip
    table = eq52_table(pd.DataFrame(rows)).set_index("gamma")
    # M = I: (2 d^2 - 2 d - 8 d + 8 d) / (2 d^2) = 1 - 1/d; M = d e e^T: (2d^2 - 2d^2) / 2d^2 = 0
    assert table.loc[0.1, "mean_drift"] == pytest.approx(1 - 1 / d)
    assert table.loc[1.0, "mean_drift"] == pytest.approx((1 - 1 / d) / 2)
    verdicts = {c.id.split(".")[-1]: c for c in eq52_claims(table.reset_index(), 0.1)}
    assert verdicts["small_gamma_near_zero"].passed is False  # 0.75 > 0.1
    assert verdicts["shrinks_with_gamma"].measured == pytest.approx(2.0)
    assert verdicts["shrinks_with_gamma"].passed is False


def curves_table(final, init_r, lrs=(0.01, 0.1), runs=3, epochs=4.0, diverged_lr=None):
    """A training table: point 0 and point 1 per (network, depth, lr, run). ``final``:
    (network, depth) -> {metric: value at the last point at lr 0.1}; lr 0.01 is worse by 0.2 in
    every metric (the search must pick 0.1); ``init_r`` (network, depth) -> r(H_L) at point 0.
    ``diverged_lr``: a grid point whose run 1 is NaN from point 1 on."""
    rows = []
    for (network, depth), metrics in final.items():
        for lr in lrs:
            for run in range(runs):
                for point in (0, 1):
                    row = dict(network=network, depth=depth, lr=lr, run=run, point=point,
                               epoch=epoch if (epoch := epochs * point) else 0.0,
                               r_lower_bound=init_r[network, depth] + 0.01 * run)  # fmt: skip
                    for name, value in metrics.items():
                        worse = -0.2 if "accuracy" in name else 0.2
                        row[name] = value + (worse if lr == 0.01 else 0.0) + 0.001 * run
                    if point and lr == diverged_lr and run == 1:
                        row.update({k: float("nan") for k in (*metrics, "r_lower_bound")})
                    rows.append(row)
    return pd.DataFrame(rows)


def fig4_table(pre_deep_loss=0.6, diverged_lr=None):
    losses = {
        ("vanilla", 8): 0.5, ("vanilla", 32): 2.3,
        ("pre-trained", 8): 0.5, ("pre-trained", 32): pre_deep_loss,
        ("BN", 8): 0.45, ("BN", 32): 0.7,
    }  # fmt: skip
    final = {
        key: {"train_loss": loss, "train_accuracy": 1 - loss / 3, "test_loss": loss + 0.1}
        for key, loss in losses.items()
    }
    init_r = {k: 1.0 if k[0] == "vanilla" else 10.0 for k in losses}
    return curves_table(final, init_r, diverged_lr=diverged_lr)


def test_fig4_and_fig11_claims_pass_and_fail():
    from sigprop.papers.rank_collapse.training_judges import fig4_claims, fig11_claims

    claims = {c.id.split(".")[-1]: c for c in fig4_claims(fig4_table(), 2.0, 0.5)}
    assert all(c.passed for c in claims.values()), claims
    # (0.6 - 0.5) - 0.5 x (2.3 - 0.5): the pre-trained net's slowdown minus half vanilla's
    slowdown = claims["pretraining_reduces_train_loss_slowdown"].measured
    assert slowdown == pytest.approx(0.1 - 0.5 * 1.8, rel=1e-6)
    assert claims["pretraining_faster_than_bn_deep"].measured == pytest.approx(-0.1)
    slow = {c.id.split(".")[-1]: c.passed for c in fig4_claims(fig4_table(1.8), 2.0, 0.5)}
    assert slow == {
        "pretraining_raises_rank": True,
        "pretraining_reduces_train_loss_slowdown": False,  # 1.3 / 1.8 > 0.5
        "pretraining_faster_than_bn_deep": False,
    }
    fig11 = {c.id.split(".")[-1]: c.passed for c in fig11_claims(fig4_table(1.8), 0.5, 2.0)}
    assert fig11 == {
        "pretraining_raises_rank": True,
        "pretraining_reduces_train_accuracy_slowdown": False,
        "pretraining_reduces_test_loss_slowdown": False,
    }
    assert all(c.passed for c in fig11_claims(fig4_table(), 0.5, 2.0))


def test_fig4_pretraining_raises_rank_is_a_setup_check_that_can_fail():
    """List 3: Algorithm 1 maximizes the rank it is judged on, so the claim is ``setup``; it
    fails when pre-training leaves r(H_L) where it was."""
    from sigprop.papers.rank_collapse.training_judges import fig4_claims, fig12_claims

    for judge in (fig4_claims, fig12_claims):
        claims = {c.id.split(".")[-1]: c for c in judge(fig4_table(), 2.0, 0.5)}
        assert claims["pretraining_raises_rank"].kind == "setup"
        assert claims["pretraining_raises_rank"].verdict == "holds"
        assert {c.kind for k, c in claims.items() if k != "pretraining_raises_rank"} == {"paper"}
    table = fig4_table()
    pre = table["network"] == "pre-trained"
    table.loc[pre, "r_lower_bound"] = table.loc[pre, "run"].map(lambda r: 1.0 + 0.01 * r)
    claims = {c.id.split(".")[-1]: c for c in fig4_claims(table, 2.0, 0.5)}
    assert claims["pretraining_raises_rank"].verdict == "fails"


def test_the_grid_search_never_picks_a_diverged_rate():
    """A NaN run at lr 0.1 makes that grid point's mean NaN: the search takes 0.01, and every
    claim is still finite; if every rate diverged, the search refuses."""
    from sigprop.papers.rank_collapse.training_judges import chosen_learning_rates, fig4_claims

    table = fig4_table(diverged_lr=0.1)
    final = table[table["point"] == 1]
    assert set(chosen_learning_rates(final, "train_loss")["lr"]) == {0.01}
    assert all(c.passed is not None for c in fig4_claims(table, 2.0, 0.5))
    final = final.assign(train_loss=float("nan"))
    with pytest.raises(ValueError, match="every learning rate diverged"):
        chosen_learning_rates(final, "train_loss")


def fig6_table(acc75=0.7, asym_r=1.0, end_r=None):
    init_r = {("vanilla", 32): 1.0, ("pre-trained 25", 32): 10.0, ("pre-trained 75", 32): 20.0,
              ("BN", 32): 8.0, ("BN asymmetric", 32): asym_r}  # fmt: skip
    acc = {"vanilla": 0.1, "pre-trained 25": 0.6, "pre-trained 75": acc75, "BN": 0.8,
           "BN asymmetric": 0.12}  # fmt: skip
    table = curves_table({k: {"train_accuracy": acc[k[0]]} for k in init_r}, init_r)
    if end_r is not None:  # r(H_L) after training, per network
        last = table["point"] == 1
        table.loc[last, "r_lower_bound"] = table.loc[last, "network"].map(end_r)
    return table


def test_fig6_claims_pass_and_fail():
    from sigprop.papers.rank_collapse.training_judges import fig6_claims

    claims = {c.id.split(".")[-1]: c for c in fig6_claims(fig6_table(), 0.6, 0.05, 0.5)}
    assert all(c.passed for c in claims.values()), claims
    assert claims["sgd_keeps_rank_order"].measured == pytest.approx(1.0)
    assert claims["pretraining_level_orders_accuracy"].measured == pytest.approx(0.1)
    # the quick run's picture: pre-trained ranks fall below BN's, 75 iterations train worse
    swapped = {"vanilla": 1.0, "pre-trained 25": 2.7, "pre-trained 75": 2.4, "BN": 6.8,
               "BN asymmetric": 1.0}  # fmt: skip
    failing = {
        c.id.split(".")[-1]: c.passed
        for c in fig6_claims(fig6_table(0.4, 6.0, swapped), 0.6, 0.05, 0.5)
    }
    assert failing == {
        "pretraining_levels_raise_rank": True,  # 1 -> 10 -> 20 at initialization
        "sgd_keeps_rank_order": False,
        "pretraining_level_orders_accuracy": False,
        "asymmetric_init_lowers_bn_rank": False,  # 6 / 8 > 0.5
        "asymmetric_init_slows_bn": True,
    }


def test_figure_bands_stay_within_the_quantitys_range():
    """Fig. 1's bands: the t interval over runs of a rank near 0 or an accuracy near 1 would
    leave the range; clip="auto" (the default, in every family's figures) cuts it there, and
    clip=None leaves the raw t band."""
    from sigprop.verdicts import plotting

    table = pd.DataFrame(
        {"depth": 1, "run": [0, 1, 2], "rank": [0.0, 0.0, 3.0], "train_accuracy": [1, 1, 0.7]}
    )
    for column, (low, high) in (("rank", (0.0, math.inf)), ("train_accuracy", (0.0, 1.0))):
        raw = plotting.run_summary(table, "depth", column, clip=None)
        assert raw["low"].item() < low or raw["high"].item() > high  # the unclipped band leaves
        clipped = plotting.run_summary(table, "depth", column)
        assert low <= clipped["low"].item() <= clipped["high"].item() <= high
        assert clipped["mean"].item() == raw["mean"].item()
    assert plotting.quantity_range("log_rank") is None
    assert plotting.quantity_range("soft_rank_0.5") == (0.0, None)


def written(claim_list):
    """The claims as ``claims.write`` records them: a claim whose requirement does not hold is
    invalid (``claims.apply_requirements``)."""
    from dataclasses import asdict

    from sigprop.verdicts import claims

    return {
        r["id"].split(".")[-1]: r
        for r in claims.apply_requirements([asdict(c) for c in claim_list], strict=False)
    }


def test_pretraining_claims_require_that_pretraining_raised_the_rank():
    """Figs. 4, 11, 12: the slowdown and faster-than-BN claims presume the setup claim
    pretraining_raises_rank of the same item; when pre-training left r(H_L) where it was, they
    are invalid and say why, while their own interval verdicts stay in the note."""
    from sigprop.papers.rank_collapse.training_judges import (
        fig4_claims,
        fig11_claims,
        fig12_claims,
    )

    table = fig4_table()
    for made in (fig4_claims(table, 2.0, 0.5), fig12_claims(table, 2.0, 0.5),
                 fig11_claims(table, 0.5, 2.0)):  # fmt: skip
        out = written(made)
        assert {r["verdict"] for r in out.values()} == {"holds"}
        prefix = made[0].id.rsplit(".", 1)[0]
        for name, r in out.items():
            if name != "pretraining_raises_rank":
                assert r["requires"] == f"{prefix}.pretraining_raises_rank"
    pre = table["network"] == "pre-trained"
    table.loc[pre, "r_lower_bound"] = table.loc[pre, "run"].map(lambda r: 1.0 + 0.01 * r)
    for made in (fig4_claims(table, 2.0, 0.5), fig11_claims(table, 0.5, 2.0)):
        out = written(made)
        assert out.pop("pretraining_raises_rank")["verdict"] == "fails"
        assert {r["verdict"] for r in out.values()} == {"invalid"}
        for r in out.values():
            assert r["note"].startswith("INVALID: requires rank_collapse.fig")
            assert "its own interval verdict: holds" in r["note"]


def test_pretraining_level_claim_requires_levels_of_rank():
    """Fig. 6: 'the level of pre-training' is a level of rank only if each level raised r(H_L)
    at initialization (setup claim pretraining_levels_raise_rank); if 75 iterations left a lower
    rank than 25, the level claim is invalid."""
    from sigprop.papers.rank_collapse.training_judges import fig6_claims

    out = written(fig6_claims(fig6_table(), 0.6, 0.05, 0.5))
    assert out["pretraining_levels_raise_rank"]["verdict"] == "holds"
    assert out["pretraining_levels_raise_rank"]["kind"] == "setup"
    assert out["pretraining_level_orders_accuracy"]["verdict"] == "holds"
    table = fig6_table()
    at_75 = table["network"] == "pre-trained 75"
    table.loc[at_75 & (table["point"] == 0), "r_lower_bound"] = 5.0  # below 25's 10
    out = written(fig6_claims(table, 0.6, 0.05, 0.5))
    assert out["pretraining_levels_raise_rank"]["verdict"] == "fails"
    level = out["pretraining_level_orders_accuracy"]
    assert level["verdict"] == "invalid"
    assert level["note"].startswith(
        "INVALID: requires rank_collapse.fig6.pretraining_levels_raise_rank, which fails"
    )
    assert out["sgd_keeps_rank_order"]["verdict"] != "invalid"  # presumes nothing


def test_sec3_1_full_rank_requires_the_square_batch_control():
    """Full rank at N = round(sqrt d) is a finding only where the N = d control of the same
    chain loses rank; when the control keeps rank N, the full-rank claim is invalid."""
    out = {r["id"]: r for r in written(chain_judges.sec3_1_claims(small_batch_table(), 0)).values()}
    assert all(r["verdict"] == "holds" for r in out.values())
    assert (
        out["rank_collapse.sec3_1.full_rank_d16_g1"]["requires"]
        == "rank_collapse.sec3_1.square_deficient_d16_g1"
    )
    made = chain_judges.sec3_1_claims(small_batch_table(square_rank=64), 0)
    out = {r["id"]: r for r in written(made).values()}
    assert out["rank_collapse.sec3_1.square_deficient_d64_g1"]["verdict"] == "fails"
    assert out["rank_collapse.sec3_1.full_rank_d64_g1"]["verdict"] == "invalid"
    assert out["rank_collapse.sec3_1.full_rank_d64_g1"]["note"].startswith(
        "INVALID: requires rank_collapse.sec3_1.square_deficient_d64_g1, which fails"
    )


def test_every_margin_of_the_family_states_its_reason():
    """Every claim record of the family with a non-zero tolerance states where the tolerance
    comes from (claims.TOLERANCE_REASONS), except identities, whose default is round_off; a
    reason that is a plain string names its category first."""
    import importlib

    from sigprop.verdicts.claims import TOLERANCE_REASONS, Record

    modules = ["chain_judges", "training_judges", "breaking_bn_judges", "corollary15_judges",
               "gradient_vanishing_judges", "bn_chain_lemma_judges", "spectral_lemma_judges",
               "invariance_judges"]  # fmt: skip
    records = []
    for name in modules:
        module = importlib.import_module(f"sigprop.papers.rank_collapse.{name}")
        for value in vars(module).values():
            found = value if isinstance(value, tuple) else (value,)
            records += [r for r in found if isinstance(r, Record)]
    assert len(records) > 70
    for r in records:
        if r.tolerance not in (0, 0.0) and r.kind != "identity":
            assert r.tolerance_reason, r.id
        if isinstance(r.tolerance_reason, str) and r.tolerance_reason:
            assert r.tolerance_reason.split(":")[0] in TOLERANCE_REASONS, r.id


def test_largest_gaps_per_run_after_initialization():
    """max over points > 0 of |a - b| per run; point 0 (the shared initial net) is left out and
    a NaN anywhere after it makes the run's gap NaN."""
    from sigprop.papers.rank_collapse.records import largest_gaps

    index = pd.MultiIndex.from_product([[0, 1], [0, 1, 2]], names=["run", "point"])
    wide = pd.DataFrame(
        {"a": [9.0, 1.0, 2.0, 0.0, 1.0, math.nan], "b": [0.0, 1.5, 0.5, 5.0, 0.0, 0.0]},
        index=index,
    )
    gaps = largest_gaps(wide, "a", "b")
    assert gaps.loc[0] == 1.5 and math.isnan(gaps.loc[1])
