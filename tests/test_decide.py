"""Tests of sigprop.pipeline.decide: more runs for undecided claims without inflating the error
rate.

The simulations decide claims whose true value sits on their limit, so every hold or fail is a
wrong decision (both intervals exclude the true value). They run the command's own procedure
(``decide.sequential`` over ``decide.levels``, each look judged by ``claims.evaluate`` at its
level, as the item judges do) and the same loop at a plain 95% at every look, which inflates
the rate; the data are drawn at once (seeded numpy), the looks read growing prefixes of them.
"""

import json
import math
import threading
from functools import partial

import numpy as np
import pandas as pd
import pytest
from scipy.special import stdtrit

from sigprop import cli
from sigprop.engine import stats
from sigprop.papers import load_registry
from sigprop.pipeline import decide
from sigprop.verdicts import claims, findings

ALPHA = 0.05
N0 = 3  # the runs of most undecided quick claims
MAX_LOOKS = 3  # the command's default: looks 1..3 after look 0, 3, 6, 12, 24 runs
SEQUENCES = 10000  # SE of a 5% rate: 0.22 percentage points


def normal(rng, shape):
    return rng.standard_normal(shape)


def heavy(rng, shape):
    """Student t with 3 degrees of freedom: finite variance, heavy tails."""
    return rng.standard_t(3, shape)


def wrong_rate(
    look_levels, draw, relation="<=", bound=0.0, tolerance=0.0, sequences=SEQUENCES, seed=20261128
):
    """Share of sequences that end in a hold or a fail of a claim whose true mean is its limit
    (``bound + tolerance`` for ``<=`` and ``within``); each sequence stops at its first
    decided look (``decide.sequential``)."""
    rng = np.random.default_rng(seed)
    truth = bound + tolerance
    data = truth + draw(rng, (sequences, N0 * 2 ** (len(look_levels) - 1)))
    wrong = 0
    for row in data:

        def judge(k, level, row=row):
            with claims.confidence(level):
                c = claims.evaluate(
                    "sim.decide.on_limit",
                    "the mean sits on the limit",
                    "simulation",
                    "paper",
                    stats.t_mean(row[: N0 * 2**k]),
                    relation,
                    bound,
                    tolerance,
                    tolerance_reason="" if tolerance == 0 else "wording: a test margin",
                )
            return [c.verdict]

        _, verdicts = decide.sequential(judge, look_levels)
        wrong += verdicts[0] in ("holds", "fails")
    return wrong / sequences


PROCEDURE = decide.levels(1 - ALPHA, MAX_LOOKS + 1)
NAIVE = [1 - ALPHA] * (MAX_LOOKS + 1)


def test_levels_spend_at_most_alpha_over_any_number_of_looks():
    assert decide.levels(0.95, 3) == pytest.approx([0.975, 0.9875, 0.99375])
    for looks in (1, 5, 40):
        spent = sum(1 - x for x in decide.levels(0.95, looks))
        assert spent < 0.05 and spent == pytest.approx(0.05 * (1 - 2.0**-looks))
    with pytest.raises(decide.DecideError, match="at least 1"):
        decide.levels(0.95, 0)


@pytest.mark.parametrize("draw", [normal, heavy], ids=["normal", "t3"])
def test_procedure_keeps_wrong_decisions_within_alpha_and_naive_looks_do_not(draw):
    """Over four looks the union bound allows 4.69%; 400000 sequences (vectorised) put the
    procedure at 4.14% (normal) and 2.89% (t3), the naive loop at 15.3% and 12.7%."""
    procedure = wrong_rate(PROCEDURE, draw, sequences=SEQUENCES if draw is normal else 4000)
    naive = wrong_rate(NAIVE, draw, sequences=2000)
    print(f"{draw.__name__}: procedure {procedure:.4f}, naive 95% at every look {naive:.4f}")
    assert procedure <= ALPHA
    assert naive > ALPHA + 0.03


def test_first_look_at_the_default_level_inflates_the_rate():
    """Judging look 0 at 95% and spending the schedule only on the claims it leaves undecided
    is the selection the decided ledger avoids by re-judging every item at look 0's level."""
    first_at_default = [1 - ALPHA] + PROCEDURE[1:]
    rate = wrong_rate(first_at_default, normal)
    print(f"look 0 at 95%, then the schedule: {rate:.4f}")
    assert rate > ALPHA + 0.005  # 6.38% over 400000 sequences


