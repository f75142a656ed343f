"""Thesis Thm. 5.8 / 5.11 kernel-bound check on a tiny grid."""

import pytest

from sigprop.theorems.isometry_kernel import kernel_bounds


@pytest.fixture(scope="module")
def result():
    return kernel_bounds(["tanh", "relu", "exp", "sigmoid"], [-0.9, 0.5], 20, 101, 1e-6, 1e-10)


def test_verdicts(result):
    verdicts = {c.id.split(".")[-1]: c.passed for c in result.claims}
    assert verdicts.pop("printed_eq5_7") is False  # erratum: tanh violates (5.7)
    assert all(verdicts.values()), verdicts
    assert {"thm5_8", "cor5_10", "case2", "case3", "case4", "unique_fixed_point"} <= set(verdicts)


def test_cases_and_controls(result):
    t = result.table
    cases = t[t["check"] == "fixed_points"].set_index("activation")["case"]
    assert cases["tanh"] == 1 and cases["sigmoid"] == 2 and cases["relu"] == 3
    assert cases["fig5_1_case4"] == 4
    controls = t[t["check"].str.startswith("control")]
    assert (controls["max_excess"] == 0).all()


def test_rho0_on_the_boundary_raises():
    with pytest.raises(ValueError, match="open interval"):
        kernel_bounds(["tanh"], [1.0], 5, 11, 1e-6, 1e-10)
