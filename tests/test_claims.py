"""Tests of sigprop.verdicts.claims: interval verdicts computed, never set; kinds; records; the
ledger."""

import math
from dataclasses import asdict

import numpy as np
import pandas as pd
import pytest

from sigprop.engine import stats
from sigprop.engine.stats import exact, fisher_z, from_se, proportion, t_mean
from sigprop.verdicts import claims


def claim(measured, relation="<=", bound=1.0, tol=0.0, kind="paper", **kw):
    return claims.evaluate("f.x.y", "s", "src", kind, measured, relation, bound, tol, **kw)


@pytest.mark.parametrize(
    "value, relation, bound, tol, verdict",
    [
        (0.9, "<=", 1.0, 0.0, "holds"),
        (1.05, "<=", 1.0, 0.0, "fails"),
        (1.05, "<=", 1.0, 0.1, "holds"),
        (6.0, ">=", 5.66, 0.0, "holds"),
        (5.0, ">=", 5.66, 0.0, "fails"),
        (-0.503, "within", -0.5, 0.005, "holds"),
        (-0.51, "within", -0.5, 0.005, "fails"),
    ],
)
def test_exact_numbers_are_decided_by_the_relation(value, relation, bound, tol, verdict):
    c = claim(exact(value), relation, bound, tol)
    assert c.verdict == verdict and c.low == c.high == value and c.interval == "exact"


@pytest.mark.parametrize(
    "low, high, relation, verdict",
    [
        (0.2, 0.8, "<=", "holds"),
        (0.8, 1.2, "<=", "undecided"),
        (1.1, 1.2, "<=", "fails"),
        (1.1, 1.2, ">=", "holds"),
        (0.8, 1.2, ">=", "undecided"),
        (0.2, 0.8, ">=", "fails"),
        (0.95, 1.05, "within", "holds"),  # bound 1, tolerance 0.1
        (0.85, 1.05, "within", "undecided"),
        (1.15, 1.3, "within", "fails"),
        (0.5, 1.5, "within", "undecided"),  # wider than the margin on both sides
    ],
)
def test_interval_verdicts(low, high, relation, verdict):
    tol = 0.1 if relation == "within" else 0.0
    assert claims.decide(low, high, relation, 1.0, tol) == verdict


@pytest.mark.parametrize("relation", claims.RELATIONS)
@pytest.mark.parametrize("mean", [-0.3, -0.05, 0.0, 0.04, 0.2, 0.6])
def test_no_claim_is_easier_to_pass_with_fewer_runs(relation, mean):
    """At the same mean and spread, fewer runs never turn undecided or failing into holding,
    nor undecided into failing: the interval only widens (issue 24, item 2)."""
    rng = np.random.default_rng(0)
    base = rng.standard_normal(40)
    previous = None
    for n in (40, 20, 10, 5, 3, 2, 1):
        values = np.array([mean])
        if n > 1:  # the same mean and the same spread (sd 0.3), n runs
            z = (base[:n] - base[:n].mean()) / base[:n].std(ddof=1)
            values = mean + 0.3 * z
        tol = 0.1 if relation == "within" else 0.0
        verdict = claim(t_mean(values), relation, 0.0, tol).verdict
        if previous is not None:
            assert verdict in ("undecided", previous), (n, verdict, previous)
        previous = verdict


def test_one_run_is_undecided_and_says_how_many_runs_are_needed():
    one = claim(t_mean([0.5]), "<=", 1.0)
    assert one.verdict == "undecided" and "at least 2 runs" in one.note
    few = claim(t_mean([0.8, 0.95, 1.05]), "<=", 1.1)
    assert few.verdict == "undecided"
    need = int(few.note.split("about ")[1].split(" runs")[0])
    values = np.tile([0.8, 0.95, 1.05], need)  # the same mean and spread, more runs
    assert claim(t_mean(values), "<=", 1.1).verdict == "holds"


def test_fisher_z_interval_of_a_correlation():
    """DJB21 Fig. 3a's case: r = 0.705 from 12 points straddles 0.8 at 95%."""
    r = fisher_z(0.705, 12)
    low, high = r.interval(0.95)
    assert low == pytest.approx(0.22, abs=0.01) and high == pytest.approx(0.91, abs=0.01)
    assert claim(r, ">=", 0.8).verdict == "undecided"
    assert claim(fisher_z(0.705, 400), ">=", 0.8).verdict == "fails"


