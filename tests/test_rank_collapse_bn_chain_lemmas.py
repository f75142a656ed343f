"""Theorem items of Dan+20 Lemmas 1, 4, 5, 6, 7 at small sizes: claims pass, and can fail.

Each check is run once at small arguments (module-scoped fixtures) and asserted to pass; each
also gets a counterexample (a violated condition of the lemma, a wrong formula, a broken
symmetry) under which the matching claims must fail.
"""

import math
from functools import partial

import pandas as pd
import pytest
import torch
from item_setups import Checked, quick_setup, run_theorem

from sigprop.engine import chains, inputs, metrics, ops
from sigprop.papers.rank_collapse import bn_chain_lemmas as rc
from sigprop.papers.rank_collapse import chain_simulations as sims
from sigprop.papers.rank_collapse.items import ITEMS

SMALL = {
    "lemma1": dict(
        widths=(4, 8), batch_ratios=(1, 2), n_matrices=50, gammas=(1.0, math.inf), depth=20,
        n_runs=2, taus=rc.TAU_GRID, control_scale=0.1, control_min_fraction=0.01,
    ),
    "lemma4": dict(width=8, batch_size=8, depth=400, burn_in=50, n_runs=6, gammas=(1.0,),
                   offdiag_margin=0.05, row_mean_max=2.0, centering_tolerance=0.02,
                   identity_layers=200),
    "lemma5_6": dict(widths=(4, 8), depth=150, n_runs=3, control_gammas=(1.0,), gammas=(0.1, 1.0),
                     float_tolerance=1e-9),
    "lemma7": dict(widths=(4,), n_pairs=20_000, gammas=(0.1, 0.03, 0.01), min_order=1.0),
}  # fmt: skip


THEOREMS = {item.name: item for item in ITEMS if item.kind == "theorem"}


run_item = partial(run_theorem, "rank_collapse")
"""Theorem item ``name`` of the family, run as the workflow runs it (``item_setups``)."""


def by_what(check: Checked) -> dict:
    """Claims keyed by the last part of their id."""
    return {c.id.split(".", 2)[2]: c for c in check.claims}


def assert_well_formed(check: Checked, item: str, columns: set[str]) -> None:
    assert isinstance(check, Checked)
    assert columns <= set(check.table.columns)
    assert len(check.table) > 0
    ids = [c.id for c in check.claims]
    assert len(ids) == len(set(ids))
    assert all(i.startswith(f"rank_collapse.{item}.") for i in ids)
    assert all(c.source.startswith("Dan+20") for c in check.claims)


@pytest.fixture(scope="module")
def lemma1_check():
    return run_item("lemma1", **SMALL["lemma1"], device="cpu")


@pytest.fixture(scope="module")
def lemma4_check():
    return run_item("lemma4", **SMALL["lemma4"], device="cpu")


@pytest.fixture(scope="module")
def lemma56_check():
    return run_item("lemma5_6", **SMALL["lemma5_6"], device="cpu")


@pytest.fixture(scope="module")
def lemma7_check():
    return run_item("lemma7", **SMALL["lemma7"], device="cpu")


# --- Lemma 1 ------------------------------------------------------------------------------------


def test_lemma1_claims_pass(lemma1_check):
    assert_well_formed(
        lemma1_check,
        "lemma1",
        {"part", "kind", "d", "n", "gamma", "count", "min_margin", "violation_fraction"},
    )
    claims = by_what(lemma1_check)
    assert set(claims) == {"rank_ge_r", "soft_rank_ge_bound", "control_violations"}
    assert all(c.passed for c in claims.values()), [c for c in claims.values() if not c.passed]
    # every kind and shape of part (a), every gamma of part (b)
    table = lemma1_check.table
    assert set(table["kind"]) == {*rc.MATRIX_KINDS, "bn_chain"}
    assert (table.query("part == 'soft_rank_control'")["violation_fraction"] > 0).all()