def test_within_claim_on_its_margin():
    rate = wrong_rate(PROCEDURE, normal, "within", bound=0.0, tolerance=0.5, sequences=4000)
    assert rate <= ALPHA


def test_sequential_stops_at_the_first_decided_look():
    seen = []

    def judge(k, level):
        seen.append((k, level))
        return ["holds", "undecided"] if k < 2 else ["holds", "fails"]

    assert decide.sequential(judge, decide.levels(0.95, 5)) == (2, ["holds", "fails"])
    assert [k for k, _ in seen] == [0, 1, 2]
    assert seen[1][1] == pytest.approx(0.9875)
    # a claim no look is projected to decide does not hold the looks
    assert decide.sequential(lambda k, level: ["hopeless"], decide.levels(0.95, 5))[0] == 0
    # at the last look the loop ends undecided
    end = decide.sequential(lambda k, level: ["undecided"], decide.levels(0.95, 3), start=1)
    assert end == (2, ["undecided"])


def test_sequential_skips_the_looks_next_look_skips():
    seen = []

    def judge(k, level):
        seen.append((k, level))
        return ["undecided"] if k < 4 else ["holds"]

    look_levels = decide.levels(0.95, 6)
    assert decide.sequential(judge, look_levels, 1, lambda k: 3) == (4, ["holds"])
    assert seen == [(1, look_levels[1]), (3, look_levels[3]), (4, look_levels[4])]  # own levels


def test_skipped_looks_keep_wrong_decisions_within_alpha():
    """Looks 0, 2, 4 of the schedule spend less than all five: the union bound still holds."""
    skipping = [x if k % 2 == 0 else 1.0 - 1e-12 for k, x in enumerate(PROCEDURE)]
    assert wrong_rate(skipping, normal, sequences=4000) <= ALPHA


def test_looks_needed_extrapolates_at_the_stricter_levels():
    lv = decide.levels(0.95, 5)
    assert decide.looks_needed(3, 4, lv[0], 0, lv) == 1  # 6 runs >= 4 (z_1 / z_0)^2 = 4.97
    assert decide.looks_needed(3, 5, lv[0], 0, lv) == 2  # 6 < 6.2; 12 >= 5 (z_2 / z_0)^2
    assert decide.looks_needed(3, 1e6, lv[0], 0, lv) is None
    assert decide.looks_needed(3, math.inf, lv[0], 0, lv) is None
    assert decide.looks_needed(0, 5, lv[0], 0, lv) is None


def test_looks_needed_takes_the_t_quantile_of_the_claims_df():
    """Thesis Fig. 2.3's exponent: an OLS fit over 5 points (df 3) undecided at look 2 with 47
    points to decide. Its points stay 5 as the runs double, and t with 3 df at 99.96% is 17.7
    against 6.9 at 99.375%: no look up to 6 decides it, where the normal quantile said look 6
    (its interval widened there, 2026-11-29)."""
    lv = decide.levels(0.95, 7)
    assert decide.looks_needed(5, 47, lv[2], 2, lv) == 6
    assert decide.looks_needed(5, 47, lv[2], 2, lv, df=3, units="points") is None
    assert decide.looks_needed(5, 47, lv[2], 2, lv, df=math.nan, units="points") == 6
    # a mean over 3 runs gains df as the runs double: t_5 at look 1 is below t_2 at look 0
    assert decide.looks_needed(3, 4, lv[0], 0, lv, df=2, units="runs") == 1
    assert decide.looks_needed(3, 7, lv[0], 0, lv, df=2, units="runs") == 1
    assert decide.looks_needed(3, 7, lv[0], 0, lv) == 2  # the normal quantile: 6 < 8.7
    assert decide.looks_needed(3, 4, lv[0], 0, lv, df=2, units="points") is None


# --- The command: items, groups, plan, error paths (no compute) -------------------------------


@pytest.fixture(scope="module")
def registry():
    return load_registry()


