"""Thesis Thm. 5.8 / 5.11 kernel-bound check on a tiny grid (papers.isometry.kernel_bound_*)."""

import pytest

from sigprop.papers.isometry.kernel_bound_judges import kernel_bounds_claims
from sigprop.papers.isometry.kernel_bound_theorems import kernel_bounds
from sigprop.pipeline.jobs import read_table

RHO0 = [-0.9, 0.5]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The measured table, read back from its CSV as the judge job does."""
    path = tmp_path_factory.mktemp("kernel_bounds") / "kernel_bounds.csv"
    kernel_bounds(["tanh", "relu", "exp", "sigmoid"], RHO0, 20, 101, 1e-6).to_csv(path, index=False)
    return read_table(path)


def test_verdicts(table):
    claims = kernel_bounds_claims(table, rho0=RHO0, depth=20, float_tolerance=1e-10, n_grid=101)
    verdicts = {c.id.split(".")[-1]: c.verdict for c in claims}
    assert verdicts.pop("printed_eq5_7") == "fails"  # erratum: tanh violates (5.7)
    assert set(verdicts.values()) == {"holds"}, verdicts
    kinds = {c.id.split(".")[-1]: (c.kind, c.pair) for c in claims}
    assert kinds["printed_eq5_7"] == ("erratum", "isometry.kernel_bounds.thm5_8")
    assert kinds["control_identity"][0] == kinds["control_he3_pm1"][0] == "control"
    assert {"thm5_8", "cor5_10", "case2", "case3", "case4", "unique_fixed_point"} <= set(verdicts)


def test_cases_and_controls(table):
    cases = table[table["check"] == "fixed_points"].set_index("activation")["case"]
    assert cases["tanh"] == 1 and cases["sigmoid"] == 2 and cases["relu"] == 3
    assert cases["fig5_1_case4"] == 4
    controls = table[table["check"].str.startswith("control")]
    assert (controls["max_excess"] == 0).all()


def test_rho0_on_the_boundary_raises():
    with pytest.raises(ValueError, match="open interval"):
        kernel_bounds(["tanh"], [1.0], 5, 11, 1e-6)