def test_lemma1_random_matrices_include_equality_cases(lemma1_check):
    """Rank-one samples attain rank = r = 1, so the minimum margin sits at round-off level."""
    exact = lemma1_check.table.query("part == 'rank_vs_r'")
    assert exact["min_margin"].min() == pytest.approx(0.0, abs=rc.FLOAT_TOLERANCE)


def test_lemma1_control_fails_when_states_keep_trace_d():
    """control_scale = 1 leaves BN states (Tr M = d): no violation, the control claim fails."""
    check = run_item("lemma1", **{**SMALL["lemma1"], "control_scale": 1.0}, device="cpu")
    claims = by_what(check)
    assert not claims["control_violations"].passed
    assert claims["control_violations"].measured == 0.0
    assert claims["soft_rank_ge_bound"].passed


def test_lemma1_margin_detects_a_violating_matrix():
    """A matrix with Tr M = d / 100 violates rank_tau >= (1 - tau)^2 r: negative margin."""
    h = ops.bn_rms(inputs.gaussian_inputs("t.l1", [0], 8, 8)) * 0.1
    assert rc._soft_rank_margin(h, rc.TAU_GRID).item() < -0.5


# --- Lemma 4 ------------------------------------------------------------------------------------


def test_lemma4_claims_pass(lemma4_check):
    assert_well_formed(
        lemma4_check,
        "lemma4",
        {
            "gamma", "offdiag_ergodic_mean", "offdiag_cross_run", "n_row_mean_sq",
            "rms_row_mean_times_sqrt_n", "r_uncentered", "r_centered", "rank_half_uncentered",
            "rank_half_centered", "centering_identity_max_rel",
        },
    )  # fmt: skip
    claims = by_what(lemma4_check)
    assert {
        "offdiag_mean_g1", "offdiag_cross_run_g1", "row_mean_small_g1", "centering_r_g1",
        "centering_rank_half_g1", "centering_identity",
    } == set(claims)  # fmt: skip
    # small settings: a margin claim may be undecided (a wide interval), never fail
    assert all(c.verdict in ("holds", "undecided") for c in claims.values()), [
        c for c in claims.values() if c.verdict not in ("holds", "undecided")
    ]
    assert claims["centering_identity"].verdict == "holds"


def test_lemma4_offdiag_claims_fail_with_positive_weights(monkeypatch):
    """|W| (all weights positive) breaks the sign symmetry of Lemma 4: M_ij drifts to +1."""
    original = chains.ExplicitProduct.next_weights
    monkeypatch.setattr(chains.ExplicitProduct, "next_weights", lambda self: original(self).abs())
    claims = by_what(run_item("lemma4", **SMALL["lemma4"], device="cpu"))
    assert not claims["offdiag_mean_g1"].passed
    assert claims["offdiag_mean_g1"].measured > 0.5
    assert not claims["offdiag_cross_run_g1"].passed


def test_lemma4_row_mean_fails_with_offset_input():
    """A common offset of X breaks the column sign symmetry: row means are far above 1/sqrt N."""
    kwargs = {**SMALL["lemma4"], "batch_size": 32, "input_offset": 3.0}
    claims = by_what(run_item("lemma4", **kwargs, device="cpu"))
    assert not claims["row_mean_small_g1"].passed
    assert claims["row_mean_small_g1"].measured > 3.0
    assert claims["offdiag_mean_g1"].passed  # the row sign symmetry of Lemma 4 still holds


def test_lemma4_centering_fails_for_two_samples():
    """With N = 2, centering leaves one direction (r = 1): the centered chain differs."""
    kwargs = {**SMALL["lemma4"], "batch_size": 2}
    claims = by_what(run_item("lemma4", **kwargs, device="cpu"))
    assert not claims["centering_r_g1"].passed
    assert claims["centering_identity"].passed


# --- Lemmas 5 and 6 -----------------------------------------------------------------------------