@pytest.fixture(scope="module")
def config():
    return cli._load_config(["config/config.yaml"])


def test_unit_keys_are_the_config_paths_of_the_replications(registry, config):
    family, item = decide.judged_item(registry, "rank_collapse.lemma4")
    assert decide.unit_keys(registry, family, item, config) == ["rank_collapse/lemma4/n_runs"]
    family, item = decide.judged_item(registry, "gradients.fig6_4")
    assert decide.unit_keys(registry, family, item, config) == ["gradients/training/n_runs"]
    family, item = decide.judged_item(registry, "mean_field.fixed_point")
    assert decide.unit_keys(registry, family, item, config) == [
        "mean_field/fixed_point/chain_runs",
        "mean_field/fixed_point/map_replicas",
    ]


def test_groups_join_the_items_that_share_a_key(registry, config):
    found, missing = decide.groups(
        registry, config, ["gradients.fig6_4", "rank_collapse.fig4", "rank_collapse.fig11"]
    )
    assert missing == {}
    by_name = {g.name: g for g in found}
    training = by_name["gradients.fig6_4"]
    assert training.keys == {"gradients/training/n_runs": 3}
    assert "gradients.fig_c5" in training.items  # reads another training simulation
    assert "gradients/shaped_mnist" in training.computes
    pretrain = by_name["rank_collapse.fig4+rank_collapse.fig11"]
    assert pretrain.computes == ["rank_collapse/pretrain_vs_bn"]
    assert pretrain.values(2) == {"rank_collapse/pretrain_vs_bn/n_runs": 12}


def test_an_item_without_replications_is_named(registry, config):
    found, missing = decide.groups(registry, config, ["rank_collapse.prop8"])
    assert (
        found == []
        and "rank_collapse.prop8 has no replication key" in missing["rank_collapse.prop8"]
    )


def row(id, verdict="holds", kind="paper", n=3, lean="", to_decide=math.nan, **kw):
    base = {
        "id": id,
        "kind": kind,
        "verdict": verdict,
        "measured": 0.1,
        "low": -0.1,
        "high": 0.3,
        "interval": "t",
        "n": n,
        "relation": "<=",
        "bound": 0.0,
        "tolerance": 0.0,
        "lean": lean,
        "to_decide": to_decide,
        "units": "runs" if lean else "",
    }
    return {**base, **kw}


@pytest.fixture
def ledger():
    """A fabricated look-0 ledger: two undecided items, one vacuous claim, one hopeless."""
    u = "undecided"
    return pd.DataFrame(
        [
            row("rank_collapse.lemma4.row_mean_g1", u, lean="holds", to_decide=8),
            row("rank_collapse.lemma4.offdiag", "holds", n=8),
            row("orthogonality.fig7.proposed_init_faster_deep", u, lean="fails", to_decide=4),
            row("orthogonality.thm1.bound_literal", u, interval="se", lean="vacuous"),
            row("orthogonality.w2_depth.cor3_literal", u, interval="se"),  # no lean: older file
            row("rank_collapse.fig2.vanilla_linear_collapse", u, lean="centred", to_decide=1e5),
            row("rank_collapse.lemma4.setup_check", u, kind="setup", lean="holds", to_decide=4),
        ]
    )


class FixedCosts(decide.Costs):
    def __init__(self, seconds):
        super().__init__(root=None)
        self.seconds = seconds

    def compute(self, registry, key):
        return self.seconds.get(key, math.nan)

    def judged(self, registry, name, rules=()):
        return 1.0


def test_plan_selects_undecided_paper_claims_cheapest_first(registry, config, ledger):
    costs = FixedCosts({"rank_collapse/lemma4": 4.0, "orthogonality/deep_convnets": 100.0})
    p = decide.plan(registry, config, ledger, costs, max_looks=3)
    table = p.table()
    assert list(table["group"]) == ["rank_collapse.lemma4", "rank_collapse.lemma4",
                                    "orthogonality.fig7"]  # fmt: skip
    assert list(table["look"]) == [1, 2, 1]  # 8 runs need 12 (look 2); 4 need 6 (look 1)
    assert table["units"].iloc[1] == "rank_collapse/lemma4/n_runs=32"
    assert table["projected_s"].tolist() == [9.0, 17.0, 201.0]  # 4 x 2^k + one judge
    assert (
        "rank_collapse.fig2" in p.skipped
        and "no undecided paper claim projected" in (p.skipped["rank_collapse.fig2"])
    )
    assert not any("thm1" in g for g in table["group"])  # the vacuous claim is no target
    text = p.text()
    assert "look 0: re-judge every item at 0.975" in text and "0.9875" in text


