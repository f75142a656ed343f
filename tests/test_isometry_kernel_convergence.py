"""Thesis Figs. 5.1, 5.2: iterates, bounds, curves, claims (isometry.kernel_convergence_*)."""

import numpy as np
import pytest

from sigprop.papers.isometry import hermite as H
from sigprop.papers.isometry.kernel_convergence_judges import fig5_2_claims, fig5_claims
from sigprop.papers.isometry.kernel_convergence_tables import (
    kernel_convergence,
    kernel_curves,
    plotted_numbers,
    subject,
)
from sigprop.pipeline.jobs import read_table


def test_subject_resolves_fig5_1_and_named():
    assert subject("case3").hermite == pytest.approx(H.FIG5_1["case3"][0])
    assert subject("relu") is H.activation("relu")
    with pytest.raises(ValueError, match="activation must be one of"):
        subject("nope")


def test_fig5_1_closed_forms_and_cases():
    rho0 = [H.FIG5_1[c][1] for c in H.FIG5_1]
    t = kernel_convergence(list(H.FIG5_1), rho0, 10, 25, 1e-6)
    first = t[t.layer == 0].set_index("activation")
    assert list(first["case"]) == [1, 2, 3, 4]
    assert first.loc["case4", "rho_star"] == pytest.approx(0.25, abs=1e-12)
    # case 3: kappa = (1 + rho^2) / 2, so rho_1 = (1 + 0.04) / 2 from rho_0 = -0.2
    r1 = t.query("activation == 'case3' and layer == 1")["rho"].item()
    assert r1 == pytest.approx(0.52, abs=1e-14)
    assert (t["distance"] - t["bound"]).max() <= 1e-12
    assert np.all(t[t.layer == 0]["bound"] >= t[t.layer == 0]["distance"] - 1e-12)


def test_relu_exact_case3_truncated_case2_and_claims():
    t = kernel_convergence(["tanh", "relu"], [-0.8, -0.5], 30, 25, 1e-6)
    relu = t[t.activation == "relu"].iloc[0]
    assert (relu.case, relu.case_truncated) == (3, 2)
    assert relu.C == pytest.approx(2**-0.5, rel=1e-12)
    claims = {c.id: c for c in fig5_claims(t, "fig5_2", 1e-10, 0.25)}
    assert claims["isometry.fig5_2.relu_bound"].verdict == "holds"
    assert claims["isometry.fig5_2.tanh_converges"].verdict == "holds"
    erratum = claims["isometry.fig5_2.tanh_printed_eq5_7"]
    assert erratum.verdict == "fails" and erratum.kind == "erratum"
    assert erratum.pair == "isometry.fig5_2.tanh_bound"
    assert "isometry.fig5_2.relu_printed_eq5_7" not in claims


def test_claims_from_the_plotted_csv_equal_those_of_the_table(tmp_path):
    """The figure's CSV (iterations and curves) read back gives the same claims."""
    t = kernel_convergence(["tanh", "relu"], [-0.8, -0.5], 30, 25, 1e-6)
    path = tmp_path / "fig5_2.csv"
    plotted_numbers(t, kernel_curves(["tanh", "relu"], 11)).to_csv(path, index=False)
    direct = fig5_claims(t, "fig5_2", 1e-10, 0.25)
    read = fig5_2_claims(read_table(path), float_tolerance=1e-10, max_contraction=0.25)
    assert [(c.id, c.statement, c.measured, c.verdict) for c in direct] == [
        (c.id, c.statement, c.measured, c.verdict) for c in read
    ]


def test_bound_claim_fails_when_bound_is_broken():
    t = kernel_convergence(["exp"], [-0.5], 10, 25, 1e-6)
    t["bound"] = t["bound"] * 0.5
    claims = {c.id: c for c in fig5_claims(t, "fig5_2", 1e-10, 1e-3)}
    assert claims["isometry.fig5_2.exp_bound"].verdict == "fails"
    assert claims["isometry.fig5_2.exp_converges"].verdict == "fails"  # case 3 is slow: O(1 / l)


def test_curves_normalized_and_kernel_ends():
    c = kernel_curves(["exp", "case2"], 11)
    ker = c[c.panel == "kernel"].set_index(["activation", "x"])["y"]
    assert ker[("exp", 1.0)] == pytest.approx(1.0, abs=1e-12)
    assert ker[("exp", -1.0)] == pytest.approx(np.exp(-2.0), abs=1e-12)
    act = c[(c.panel == "activation") & (c.activation == "exp")]
    assert act["y"].iloc[-1] == pytest.approx(np.exp(3.0) / np.e, rel=1e-12)  # C = e


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rho0": [0.5, 0.2]}, "one rho0 per subject"),
        ({"rho0": [1.0]}, "open interval"),
        ({"layers": 0}, "layers must be"),
    ],
)
def test_bad_input(kwargs, match):
    args = {"subjects": ["exp"], "rho0": [0.5], "layers": 3, "order": 25, "case_tolerance": 1e-6}
    with pytest.raises(ValueError, match=match):
        kernel_convergence(**{**args, **kwargs})