def test_se_bootstrap_and_wilson_intervals():
    assert from_se(1.0, 0.1).interval(0.95) == pytest.approx((1 - 0.196, 1 + 0.196), abs=1e-3)
    assert from_se(1.0, 0.1, df=4).interval(0.95)[1] == pytest.approx(1 + 0.2776, abs=1e-3)
    reps = np.linspace(0, 1, 1001)
    assert stats.bootstrap(0.5, reps).interval(0.9) == pytest.approx((0.05, 0.95))
    low, high = proportion(5, 50).interval(0.95)
    assert 0.03 < low < 0.1 < high < 0.22


def test_confidence_level_comes_from_the_run():
    m = t_mean([0.9, 1.0, 1.1, 1.0])
    with claims.confidence(0.5):
        narrow = claim(m, "<=", 1.1)
    wide = claim(m, "<=", 1.1)
    assert narrow.high - narrow.low < wide.high - wide.low and narrow.level == 0.5


@pytest.mark.parametrize(
    "measured, bound, tol, why",
    [
        (math.nan, 0.0, 1.0, "measured value is nan"),
        (math.inf, 0.0, 0.0, "measured value is inf"),
        (1.0, math.inf, 0.0, "bound is inf"),
        (1.0, 0.0, math.nan, "tolerance is nan"),
        (-math.inf, -math.inf, 0.0, "measured value is -inf, the bound is -inf"),
    ],
)
def test_non_finite_numbers_are_invalid_never_hold_or_fail(measured, bound, tol, why):
    for relation in claims.RELATIONS:
        c = claim(exact(measured), relation, bound, tol, note="n")
        assert c.passed is None and c.verdict == "invalid"
        assert why in c.note and c.note.endswith("; n")
    assert claim(t_mean([1.0, math.nan]), "<=", 2.0).verdict == "invalid"


def test_bad_kind_relation_tolerance_measurement_and_orphan_erratum_are_rejected():
    with pytest.raises(ValueError, match="kind"):
        claim(exact(1.0), kind="guess")
    with pytest.raises(ValueError, match="relation"):
        claim(exact(1.0), "<")
    with pytest.raises(ValueError, match="tolerance must be >= 0"):
        claim(exact(1.0), tol=-1.0)
    with pytest.raises(ValueError, match="Measurement"):
        claim(1.0)
    with pytest.raises(ValueError, match="corrected paper claim"):
        claim(exact(1.0), kind="erratum")


def test_records_are_evaluated_on_a_context():
    records = [
        claims.Record(
            id="slope",
            statement="slope {slope.value:.2f} is -1/2 within {margin}",
            source="Seed Fig. 2",
            kind="paper",
            quantity="slope",
            relation="within",
            bound=-0.5,
            tolerance="margin",
            printed=-0.46,
        ),
        claims.Record(
            id="slope_printed",
            statement="printed slope",
            source="Seed Fig. 2 caption",
            kind="erratum",
            pair="fam.fig.slope",
            quantity=lambda c: c["slope"],
            relation="within",
            bound=lambda c: -0.46,
            tolerance=0.005,
        ),
    ]
    context = {"slope": from_se(-0.5, 0.01, df=10), "margin": 0.05}
    a, b = claims.judge_records(records, context, prefix="fam.fig.")
    assert a.id == "fam.fig.slope" and a.verdict == "holds" and a.printed == -0.46
    assert "slope -0.50 is -1/2 within 0.05" in a.statement
    assert b.kind == "erratum" and b.verdict == "fails" and b.pair == "fam.fig.slope"