def test_plan_within_a_budget_and_for_named_items(registry, config, ledger):
    costs = FixedCosts({"rank_collapse/lemma4": 4.0, "orthogonality/deep_convnets": 100.0})
    p = decide.plan(registry, config, ledger, costs, max_looks=3, budget_s=50)
    assert set(p.table()["group"]) == {"rank_collapse.lemma4"}
    assert "exceed the budget left (24 s)" in p.skipped["orthogonality.fig7"]
    p = decide.plan(registry, config, ledger, costs, 3, items=["orthogonality.fig7"])
    assert set(p.table()["group"]) == {"orthogonality.fig7"}


def test_jump_plans_only_the_looks_a_claim_is_projected_to_be_decided_at(registry, config, ledger):
    costs = FixedCosts({"rank_collapse/lemma4": 4.0, "orthogonality/deep_convnets": 100.0})
    p = decide.plan(registry, config, ledger, costs, max_looks=3, jump=True)
    table = p.table()
    assert list(table["group"]) == ["rank_collapse.lemma4", "orthogonality.fig7"]
    assert list(table["look"]) == [2, 1] and table["projected_s"].tolist() == [17.0, 201.0]
    assert [g.needed for g in p.groups] == [2, 1]


def test_a_jumping_group_starts_at_its_projected_look(tmp_path, registry, config, monkeypatch):
    u = "undecided"
    after = pd.DataFrame(
        [row("orthogonality.thm1.plateau", u, n=100, lean="holds", to_decide=150)]
    ).assign(item="orthogonality.thm1")  # needs look 2 after look 1, look 3 after look 2
    runs = []
    monkeypatch.setattr(decide, "_run_look", lambda *a: runs.append(a[3]) or 1.0)
    monkeypatch.setattr(decide, "_records", lambda directory, names: after)
    decider = decide.Decider(registry, config, tmp_path, tmp_path, 3600.0, 3, jump=True)
    (group,), _ = decide.groups(registry, config, ["orthogonality.thm1"])
    group.needed = 2
    decider.decide_groups([group])
    assert runs == ["orthogonality.thm1/look2", "orthogonality.thm1/look3"]


def test_no_cost_no_look(registry, config, ledger):
    p = decide.plan(registry, config, ledger, FixedCosts({}), max_looks=3)
    assert p.rows == [] and "no job time" in p.skipped["rank_collapse.lemma4"]


def test_projected_look0_widens_intervals(ledger):
    base = ledger.copy()
    base.loc[1, ["measured", "low", "high", "relation", "bound"]] = [0.5, 0.1, 0.9, ">=", 0.05]
    projected = decide.projected_look0(base, 0.95, 0.975)
    ratio = (projected.loc[1, "high"] - 0.5) / (0.9 - 0.5)
    assert ratio == pytest.approx(stdtrit(7, 0.9875) / stdtrit(7, 0.975))  # t, 8 runs
    assert projected.loc[1, "verdict"] == "undecided" and projected.loc[1, "lean"] == "holds"
    assert projected.loc[3, "verdict"] == "undecided" and projected.loc[3, "lean"] == "vacuous"
    base.loc[4, "lean"] = math.nan  # as read from a CSV: a claim without a lean stays undecided
    assert decide.projected_look0(base, 0.95, 0.975).loc[4, "verdict"] == "undecided"