def test_lemma5_6_claims_pass(lemma56_check):
    assert_well_formed(
        lemma56_check,
        "lemma5_6",
        {
            "lemma", "case", "d", "gamma", "max_dev_from_start", "max_dev_from_unit",
            "sign_change_fraction", "max_abs_delta_m", "min_numerical_rank", "min_r",
        },
    )  # fmt: skip
    claims = by_what(lemma56_check)
    checks = [c for c in claims.values() if c.kind != "erratum"]
    assert all(c.passed for c in checks), [c for c in checks if not c.passed]
    assert [c.verdict for c in claims.values() if c.kind == "erratum"] == ["fails"]
    control = lemma56_check.table.query("case == 'control'")
    assert (control["sign_change_fraction"] > 0).all()


def test_lemma6_gamma_one_changes_m_and_small_gamma_does_not():
    """Lemma 6's condition matters: gamma = 1 flips signs, gamma = 0.01 < 1/(B d) never does."""
    check = run_item("lemma5_6", **{**SMALL["lemma5_6"], "control_gammas": (0.01,)}, device="cpu")
    claims = by_what(check)
    assert not claims["control_changes"].passed
    assert claims["control_changes"].measured < 1e-9


def test_lemma6_absorbing_claim_fails_from_a_full_rank_start(monkeypatch):
    """A generic BN state (not rank one) is never rank one: no state to check, NaN fails."""

    def full_rank_start(eid, runs, d, n, device):
        return ops.bn_rms(inputs.gaussian_inputs(eid, runs, d, n, torch.float64, device))

    monkeypatch.setattr(rc, "_rank_one_start", full_rank_start)
    claims = by_what(run_item("lemma5_6", **SMALL["lemma5_6"], device="cpu"))
    assert not claims["rank_one_absorbing"].passed
    assert math.isnan(claims["rank_one_absorbing"].measured)
    assert not claims["unit_entries"].passed


def test_lemma6_absorbing_claim_fails_when_m_changes(monkeypatch):
    """A rank-one start whose rows are not normalized (not a BN state) changes M at layer 1."""
    original = rc._rank_one_start

    def unnormalized_start(eid, runs, d, n, device):
        h = original(eid, runs, d, n, device)
        return h * torch.linspace(0.5, 2.0, d, dtype=h.dtype)[:, None]

    monkeypatch.setattr(rc, "_rank_one_start", unnormalized_start)
    claims = by_what(run_item("lemma5_6", **SMALL["lemma5_6"], device="cpu"))
    assert not claims["rank_one_absorbing"].passed
    assert claims["rank_one_absorbing"].measured > 0.1
    assert claims["unit_entries"].passed  # the BN states after layer 0 are +-1 again


def test_lemma6_float64_escape_is_reported(lemma56_check):
    """At the proof's gamma the quick chains stay rank one; gamma = 1 escapes by round-off."""
    rows = lemma56_check.table.query("lemma == 'lemma6'").set_index(["case", "d"])
    assert (rows.loc["proof", "rank_one_fraction"] == 1.0).all()
    assert (rows.loc["control", "escape_layer"] < SMALL["lemma5_6"]["depth"]).all()


def test_lemma5_claims_fail_from_a_rank_one_input(monkeypatch):
    """Lemma 5 needs a full-rank X: from a rank-one X the rank claims fail."""

    original = inputs.gaussian_inputs

    def rank_one(eid, runs, d, n, dtype=torch.float64, device="cpu"):
        x = original(eid, runs, d, n, dtype, device)
        return x[..., :, :1] * x[..., :1, :]  # outer product of a column and a row: rank one

    monkeypatch.setattr(inputs, "gaussian_inputs", rank_one)
    claims = by_what(run_item("lemma5_6", **SMALL["lemma5_6"], device="cpu"))
    assert not claims["rank_at_least_two"].passed
    assert not claims["r_above_one"].passed


def test_lemma6_printed_delta_bound_is_exceeded(lemma56_check):
    """Erratum: |Delta M_ij| exceeds the printed 4 gamma B but not 2 gamma B d + (gamma B d)^2."""
    rows = lemma56_check.table.query("lemma == 'lemma6' and case != 'control'")
    assert (rows["max_abs_delta_m"] <= rows["correct_bound"]).all()
    assert (rows["max_abs_delta_m"] > rows["printed_bound_4_gamma_b"]).any()


# --- Lemma 7 ------------------------------------------------------------------------------------


