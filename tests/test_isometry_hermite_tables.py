"""Thesis Tables 5.1 and 5.2: generated tables and their claims (papers.isometry.hermite_tables)."""

import pytest

from sigprop.papers.isometry import hermite_table_judges as J
from sigprop.papers.isometry import hermite_tables as T


def test_tables_and_their_claims():
    t1 = T.table5_1(30, 40)
    assert list(t1["He_k"]) == ["1", "x", "x^2 - 1", "x^3 - 3x", "x^4 - 6x^2 + 3"]
    assert all(c.passed for c in J.table5_1_claims(t1, 1e-12))
    with pytest.raises(ValueError, match="not exact"):
        T.table5_1(30, 20)
    t2 = T.table5_2(["relu", "tanh"], 25, 60, 0.9, 1e-6, 20_000, [0.0, 0.5])
    relu = t2.set_index("activation").loc["relu"]
    assert relu["case"] == 3 and relu["case_truncated"] == 2
    verdicts = {c.id.split(".")[-1]: c.passed for c in J.table5_2_claims(t2, 1e-12, 4.0)}
    assert verdicts.pop("relu_case2_thesis") is False
    assert all(verdicts.values()), verdicts
