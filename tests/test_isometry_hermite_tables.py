"""Thesis Tables 5.1 and 5.2: generated tables and their claims (papers.isometry.hermite_tables)."""

import pytest

from sigprop.papers.isometry import hermite_table_judges as J
from sigprop.papers.isometry import hermite_tables as T


def test_tables_and_their_claims():
    t1 = T.table5_1(30, 40)
    assert list(t1["He_k"]) == ["1", "x", "x^2 - 1", "x^3 - 3x", "x^4 - 6x^2 + 3"]
    claims = J.table5_1_claims(t1, 1e-12)
    assert [(c.kind, c.verdict) for c in claims] == [("paper", "holds"), ("identity", "holds")]
    with pytest.raises(ValueError, match="not exact"):
        T.table5_1(30, 20)
    t2 = T.table5_2(["relu", "tanh"], 25, 60, 0.9, 1e-6, 20_000, [0.0, 0.5])
    relu = t2.set_index("activation").loc["relu"]
    assert relu["case"] == 3 and relu["case_truncated"] == 2
    claims = {c.id.split(".")[-1]: c for c in J.table5_2_claims(t2, 1e-12, 0.05)}
    erratum = claims.pop("relu_case2_thesis")
    assert erratum.kind == "erratum" and erratum.verdict == "fails"
    assert erratum.pair == "isometry.table5_2.relu_case_exact"
    assert claims["relu_case_exact"].kind == "paper" and claims["relu_case_exact"].printed == 1.0
    assert {k: c.verdict for k, c in claims.items()} == dict.fromkeys(claims, "holds")
    kinds = {k: c.kind for k, c in claims.items()}
    assert kinds["series_vs_quadrature"] == "identity" and kinds["monte_carlo"] == "setup"


def test_monte_carlo_claim_is_judged_against_its_margin():
    """|MC - exact| with its MC interval against a declared margin (no SE multiple): small
    error holds, large fails, a wide MC interval across the margin is undecided."""
    t2 = T.table5_2(["tanh"], 25, 60, 0.9, 1e-6, 1000, [0.5])

    def verdict(error, se):
        table = t2.assign(mc_worst_error=error, mc_worst_se=se)
        return next(c for c in J.table5_2_claims(table, 1e-12, 0.02) if "monte" in c.id).verdict

    assert verdict(0.001, 0.001) == "holds"
    assert verdict(0.05, 0.001) == "fails"
    assert verdict(0.01, 0.02) == "undecided"