def test_lemma7_claims_pass(lemma7_check):
    assert_well_formed(
        lemma7_check,
        "lemma7",
        {"d", "law", "gamma", "delta_f", "mc_estimate", "mc_se", "gap", "remainder_order"},
    )
    claims = by_what(lemma7_check)
    assert set(claims) == {
        "delta_f_d4_gaussian",
        "remainder_order_d4_gaussian",
        "delta_f_d4_uniform",
        "remainder_order_d4_uniform",
    }
    # small settings: a margin claim may be undecided (a wide interval), never fail
    assert all(c.verdict in ("holds", "undecided") for c in claims.values()), [
        c for c in claims.values() if c.verdict not in ("holds", "undecided")
    ]
    assert {c.verdict for k, c in claims.items() if "order" in k} == {"holds"}
    # the gap shrinks as gamma decreases (the O(gamma) remainder)
    for _, rows in lemma7_check.table.groupby("law"):
        gaps = rows.sort_values("gamma")["gap"].abs().to_numpy()
        assert gaps[-1] > gaps[0]


def test_lemma7_fails_with_a_wrong_delta_f(monkeypatch):
    """A delta_F off by 1 (about 1 x |delta_F| at d = 4) is detected."""
    original = metrics.frobenius_drift
    monkeypatch.setattr(metrics, "frobenius_drift", lambda h: original(h) + 1.0)
    claims = by_what(run_item("lemma7", **SMALL["lemma7"], device="cpu"))
    assert not claims["delta_f_d4_gaussian"].passed
    assert not claims["delta_f_d4_uniform"].passed
    assert claims["remainder_order_d4_gaussian"].passed  # independent of delta_F


def test_lemma7_order_claim_can_fail():
    """The fitted remainder order is ~2 (symmetric laws), so demanding order 3 fails."""
    claims = by_what(run_item("lemma7", **{**SMALL["lemma7"], "min_order": 3.0}, device="cpu"))
    order = claims["remainder_order_d4_gaussian"]
    assert not order.passed
    assert 1.5 < order.measured < 2.2


def test_order_solver_recovers_known_orders():
    gammas = (0.1, 0.03, 0.01)
    for p in (1.0, 2.0, 0.5):
        ratio = rc._order_ratio(p, gammas)
        assert rc._solve_order(ratio, gammas) == pytest.approx(p, abs=1e-9)
    assert math.isnan(rc._solve_order(-1.0, gammas))


@pytest.mark.parametrize(
    "item, kwargs",
    [
        ("lemma1", dict(taus=(0.5, 1.5))),
        ("lemma7", dict(gammas=(0.1, 0.01))),
        ("lemma7", dict(laws=("cauchy",), n_pairs=10)),
    ],
)
def test_measurements_reject_bad_arguments(item, kwargs):
    measure = getattr(rc, f"measure_{item}")
    with pytest.raises(ValueError):
        measure(**quick_setup("rank_collapse", item, **kwargs, device="cpu"))


# ---- given inputs (issue 11): the simulations accept X in place of the seeded draw ----

_DEPTH_RANK = dict(
    experiment_id="rank_collapse.depth_rank",
    width=4,
    batch_size=3,
    depth=3,
    n_runs=2,
    activations=["relu"],
    weight_law="gaussian",
    dtype="float64",
    device="cpu",
)
_BN_CHAIN = dict(
    experiment_id="rank_collapse.bn_chain",
    widths=[3, 4],
    gammas=[1.0],
    depth=4,
    burn_in=1,
    stride=1,
    n_runs=2,
    taus=[0.5],
    weight_law="gaussian",
    dtype="float64",
    device="cpu",
)
_COLLINEAR = dict(
    experiment_id="rank_collapse.collinear_chain",
    width=4,
    gammas=[1.0],
    depth=3,
    n_runs=2,
    epsilon=1e-3,
    top=2,
    weight_law="gaussian",
    dtype="float64",
    device="cpu",
)


def _same(a, b) -> bool:
    return a.values.keys() == b.values.keys() and all(
        torch.equal(a.values[k], b.values[k]) for k in a.values
    )