def test_a_group_left_with_vacuous_or_hopeless_claims_stops(
    tmp_path, registry, config, monkeypatch
):
    """After a look, claims that cannot fail (vacuous) or that no later look is projected to
    decide do not ask for another look."""
    u = "undecided"
    after = pd.DataFrame(
        [
            row("orthogonality.thm1.bound_literal", u, n=100, lean="vacuous"),
            row("orthogonality.thm1.plateau", u, n=100, lean="holds", to_decide=1e7),
            row("orthogonality.thm1.decided", "holds", n=100),
        ]
    ).assign(item="orthogonality.thm1")
    runs = []
    monkeypatch.setattr(decide, "_run_look", lambda *a: runs.append(a[3]) or 1.0)
    monkeypatch.setattr(decide, "_records", lambda directory, names: after)
    decider = decide.Decider(registry, config, tmp_path, tmp_path, 3600.0, 3)
    (group,), _ = decide.groups(registry, config, ["orthogonality.thm1"])
    last, verdicts = decide.sequential(partial(decider.look, group), decider.look_levels, start=1)
    assert (last, verdicts, runs) == (1, ["hopeless"], ["orthogonality.thm1/look1"])
    state = json.loads((tmp_path / "decide_state.json").read_text())
    assert state["items"]["orthogonality.thm1"]["units"] == {
        "orthogonality/gaussian_chain/n_runs": 100,
        "orthogonality/wide_gaussian_chain/n_runs": 20,
    }


def test_groups_look_at_once_each_counting_its_own_jobs(tmp_path, registry, config, monkeypatch):
    """``jobs = 2``: two groups' looks run at the same time (each waits for the other), with
    ``--nolock``, and each counts only the benchmark files of its own computes and items."""
    meet = threading.Barrier(2, timeout=30)
    calls = {}

    def run_look(root, directory, values, name, targets, forcerun, cores, concurrent, owned):
        meet.wait()
        calls[name] = (concurrent, owned)
        return 1.0

    names = ["orthogonality.thm1", "mean_field.mixing"]
    decided = pd.DataFrame([row(f"{n}.claim") for n in names]).assign(item=names)
    monkeypatch.setattr(decide, "_run_look", run_look)
    monkeypatch.setattr(decide, "_records", lambda directory, names: decided)
    decider = decide.Decider(registry, config, tmp_path, tmp_path, 3600.0, 3, jobs=2)
    found, _ = decide.groups(registry, config, names)
    decider.decide_groups(found)
    assert sorted(calls) == ["mean_field.mixing/look1", "orthogonality.thm1/look1"]
    assert decider.spent == 2.0 and decider.in_flight == pytest.approx(0.0, abs=1e-6)
    concurrent, owned = calls["orthogonality.thm1/look1"]
    assert concurrent and owned("orthogonality/simulate_gaussian_chain")
    assert owned("orthogonality/judge_thm1") and not owned("mean_field/judge_mixing")
    assert owned("orthogonality/simulate_gaussian_chain-widths-64")  # a split simulation's part


def test_a_look_waits_for_room_beside_the_looks_in_flight(tmp_path, registry, config, monkeypatch):
    monkeypatch.setattr(decide, "_run_look", pytest.fail)
    decider = decide.Decider(registry, config, tmp_path, tmp_path, 3600.0, 3, jobs=2)
    (group,), _ = decide.groups(registry, config, ["orthogonality.thm1"])
    decider.in_flight = 3600.0 - decider.costs.look(registry, group, 1) + 1.0
    with pytest.raises(decide._OverBudget):
        decider.look(group, 1, 0.9875)


def test_overlay_is_typed_nested_yaml():
    assert decide._nested({"claims/confidence": 0.975, "a/b/n_runs": 6}) == {
        "claims": {"confidence": 0.975},
        "a": {"b": {"n_runs": 6}},
    }