def test_ledger_leads_with_paper_claims_and_counts_kinds_apart(tmp_path):
    made = [
        claims.evaluate("fam.fig.a", "A", "S", "paper", exact(1.0), "<=", 2.0),
        claims.evaluate("fam.fig.b", "B", "S", "paper", t_mean([1.0, 3.0]), "<=", 2.0),
        claims.evaluate("fam.fig.c", "C", "S", "erratum", exact(3.0), "<=", 2.0, pair="fam.fig.a"),
        claims.evaluate("fam.fig.d", "D", "S", "control", exact(3.0), ">=", 2.0),
        claims.evaluate("fam.fig.e", "E", "S", "identity", exact(1e-16), "<=", 1e-12),
    ]
    claims.write(tmp_path / "x.json", made, figure="figures/fam/fig.pdf", scale="quick")
    table = claims.write_ledger([tmp_path / "x.json"], tmp_path / "c.csv", tmp_path / "c.md")
    assert table["verdict"].tolist() == ["holds", "undecided", "fails", "holds", "holds"]
    text = (tmp_path / "c.md").read_text()
    assert text.splitlines()[2] == (
        "**Paper claims: 1 hold, 0 fail, 1 undecided** (of 2). "
        "Undecided: 0 leaning holds, 0 leaning fails, 1 centred."
    )
    assert "erratum: 0 hold, 1 fail, 0 undecided" in text
    assert text.index("## Paper claims") < text.index("## Errata") < text.index("## Controls")
    counts = claims.kind_counts(table)
    assert counts.loc["paper"].tolist() == [1, 0, 1, 0] and counts.values.sum() == 5
    assert "UNDECIDED paper fam.fig.b" in claims.summarize(claims.read(tmp_path / "x.json"))


def test_ledger_rejects_duplicate_ids_and_orphan_errata(tmp_path):
    a = claims.evaluate("fam.fig.a", "A", "src", "paper", exact(1.0), "<=", 2.0)
    claims.write(tmp_path / "1.json", [a])
    claims.write(tmp_path / "2.json", [a])
    with pytest.raises(ValueError, match="duplicate claim ids"):
        claims.ledger([tmp_path / "1.json", tmp_path / "2.json"])
    e = claims.evaluate("fam.fig.e", "E", "src", "erratum", exact(1.0), "<=", 2.0, pair="fam.x.y")
    claims.write(tmp_path / "3.json", [e])
    with pytest.raises(ValueError, match="corrected claim is not in the ledger"):
        claims.ledger([tmp_path / "3.json"])


def test_verdict_caption_lists_every_claim_after_the_description(tmp_path):
    a = claims.evaluate("fam.fig.a", "A holds", "Seed Fig. 1", "paper", t_mean([1, 1.2]), "<=", 9)
    b = claims.evaluate("fam.fig.b", "B holds", "Seed Fig. 1", "control", exact(3.0), "<=", 2.0)
    claims.write(tmp_path / "x.json", [a, b], scale="quick")
    text = claims.verdict_caption(
        "Fig. 1 of {{ snakemake.params.x }}.", claims.read(tmp_path / "x.json")
    )
    assert text.startswith("Fig. 1 of {{ snakemake.params.x }}.")
    assert "- HOLDS (paper) ``fam.fig.a``: measured 1.1 [" in text
    assert "- **FAILS** (control) ``fam.fig.b``" in text and "quick scale" in text


def test_verdict_caption_escapes_markup_in_statements():
    c = claims.evaluate("family.item.what", "|x| of a*b", "Eq. (1)", "paper", exact(1.0), "<=", 2)
    record = {**asdict(c), "scale": "quick"}
    caption = claims.verdict_caption("Setup.", [record])
    assert r"\|x\| of a\*b" in caption and "``family.item.what``" in caption


def test_a_claim_that_cannot_fail_is_vacuous_not_a_hold():
    """A bound above the largest possible value (DJB21 Thm. 1 at quick scale) decides nothing."""
    c = claim(exact(0.3), "<=", 5.0, possible=(0.0, 1.0))
    assert c.verdict == "undecided" and c.note.startswith("VACUOUS")
    assert claim(exact(0.3), "<=", 0.5, possible=(0.0, 1.0)).verdict == "holds"
    assert claim(exact(0.7), "<=", 0.5, possible=(0.0, 1.0)).verdict == "fails"


def test_markdown_ledger_escapes_bars_in_statements(tmp_path):
    c = claims.evaluate("f.x.y", "||M||_F <= 1", "Eq. (1)", "paper", exact(0.5), "<=", 1.0)
    claims.write(tmp_path / "x.json", [c], scale="quick")
    claims.write_ledger([tmp_path / "x.json"], tmp_path / "c.csv", tmp_path / "c.md")
    row = [r for r in (tmp_path / "c.md").read_text().splitlines() if "f.x.y" in r][0]
    assert r"\|\|M\|\|_F <= 1" in row and row.count(" | ") == 8


