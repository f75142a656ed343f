"""DJB21 App. A.3-C checks (Lemma 4, Thm. 5, Lemmas 6-10, App. B.1) at small sizes.

Each check runs once at small arguments and its claims must hold; the negative controls must be
violated (they are claims that pass when the control fails), and a broken input makes the
matching claim fail, so no check is vacuous.
"""

import math
from pathlib import Path

import pandas as pd
import pytest
import torch
import yaml
from item_setups import Checked, run_theorem

from sigprop.base.config import ConfigError
from sigprop.engine import metrics
from sigprop.papers.orthogonality import drift_theorems as od
from sigprop.papers.orthogonality import lyapunov
from sigprop.papers.orthogonality.config_checks import check_config
from sigprop.papers.orthogonality.drift_judges import drift_claims
from sigprop.papers.orthogonality.items import ITEMS

ROOT = Path(__file__).resolve().parents[1]
THEOREMS = {item.name: item for item in ITEMS if item.kind == "theorem"}

SMALL = {
    "lemma4": dict(batch_sizes=(2, 5), width=12, n_matrices=20, depth=10, n_runs=2,
                   float_tolerance=1e-12),
    "theorem5": dict(
        cases=((4, 64),), n_states=6, n_degenerate=2, n_draws=300, lemma8_batch_sizes=(2, 5),
        lemma8_spectra=16, float_tolerance=1e-12,
    ),
    "lemma6": dict(cases=((4, 6),), n_states=3, n_degenerate=1, n_draws=1500,
                   relative_margin=0.05, float_tolerance=1e-12),
    "lemma10": dict(batch_sizes=(2, 12), n_grid=50, n_search=5, search_every=2,
                    derivative_step=1e-4, float_tolerance=1e-12, derivative_tolerance=1e-8),
    "stability": dict(cases=((2, 256),), starts=("gaussian", "near_rank_one"), depth=150,
                      n_runs=8),
}  # fmt: skip


def run_check(item: str, device: str = "cpu", **settings) -> Checked:
    """A theorem item as the workflow runs it, the quick config where ``settings`` are silent
    (``item_setups.run_theorem``)."""
    return run_theorem("orthogonality", item, device=device, **settings)


@pytest.fixture(scope="module")
def checks():
    return {item: run_check(item, **kw) for item, kw in SMALL.items()}


def by_what(check) -> dict:
    return {c.id.split(".", 2)[2]: c for c in check.claims}


@pytest.mark.parametrize("item", list(SMALL))
def test_claims_hold_and_are_well_formed(checks, item):
    check = checks[item]
    assert len(check.table) > 0
    ids = [c.id for c in check.claims]
    assert len(ids) == len(set(ids))
    assert all(i.startswith(f"orthogonality.{item}.") for i in ids)
    assert all(c.source.startswith("DJB21") for c in check.claims)
    failed = [
        (c.id, c.verdict, c.measured, c.low, c.high) for c in check.claims if c.verdict != "holds"
    ]
    assert not failed


def test_random_spectra_families():
    n = 5
    for family in od.SPECTRUM_FAMILIES:
        s = od.random_spectra("test", family, 30, n)
        assert s.shape == (30, n)
        torch.testing.assert_close(s.sum(-1), torch.ones(30, dtype=torch.float64))
        assert (s[:, :-1] >= s[:, 1:]).all()  # sorted descending: sigma_n is the last
    with pytest.raises(ValueError, match="family"):
        od.random_spectra("test", "uniform", 3, n)


def test_lemma4_extreme_spectra_attain_both_ratios():
    """V / V_hat = sqrt(n(n-1)) for one large value (Lemma 4's equality), sqrt(n/(n-1)) for
    equal others (Eq. (16)'s spectrum)."""
    n, g = 5, torch.Generator().manual_seed(0)
    for family, ratio in (("one_large", math.sqrt(n * (n - 1))), ("equal_others", 1.25**0.5)):
        s = od.random_spectra("test", family, 20, n)
        h = od._matrix_with_spectrum(g, s, 9)
        measured = metrics.orthogonality_gap(h) / lyapunov.lyapunov_gap(h)
        torch.testing.assert_close(measured, torch.full_like(measured, ratio), rtol=1e-6, atol=0)


def test_theorem5_controls_are_violated_and_the_sharp_bound_is_tight(checks):
    claims = by_what(checks["theorem5"])
    assert claims["control_no_slack"].verdict == "holds" and claims["control_no_slack"].low > 0
    assert claims["control_lemma8_c2"].measured > 1e-6
    assert {claims[k].kind for k in ("control_no_slack", "control_lemma8_c2")} == {"control"}
    table = checks["theorem5"].table
    eq = table[(table["part"] == "lemma8") & (table["family"] == "equal_others")]
    nearly_orthogonal = eq[eq["vhat"] * eq["n"] < 1e-6]
    ratio = nearly_orthogonal["contraction"] / nearly_orthogonal["lemma8_sharp"]
    assert len(ratio) and (ratio > 1 - 1e-4).all()  # 2n/(n+2) cannot be raised