def test_snakemake_call_runs_in_the_decide_directory(tmp_path):
    command = decide.snakemake_command(
        tmp_path / "repo", tmp_path / "d", tmp_path / "d/o.yaml", ["t.json"], ["x.csv"], 1
    )
    joined = " ".join(command)
    assert f"--directory {tmp_path / 'd'}" in joined
    assert f"--configfile {tmp_path / 'repo/config/config.yaml'} {tmp_path / 'd/o.yaml'}" in joined
    assert "--forcerun x.csv --rerun-triggers mtime" in joined and command[3] == "t.json"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--budget", "0"], "budget must be positive"),
        (["--budget", "-1"], "budget must be positive"),
        (["no_such.item", "--budget", "1"], "no figure, table or theorem item 'no_such.item'"),
        (["rank_collapse.prop8", "--budget", "1"], "rank_collapse.prop8 has no replication key"),
        (["--budget", "1", "--max-looks", "0"], "--max-looks must be at least 1"),
        (["--budget", "1", "--jobs", "0"], "--jobs must be at least 1"),
    ],
)
def test_bad_input_fails_before_any_compute(tmp_path, monkeypatch, argv, message, capsys):
    monkeypatch.setattr(decide, "_run_look", pytest.fail)
    monkeypatch.setattr(decide, "_prepare", pytest.fail)
    code = cli.main(["decide", *argv, "--directory", str(tmp_path / "d")])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_dry_run_continues_the_looks_so_far(tmp_path, monkeypatch, capsys):
    """With a decide state, the plan starts each group at its next look from that state."""
    monkeypatch.setattr(decide, "_run_look", pytest.fail)
    directory = tmp_path / "d"
    directory.mkdir()
    state = {"items": {"rank_collapse.lemma4": {"look": 2}}, "looks": [], "spent_s": 0.0}
    (directory / "decide_state.json").write_text(json.dumps(state))
    undecided = row("rank_collapse.lemma4.row_mean_g1", "undecided", lean="holds", n=32,
                    to_decide=40, measured=0.9, low=0.5, high=1.3, bound=1.0)  # fmt: skip
    monkeypatch.setattr(decide, "_records", lambda d, names: pd.DataFrame([undecided]))
    code = cli.main(["decide", "--budget", "0.3", "--dry-run", "--directory", str(directory)])
    out = capsys.readouterr().out
    assert code == 0 and f"continuing the looks in {directory}" in out
    assert "rank_collapse.lemma4: look 3 at 0.996875: rank_collapse/lemma4/n_runs=64" in out


def test_dry_run_prints_the_plan(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(decide, "_run_look", pytest.fail)
    ledger_path = tmp_path / "claims.csv"
    ledger = pd.DataFrame(
        [row("rank_collapse.lemma4.row_mean_g1", "undecided", lean="holds", to_decide=5,
             measured=0.9, low=0.5, high=1.3, bound=1.0)]
    )  # fmt: skip
    ledger.to_csv(ledger_path, index=False)
    code = cli.main(
        ["decide", "--budget", "0.3", "--dry-run", "--ledger", str(ledger_path),
         "--directory", str(tmp_path / "d")]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "rank_collapse.lemma4: look 1 at 0.9875: rank_collapse/lemma4/n_runs=16" in out
    assert not (tmp_path / "d").exists()


def test_ledger_columns(tmp_path, registry, config, monkeypatch):
    """The decided ledger: every claim file of the decide directory, with look, level, runs."""
    names = [f"{f}.{i.name}" for f, i in registry.judged()][:3]
    monkeypatch.setattr(
        registry, "judged", lambda: [decide.judged_item(registry, n) for n in names]
    )
    for k, n in enumerate(names):
        family, item = n.split(".")
        path = tmp_path / "results" / "claims" / family / f"{item}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {**row(f"{n}.x"), "level": 0.975 if k else 0.99375, "requires": "", "pair": ""}
        path.write_text(json.dumps({"claims": [record]}))
    state = {"items": {names[0]: {"look": 2, "level": 0.99375, "units": {"a/b/n_runs": 12}}}}
    found = {f"{names[0]}.x": {"reading": "finite_size", "analysis": "why", "text": "why, said"}}
    monkeypatch.setattr(findings, "load", lambda: found)
    table = decide.write_ledger(registry, tmp_path, state, tmp_path / "out.csv", config)
    assert table.set_index("id").loc[f"{names[0]}.x", ["finding", "analysis"]].tolist() == [
        "finite_size",
        "why, said",
    ]  # as in the default ledger
    first = table.set_index("id").loc[f"{names[0]}.x"]
    assert (first["look"], first["level"], first["runs"]) == (2, 0.99375, "a/b/n_runs=12")
    assert list(table.columns[:6]) == ["id", "kind", "verdict", "look", "level", "runs"]
    assert (table.set_index("id").loc[f"{names[1]}.x", "look"]) == 0