# --- Tolerance reasons, leans, requirements, definitions --------------------------------------


def test_every_claim_has_a_tolerance_reason_from_the_vocabulary():
    assert claim(exact(0.5)).tolerance_reason.startswith("none:")
    ident = claim(exact(1e-15), bound=1e-12, kind="identity")
    assert ident.tolerance_reason.startswith("none:")
    assert claim(exact(0), bound=0, tol=1e-12, kind="identity").tolerance_reason.startswith(
        "round_off:"
    )
    stated = claim(exact(1.05), tol=0.1, tolerance_reason="printed: the seed prints 1.0")
    assert stated.tolerance_reason == "printed: the seed prints 1.0"
    assert claim(exact(1.05), tol=0.1).tolerance_reason == ""  # a paper margin must say why
    for bad in ("because", "guess: a round number", "printed:"):
        with pytest.raises(ValueError, match="f.x.y: tolerance_reason"):
            claim(exact(1.0), tol=0.1, tolerance_reason=bad)
    with pytest.raises(ValueError, match="'none' for a tolerance of 0.1"):
        claim(exact(1.0), tol=0.1, tolerance_reason="none: no margin")
    assert set(claims.TOLERANCE_REASONS) >= {"printed", "theorem", "finite_size", "wording"}


@pytest.mark.parametrize(
    "value, relation, lean",
    [(0.8, "<=", "holds"), (1.2, "<=", "fails"), (1.2, ">=", "holds"), (0.8, ">=", "fails")],
)
def test_an_undecided_claim_leans_to_the_side_of_its_point_estimate(value, relation, lean):
    """The point estimate's side of the limit, and the runs that would decide it: at that
    many runs (same mean and spread) the interval no longer contains the limit."""
    rng = np.random.default_rng(1)
    noise = rng.standard_normal(4)
    runs = value + 0.3 * (noise - noise.mean()) / noise.std(ddof=1)
    c = claim(t_mean(runs), relation, 1.0)
    assert c.verdict == "undecided" and c.lean == lean and c.units == "runs"
    assert f"leans {lean}" in c.note and 4 < c.to_decide < 400
    n = int(c.to_decide) + 1
    more = value + 0.3 * (np.resize(noise, n) - np.resize(noise, n).mean())
    more = value + 0.3 * (more - more.mean()) / more.std(ddof=1)
    assert claim(t_mean(more), relation, 1.0).verdict != "undecided"
    decided = claim(exact(0.5))
    assert decided.lean == "" and math.isnan(decided.to_decide) and decided.units == ""


def test_a_claim_on_its_limit_leans_centred():
    c = claim(t_mean([0.999, 1.3, 0.7, 1.001]), "<=", 1.0)
    assert c.verdict == "undecided" and c.lean == "centred"
    assert c.to_decide > claims.CENTRED_FACTOR * 4


def test_a_claim_whose_requirement_does_not_hold_is_invalid(tmp_path):
    setup = claims.Record("engaged", "s", "src", "setup", "share", ">=", 0.5)
    paper = claims.Record("beats", "p", "src", "paper", "diff", "<=", 0.0, requires=("engaged",))
    chained = claims.Record("then", "c", "src", "paper", "diff", "<=", 0.0, requires=("beats",))
    made = claims.judge_records(
        [setup, paper, chained], {"share": exact(0.0003), "diff": exact(-1.0)}, prefix="f.i."
    )
    assert made[1].requires == "f.i.engaged" and made[1].verdict == "holds"
    claims.write(tmp_path / "x.json", made)
    written = {r["id"]: r for r in claims.read(tmp_path / "x.json")}
    assert written["f.i.engaged"]["verdict"] == "fails"
    for name in ("beats", "then"):
        assert written[f"f.i.{name}"]["verdict"] == "invalid"
    assert written["f.i.beats"]["note"].startswith("INVALID: requires f.i.engaged, which fails")
    assert "its own interval verdict: holds" in written["f.i.beats"]["note"]
    assert written["f.i.then"]["note"].startswith("INVALID: requires f.i.beats, which is invalid")
    held = claims.judge_records(
        [setup, paper], {"share": exact(0.9), "diff": exact(-1.0)}, prefix="f.i."
    )
    assert [r["verdict"] for r in claims.apply_requirements([asdict(c) for c in held])] == [
        "holds",
        "holds",
    ]
    # across files: the ledger resolves what one file cannot, and names a missing requirement
    other = claims.evaluate(
        "f.j.x", "x", "src", "paper", exact(0.0), "<=", 1.0, requires=["f.i.engaged"]
    )
    claims.write(tmp_path / "y.json", [other])
    assert claims.read(tmp_path / "y.json")[0]["verdict"] == "holds"
    table = claims.ledger([tmp_path / "x.json", tmp_path / "y.json"]).set_index("id")
    assert table.loc["f.j.x", "verdict"] == "invalid"
    with pytest.raises(ValueError, match="f.i.engaged"):
        claims.ledger([tmp_path / "y.json"])