def test_depth_rank_takes_its_input():
    runs = [0, 1]
    drawn = inputs.gaussian_inputs("rank_collapse.depth_rank", runs, 4, 3, torch.float64)
    default = sims.depth_rank(**_DEPTH_RANK)
    assert _same(sims.depth_rank(**_DEPTH_RANK, h0=drawn), default)
    rank_one = torch.ones(4, 3, dtype=torch.float64)  # (d, N), shared by the runs
    other = sims.depth_rank(**_DEPTH_RANK, h0=rank_one)
    assert not torch.equal(other.values["rank"], default.values["rank"])
    assert (other.values["rank"] == 1).all()
    with pytest.raises(ValueError, match=r"h0 must .*\(2, 4, 3\)"):
        sims.depth_rank(**_DEPTH_RANK, h0=torch.ones(2, 3, 4))


def test_bn_chain_takes_its_input():
    runs = [0, 1]
    drawn = {
        d: inputs.gaussian_inputs(f"rank_collapse.bn_chain.gamma1.d{d}", runs, d, d, torch.float64)
        for d in (3, 4)
    }
    default = sims.bn_chain(**_BN_CHAIN)
    assert _same(sims.bn_chain(**_BN_CHAIN, h0=drawn), default)
    other = sims.bn_chain(**_BN_CHAIN, h0={d: x.flip(-1) + 1.0 for d, x in drawn.items()})
    assert not _same(other, default)
    one = {**_BN_CHAIN, "widths": [4]}
    assert _same(sims.bn_chain(**one, h0=drawn[4]), sims.bn_chain(**one))
    with pytest.raises(ValueError, match=r"h0\[3\] must .*\(3, 3\)"):
        sims.bn_chain(**_BN_CHAIN, h0={3: torch.ones(3, 4), 4: drawn[4]})
    with pytest.raises(ValueError, match="h0 must map every width"):
        sims.bn_chain(**_BN_CHAIN, h0={4: drawn[4]})
    with pytest.raises(ValueError, match=r"h0 must .*\(2, 3, 3\)"):
        sims.bn_chain(**_BN_CHAIN, h0=drawn[4])  # one tensor cannot serve widths 3 and 4


def test_gamma_label_names_the_claims_and_the_chains_streams():
    """One label of gamma (0.1 -> '0.1', inf -> 'inf') in claim ids and stream addresses."""
    from sigprop.papers.rank_collapse.records import gamma_label

    assert [gamma_label(g) for g in (0.1, 1.0, 2.5, math.inf)] == ["0.1", "1", "2.5", "inf"]
    chain = sims.bn_chain(**{**_BN_CHAIN, "gammas": [0.5, math.inf], "depth": 2})
    assert chain.seeds["experiment_ids"] == [
        f"rank_collapse.bn_chain.gamma{g}.d{d}" for d in (3, 4) for g in ("0.5", "inf")
    ]


def test_collinear_chain_takes_its_input():
    runs, eid = [0, 1], "rank_collapse.collinear_chain"
    base = inputs.gaussian_inputs(eid, runs, 4, 1, torch.float64)
    noise = inputs.gaussian_inputs(f"{eid}.noise", runs, 4, 4, torch.float64)
    default = sims.collinear_chain(**_COLLINEAR)
    assert _same(sims.collinear_chain(**_COLLINEAR, x=base + 1e-3 * noise), default)
    other = sims.collinear_chain(**_COLLINEAR, x=base + 0.5 * noise)
    assert not _same(other, default)
    with pytest.raises(ValueError, match=r"x must .*\(4, 4\)"):
        sims.collinear_chain(**_COLLINEAR, x=torch.ones(3, 4, 4))


# --- Requirements and margins (judges on small synthetic tables) -------------------------------


def _written(claim_list):
    """The claims as ``claims.write`` records them (requirements applied)."""
    from dataclasses import asdict

    from sigprop.verdicts import claims

    return {
        r["id"].split(".", 2)[2]: r
        for r in claims.apply_requirements([asdict(c) for c in claim_list], strict=False)
    }