def test_lemma10_convexity_claim_can_fail(monkeypatch):
    """A concave g with the right value and slope at 0 fails the convexity claim."""
    monkeypatch.setattr(
        lyapunov, "g_integral", lambda delta, n: 1 + 2 * n / (n + 2) * delta - 50 * delta**2
    )
    check = run_check(
        "lemma10",
        batch_sizes=(3, 4),
        n_grid=20,
        n_search=0,
        search_every=1,
        derivative_step=1e-4,
        float_tolerance=1e-12,
        derivative_tolerance=1e-8,
    )
    claims = by_what(check)
    assert claims["g_at_zero"].verdict == "holds" and claims["slope_at_zero"].verdict == "holds"
    assert claims["convex"].verdict == "fails"


def test_stability_table_and_control(checks):
    table = checks["stability"].table
    assert set(table["start"]) == set(od.STARTS)
    assert (table["rhs"] > table["rhs_no_floor"]).all()
    control = by_what(checks["stability"])["control_floor_rate"]
    assert control.kind == "control" and control.verdict == "holds"
    # with the floor 3 / (2 sqrt d) itself the counterfactual bound holds, so the control fails
    table = checks["stability"].table
    from sigprop.papers.orthogonality.stability_judges import judge_stability

    fast = table.assign(
        rhs_no_floor=table["rhs_no_floor"] + 10.0
    )  # a counterfactual never exceeded
    no = {c.id.rsplit(".", 1)[1]: c for c in judge_stability(fast, **SMALL["stability"])}
    assert no["control_floor_rate"].verdict == "fails"
    with pytest.raises(ValueError, match="unknown start"):
        run_check("stability", cases=((2, 8),), starts=("orthogonal",), depth=2, n_runs=2)


def test_drift_figure_claims_hold_and_can_fail(checks):
    mc = checks["theorem5"].table.query("part == 'mc'")
    table = mc[["n", "d", "vhat", "mc_mean", "mc_se", "contraction", "sum_p2", "rhs"]]
    assert {c.verdict for c in drift_claims(table, n_draws=300)} == {"holds"}
    below_floor = table.assign(mc_mean=table["contraction"] - 10 * table["mc_se"] - 1e-9)
    verdicts = {c.id: c.verdict for c in drift_claims(below_floor, n_draws=300)}
    assert verdicts["orthogonality.drift.noise_floor"] == "fails"
    above = table.assign(mc_mean=table["rhs"] + 0.5)
    assert {c.id: c.verdict for c in drift_claims(above, n_draws=300)}[
        "orthogonality.drift.sharpened_bound"
    ] == "fails"


def test_lemma6_sets_aside_rare_event_states_of_small_n():
    """n <= 3 with tiny sigma_n^2: the Monte Carlo misses the rare rows that carry p_n."""
    check = run_check(
        "lemma6",
        cases=((2, 4), (3, 6)),
        n_states=1,
        n_degenerate=3,
        n_draws=200,
        relative_margin=0.05,
        float_tolerance=1e-12,
    )
    table = check.table
    assert not table.loc[table["family"] == "near_degenerate", "mc_reliable"].all()
    # 200 draws: the 5% margins may stay undecided, but nothing fails
    assert {c.verdict for c in check.claims} <= {"holds", "undecided"}
    assert "set aside" in by_what(check)["sawa_vs_mc"].note


def test_bad_cases_raise():
    with pytest.raises(ValueError, match="theorem5.cases"):
        run_check("theorem5", cases=((4,),))
    with pytest.raises(ValueError, match="width"):
        run_check("lemma4", batch_sizes=(8,), width=4)


def test_config_rejects_d_below_n():
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    config["orthogonality"]["theorem5"]["cases"] = [[16, 8]]
    with pytest.raises(ConfigError, match="orthogonality.theorem5.cases"):
        check_config(config)


def test_tables_are_dataframes(checks):
    assert all(isinstance(c.table, pd.DataFrame) for c in checks.values())


def test_drift_mc_is_the_states_and_their_one_step_draws():
    """``drift_mc``: the ``drift_states`` of an experiment id and ``one_step_statistics`` drawn
    from stream ``<id>.mc.n<n>.d<d>`` (what Theorem 5 and Lemma 6 each measure)."""
    from sigprop.engine import seeding
    from sigprop.papers.orthogonality import drift_theorems, lyapunov

    eid = "orthogonality.test_drift"
    families, s, stats = drift_theorems.drift_mc(3, 8, 2, 1, 40, "cpu", eid)
    want_families, want_s = drift_theorems.drift_states(3, 2, 1, eid)
    g = seeding.generator(f"{eid}.mc.n3.d8", 0, "weights")
    want = lyapunov.one_step_statistics(want_s, 8, 40, g, device="cpu")
    assert families == want_families == ["dirichlet", "dirichlet", "near_degenerate"]
    assert torch.equal(s, want_s) and stats.keys() == want.keys()
    assert all(torch.equal(stats[k], want[k]) for k in want)


def test_worst_and_best_rows_of_per_row_means():
    """Rows given as (mean, SE) over n runs: the widest upper end decides a "<=" claim for every
    row, the highest lower end an "exceeds somewhere" claim; each is the row's ``mean_of``."""
    from sigprop.papers.orthogonality.drift_theorem_judges import best_of, worst_of
    from sigprop.papers.orthogonality.verdicts import mean_of

    values, se = [0.1, 0.3, 0.25], [0.01, 0.01, 0.2]
    worst, k = worst_of(values, se, 10)
    assert k == 2 and worst == mean_of(0.25, 0.2, 10)
    best, j = best_of(values, se, 10)
    assert j == 1 and best == mean_of(0.3, 0.01, 10)
    assert worst_of([], [], 10)[1] == best_of([], [], 10)[1] == -1