def _defined(**changes):
    base = dict(
        id="f.x.y",
        kind="paper",
        relation="within",
        bound=1.0,
        tolerance=0.05,
        tolerance_reason="wording: 'close to' read as 5%",
        interval="t",
        n=3,
        printed=math.nan,
        pair="",
        requires="",
        statement="slope = 1 within 0.05; sqrt(d) = 11.31 at depth 50",
        source="Seed Fig. 1",
    )
    return pd.DataFrame([base | changes])


@pytest.mark.parametrize(
    "field, value",
    [
        ("tolerance", 0.07),
        ("bound", 0.1),
        ("relation", "<="),
        ("interval", "bootstrap"),
        ("n", 4),
        ("printed", 1.0),
        ("requires", ""),
        ("tolerance_reason", "printed: two digits"),
        ("statement", "slope = 1 within 0.07; sqrt(d) = 11.31 at depth 50"),
        ("source", "Seed Fig. 2"),
        ("kind", "setup"),
    ],
)
def test_every_change_of_a_definition_shows(field, value):
    then = _defined(requires="f.x.z") if field == "requires" else _defined()
    now = then.assign(**{field: value})
    assert claims.compare_definitions(now, then) == [
        f"f.x.y: {field} {claims._plain(then[field][0])!r} -> {value!r}"
    ]


def test_definitions_round_trip_and_tolerate_only_another_cpus_rounding(tmp_path):
    """A written number compares exactly, a computed one within DEFINITION_RTOL; a statement
    compares as its record's template, whatever numbers the judge filled in."""
    then = _defined(bound=math.sqrt(0.5), statement_template="sqrt(d) = {sqrt_d:.2f}")
    claims.write_definitions(then, tmp_path / "d.csv")
    assert claims.compare_definitions(claims.read_definitions(tmp_path / "d.csv"), then) == []
    rounded = then.assign(bound=math.sqrt(0.5) * (1 + 1e-4), statement="sqrt(d) = 11.32")
    assert claims.compare_definitions(rounded, then) == []
    assert claims.compare_definitions(then.assign(bound=0.75), then) != []
    written = _defined()
    assert claims.compare_definitions(written.assign(tolerance=0.05 + 1e-12), written) != []
    assert claims.compare_definitions(then.assign(statement_template="sqrt(d) >= 1"), then) != []
    assert claims.compare_definitions(then.assign(id="f.x.z"), then) == [
        "f.x.z: not in the recorded definitions",
        "f.x.y: recorded, but no longer made",
    ]


def test_control_reason_names_the_borrowed_bound_after_the_category():
    """A control bounded by another claim's margin keeps that claim's reason, its category
    first, and says whose margin its bound is; the result is a valid stated reason."""
    reason = "wording: 'close to' read as within {margin:g}"
    borrowed = claims.control_reason(reason, "the decay claims' margin")
    assert borrowed == (
        "wording: the control's bound is the decay claims' margin; 'close to' read as within "
        "{margin:g}"
    )
    assert borrowed == reason.replace(
        "wording: ", "wording: the control's bound is the decay claims' margin; "
    )
    assert claims.stated_reason(borrowed, "control", 0.1) == borrowed