# Judge arguments of the synthetic-table tests below: config/config.yaml's values (the Lemma 4
# table holds gamma = 1 only).
LEMMA1 = dict(
    widths=(8, 32), batch_ratios=(1, 2), n_matrices=200, gammas=(0.1, 1.0, math.inf), depth=100,
    n_runs=4, taus=rc.TAU_GRID, control_scale=0.1, control_min_fraction=0.01,
)  # fmt: skip
LEMMA4 = dict(
    width=32, batch_size=32, depth=2000, gammas=(1.0,), n_runs=8, offdiag_margin=0.05,
    row_mean_max=2.0, centering_tolerance=0.02, identity_layers=200,
)  # fmt: skip
LEMMA5_6 = dict(
    widths=(4, 8, 32), depth=1000, n_runs=8, control_gammas=(1.0,), gammas=(0.1, 1.0),
    float_tolerance=1e-9,
)  # fmt: skip
LEMMA7 = dict(gammas=(0.1, 0.03, 0.01), min_order=1.0)


def _lemma1_table(control_violations: int) -> pd.DataFrame:
    return pd.DataFrame([
        dict(part="rank_vs_r", min_margin=0.5, violations=0, count=10),
        dict(part="soft_rank_bn", min_margin=0.3, violations=0, count=10),
        dict(part="soft_rank_control", min_margin=-0.2, violations=control_violations, count=10),
    ])  # fmt: skip


def test_lemma1_chain_claim_requires_the_control():
    """soft_rank_ge_bound presumes control_violations (the inequality can fail off Tr M = d):
    when the control finds no violation, the chain claim is invalid."""
    from sigprop.papers.rank_collapse.bn_chain_lemma_judges import judge_lemma1

    out = _written(judge_lemma1(_lemma1_table(10), **LEMMA1))
    assert {r["verdict"] for r in out.values()} == {"holds"}
    assert out["soft_rank_ge_bound"]["requires"] == "rank_collapse.lemma1.control_violations"
    assert out["rank_ge_r"]["tolerance_reason"].startswith("round_off: Lemma 1 is attained")
    out = _written(judge_lemma1(_lemma1_table(0), **LEMMA1))
    assert out["control_violations"]["verdict"] == "fails"
    assert out["soft_rank_ge_bound"]["verdict"] == "invalid"
    assert out["rank_ge_r"]["verdict"] == "holds"  # part 1 presumes no chain control


def _lemma5_6_table(control_change: float) -> pd.DataFrame:
    lemma6 = dict(lemma="lemma6", max_abs_delta_m=0.1, correct_bound=1.0,
                  printed_bound_4_gamma_b=0.01, escape_layer=math.nan, min_numerical_rank=math.nan,
                  min_r=math.nan)  # fmt: skip
    lemma5 = dict(lemma="lemma5", max_dev_from_start=math.nan, max_dev_from_unit=math.nan,
                  max_abs_delta_m=math.nan, correct_bound=math.nan,
                  printed_bound_4_gamma_b=math.nan, escape_layer=math.nan,
                  min_numerical_rank=3.0, min_r=1.5)  # fmt: skip
    return pd.DataFrame([
        {**lemma6, "case": "proof", "max_dev_from_start": 1e-15, "max_dev_from_unit": 1e-15},
        {**lemma6, "case": "control", "max_dev_from_start": control_change,
         "max_dev_from_unit": 1e-15},
        {**lemma5, "case": "proof"}, {**lemma5, "case": "chain"},
    ])  # fmt: skip


def test_lemma6_absorbing_claim_requires_the_control():
    """rank_one_absorbing presumes control_changes (far above the condition on gamma, M does
    change): a control that stays put makes it invalid."""
    from sigprop.papers.rank_collapse.bn_chain_lemma_judges import judge_lemma5_6

    out = _written(judge_lemma5_6(_lemma5_6_table(2.0), **LEMMA5_6))
    assert out["rank_one_absorbing"]["verdict"] == "holds"
    assert out["rank_one_absorbing"]["requires"] == "rank_collapse.lemma5_6.control_changes"
    out = _written(judge_lemma5_6(_lemma5_6_table(1e-15), **LEMMA5_6))
    assert out["control_changes"]["verdict"] == "fails"
    assert out["rank_one_absorbing"]["verdict"] == "invalid"
    assert out["unit_entries"]["verdict"] == "holds"  # |M_ij| = 1 does not presume the control


