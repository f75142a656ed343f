"""Tests of sigprop.claims: verdicts computed, never set; the ledger."""

import math

import pytest

from sigprop import claims


@pytest.mark.parametrize(
    "measured, relation, bound, tol, passed",
    [
        (0.9, "<=", 1.0, 0.0, True),
        (1.05, "<=", 1.0, 0.0, False),
        (1.05, "<=", 1.0, 0.1, True),
        (6.0, ">=", 5.66, 0.0, True),
        (5.0, ">=", 5.66, 0.0, False),
        (-0.503, "within", -0.5, 0.005, True),
        (-0.51, "within", -0.5, 0.005, False),
    ],
)
def test_verdict_follows_the_numbers(measured, relation, bound, tol, passed):
    c = claims.evaluate("f.x.y", "s", "src", measured, relation, bound, tol)
    assert c.passed is passed
    assert c.verdict == ("pass" if passed else "fail")


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
def test_non_finite_numbers_are_invalid_never_pass_or_fail(measured, bound, tol, why):
    """An overflow or an empty average is neither a pass nor a fail (issue 12, item 3)."""
    for relation in claims.RELATIONS:
        c = claims.evaluate("f.x.y", "s", "src", measured, relation, bound, tol, note="n")
        assert c.passed is None and c.verdict == "invalid"
        assert why in c.note and c.note.endswith("; n")


def test_invalid_claims_are_counted_in_the_ledger(tmp_path):
    ok = claims.evaluate("fam.fig.a", "A", "src", 1.0, "<=", 2.0)
    bad = claims.evaluate("fam.fig.b", "B", "src", math.nan, ">=", 0.05)
    claims.write(tmp_path / "x.json", [ok, bad], scale="quick")
    table = claims.write_ledger([tmp_path / "x.json"], tmp_path / "c.csv", tmp_path / "c.md")
    assert table["verdict"].tolist() == ["pass", "invalid"]
    assert "2 claims: 1 hold, 0 fail, 1 invalid" in (tmp_path / "c.md").read_text()
    assert "**INVALID**" in (tmp_path / "c.md").read_text()
    assert "INVALID fam.fig.b" in claims.summarize(claims.read(tmp_path / "x.json"))


def test_bad_relation_and_tolerance_are_rejected():
    with pytest.raises(ValueError, match="relation"):
        claims.evaluate("f.x.y", "s", "src", 1.0, "<", 2.0)
    with pytest.raises(ValueError, match="tolerance must be >= 0"):
        claims.evaluate("f.x.y", "s", "src", 1.0, "<=", 2.0, -1.0)


def test_ledger_roundtrip_and_markdown(tmp_path):
    a = claims.evaluate("fam.fig.a", "A holds", "Seed Fig. 1", 1.0, "<=", 2.0)
    b = claims.evaluate("fam.fig.b", "B holds", "Seed Fig. 1", 3.0, "<=", 2.0, measured_se=0.1)
    claims.write(tmp_path / "x.json", [a, b], figure="figures/fam/fig.pdf", scale="quick")
    table = claims.write_ledger([tmp_path / "x.json"], tmp_path / "c.csv", tmp_path / "c.md")
    assert table["id"].tolist() == ["fam.fig.a", "fam.fig.b"]
    assert table["passed"].tolist() == [True, False]
    assert set(table["figure"]) == {"figures/fam/fig.pdf"}
    text = (tmp_path / "c.md").read_text()
    assert "2 claims: 1 hold, 1 fail." in text and "**FAIL**" in text
    assert table["verdict"].tolist() == ["pass", "fail"]


def test_ledger_rejects_duplicate_ids(tmp_path):
    a = claims.evaluate("fam.fig.a", "A", "src", 1.0, "<=", 2.0)
    claims.write(tmp_path / "1.json", [a])
    claims.write(tmp_path / "2.json", [a])
    with pytest.raises(ValueError, match="duplicate claim ids"):
        claims.ledger([tmp_path / "1.json", tmp_path / "2.json"])


def test_verdict_caption_lists_every_claim_after_the_description(tmp_path):
    a = claims.evaluate("fam.fig.a", "A holds", "Seed Fig. 1", 1.0, "<=", 2.0, measured_se=0.1)
    b = claims.evaluate("fam.fig.b", "B holds", "Seed Fig. 1", 3.0, "<=", 2.0)
    claims.write(tmp_path / "x.json", [a, b], scale="quick")
    text = claims.verdict_caption(
        "Fig. 1 of {{ snakemake.params.x }}.", claims.read(tmp_path / "x.json")
    )
    assert text.startswith("Fig. 1 of {{ snakemake.params.x }}.")
    assert "- PASS ``fam.fig.a``: measured 1 +- 0.1 <= 2." in text
    assert "- **FAIL** ``fam.fig.b``" in text and "quick scale" in text


def test_verdict_caption_escapes_markup_in_statements():
    record = {
        "id": "family.item.what", "statement": "|x| of a*b", "source": "Eq. (1)", "scale": "quick",
        "passed": True, "measured": 1.0, "measured_se": float("nan"), "relation": "<=",
        "bound": 2.0, "tolerance": 0.0,
    }  # fmt: skip
    caption = claims.verdict_caption("Setup.", [record])
    assert r"\|x\| of a\*b" in caption and "``family.item.what``" in caption