def _lemma7_table(estimates, delta_f=10.0, se=0.01) -> pd.DataFrame:
    return pd.DataFrame([
        dict(d=4, law="gaussian", gamma=g, n_pairs=1000, delta_f=delta_f, mc_estimate=e,
             mc_se=se, remainder_coef_gamma2=1.0, remainder_order=2.0, remainder_order_se=0.01)
        for g, e in zip((0.1, 0.03, 0.01), estimates, strict=True)
    ])  # fmt: skip


def test_lemma7_margin_is_the_remainder_at_the_lemmas_order():
    """The margin of delta_f is Eq. (43)'s O(gamma) remainder at the smallest gamma, its
    constant the change of the Monte Carlo value per unit gamma between the largest and the
    smallest gamma: 9 -> 9.9 over 0.09 gives c = 10, margin 0.1 at gamma = 0.01."""
    from sigprop.papers.rank_collapse.bn_chain_lemma_judges import judge_lemma7

    table = _lemma7_table((9.0, 9.7, 9.9), delta_f=9.95)
    claim = {c.id.split(".")[-1]: c for c in judge_lemma7(table, **LEMMA7)}["delta_f_d4_gaussian"]
    assert claim.tolerance == pytest.approx(0.1)
    assert claim.verdict == "holds"  # 9.9 +- 0.02 within 9.95 +- 0.1
    assert claim.tolerance_reason.startswith("theorem: Eq. (43)'s remainder O(gamma)")
    assert "c = 10" in claim.tolerance_reason
    flat = _lemma7_table((9.5, 9.5, 9.5), delta_f=9.95)  # no change with gamma: margin 0
    claim = {c.id.split(".")[-1]: c for c in judge_lemma7(flat, **LEMMA7)}["delta_f_d4_gaussian"]
    assert claim.tolerance == 0.0 and claim.verdict == "fails"


def _lemma4_row(n_row_mean_sq: float, se: float = 0.05) -> dict:
    return dict(
        gamma=1.0, layers_averaged=1000, first_layer=200, mean_abs_ergodic_offdiag=0.01,
        mean_abs_layer_offdiag=0.2, offdiag_rms_bias=0.0, offdiag_ergodic_mean=0.0,
        offdiag_ergodic_mean_se=0.001, offdiag_cross_run=0.0, offdiag_cross_run_se=1e-6,
        n_row_mean_sq=n_row_mean_sq, n_row_mean_sq_se=se, r_centered=5.0, r_uncentered=5.0,
        r_diff=0.0, r_diff_se=0.01, rank_half_centered=7.0, rank_half_uncentered=7.0,
        rank_half_diff=0.0, rank_half_diff_se=0.01, centering_identity_max_rel=1e-14,
    )  # fmt: skip


def test_lemma4_row_means_are_read_one_sided_as_the_seed_says():
    """App. C / footnote 8: the row averages are 'close to zero' (CLT scale 1/sqrt N). Row means
    smaller than the CLT scale agree with the seed (the old two-sided claim row_mean, 1 within
    0.1, failed them); the claim fails only above row_mean_max x the CLT variance."""
    from sigprop.papers.rank_collapse.bn_chain_lemma_judges import judge_lemma4

    for value, verdict in ((0.6, "holds"), (1.15, "holds"), (3.5, "fails")):
        table = pd.DataFrame([_lemma4_row(value)])
        claims = {c.id.split(".")[-1]: c for c in judge_lemma4(table, **LEMMA4)}
        assert "row_mean_g1" not in claims
        claim = claims["row_mean_small_g1"]
        assert (claim.relation, claim.bound, claim.verdict) == ("<=", 2.0, verdict), value
        assert claim.tolerance_reason.startswith("wording: App. C 'their average is close to")
