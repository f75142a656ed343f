"""Thesis Thm. 5.15 and Props. 5.1/5.2: effective kernels, normalization layers, finite width
(papers.isometry.normalization_layer_theorems, papers.isometry.finite_width_theorems)."""

import math

import numpy as np
import pandas as pd
import pytest
import torch
from item_setups import quick_setup

from sigprop.engine import ops
from sigprop.papers.isometry import finite_width_judges as FJ
from sigprop.papers.isometry import finite_width_theorems as F
from sigprop.papers.isometry import hermite as H
from sigprop.papers.isometry import normalization_layer_judges as NJ
from sigprop.papers.isometry import normalization_layer_theorems as N
from sigprop.pipeline.jobs import read_table


def round_trip(table, tmp_path):
    path = tmp_path / "table.csv"
    table.to_csv(path, index=False)
    return read_table(path)


@pytest.mark.parametrize("name", ["relu", "gelu", "exp"])
def test_post_ln_kernel_is_centred_and_normalized(name):
    km = H.kernel_map(name)
    kappa, k0, dk0, dk1 = N.effective_kernel(km, "post_ln")
    assert k0 == 0.0
    assert kappa(np.array([0.0]))[0] == pytest.approx(0.0, abs=1e-12)
    assert kappa(np.array([1.0]))[0] == pytest.approx(1.0, abs=1e-12)
    h = 1e-5
    var = 1.0 - km.kappa0
    for r, slope in ((0.0, dk0), (0.5, km.dkappa(np.array([0.5]))[0] / var)):
        fd = (kappa(np.array([r + h]))[0] - kappa(np.array([r - h]))[0]) / (2 * h)
        assert fd == pytest.approx(slope, rel=1e-6)
    assert dk1 == pytest.approx(km.dkappa1 / var, rel=1e-14)


@pytest.mark.parametrize("norm", ["none", "pre_rms", "pre_ln", "post_rms"])
def test_other_norms_keep_the_normalized_kernel(norm):
    km = H.kernel_map("relu")
    kappa, k0, dk0, dk1 = N.effective_kernel(km, norm)
    assert kappa == km.kappa and (k0, dk0, dk1) == (km.kappa0, km.dkappa0, km.dkappa1)


def test_post_ln_relu_rates_match_the_catalog():
    km = H.kernel_map("relu")
    _, _, dk0, _ = N.effective_kernel(km, "post_ln")
    assert dk0 == pytest.approx(0.5 / (1 - 1 / math.pi), rel=1e-12)  # 0.733
    assert (1 - km.kappa0) / km.dkappa1 == pytest.approx(0.6817, abs=1e-4)  # printed (5.14)
    assert 1 / (2 - dk0) == pytest.approx(0.7896, abs=1e-4)


def test_bad_norm_raises():
    with pytest.raises(ValueError, match="norm must be one of"):
        N.effective_kernel(H.kernel_map("tanh"), "batch")


def test_layers_follow_eqs_5_11_to_5_13():
    g = torch.Generator().manual_seed(0)
    wh = torch.randn(3, 50, 4, generator=g, dtype=torch.float64)
    act = H.activation("relu")
    post = N.layer(wh, act, 1.0, "post_ln")
    assert torch.allclose(post.mean(dim=-2), torch.zeros(3, 4, dtype=post.dtype), atol=1e-12)
    assert torch.allclose(post.square().mean(dim=-2), torch.ones(3, 4, dtype=post.dtype))
    assert torch.allclose(N.layer(wh, act, 1.0, "pre_rms"), torch.relu(ops.ln_rms(wh)))
    assert torch.allclose(N.layer(wh, act, 1.0, "pre_ln"), torch.relu(ops.ln_centered(wh)))
    assert torch.allclose(N.layer(wh, act, 2.0, "none"), torch.relu(wh) / 2)
    assert torch.allclose(N.layer(wh, act, 1.0, "post_rms"), ops.ln_rms(torch.relu(wh)))


def test_pair_inputs_have_the_requested_cosine():
    x = F.pair_inputs(64, -0.3, [0, 1])
    assert x.shape == (2, 64, 2)
    assert torch.allclose(x.square().sum(-2), torch.full((2, 2), 64.0, dtype=x.dtype))
    cos = (x[..., 0] * x[..., 1]).sum(-1) / 64
    assert torch.allclose(cos, torch.full((2,), -0.3, dtype=x.dtype))
    with pytest.raises(ValueError, match="rho0"):
        F.pair_inputs(8, 1.0, [0])


@pytest.mark.parametrize("norm", ["none", "pre_ln", "post_ln"])
def test_wide_network_follows_the_effective_kernel(norm):
    """Prop. 5.1 / Thm. 5.15 proof: at d = 2e4 one layer lands within ~5 / sqrt(d) of kappa_psi."""
    torch.set_num_threads(1)
    cos = F.finite_width_cosines([("relu", norm)], 20000, 0.3, 2, 4, "gaussian")
    kappa = N.effective_kernel(H.kernel_map("relu"), norm)[0]
    want = H.iterate(kappa, [0.3], 2)[0, 1:]
    assert np.abs(cos[0].mean(0) - want).max() < 5 / math.sqrt(20000)


def test_theorem5_15_printed_fails_corrected_holds(tmp_path):
    rho0 = [-0.9, 0.5, 0.99]
    table = round_trip(N.theorem5_15(["tanh", "relu"], ["none", "post_ln"], rho0, 30), tmp_path)
    claims = NJ.theorem5_15_claims(
        table, rho0=rho0, depth=30, case_tolerance=1e-6, float_tolerance=1e-10
    )
    verdict = {c.id.split(".")[-1]: (c.kind, c.verdict) for c in claims}
    assert verdict == {
        "printed_eq5_14": ("erratum", "fails"),
        "corrected_rate": ("paper", "holds"),
        "alpha_below_one": ("paper", "holds"),
        "control_uncentred": ("control", "holds"),
    }
    assert claims[0].pair == "isometry.theorem5_15.corrected_rate"
    checked = NJ.conditions(table, 1e-6).set_index(["activation", "norm"])
    row = checked.loc[("relu", "post_ln")]
    assert row["conditions_hold"] and row["max_excess_printed"] > 1e-10
    assert not checked.loc[("relu", "none"), "centred_ok"]


def test_prop5_1_small_runs_and_validates(tmp_path):
    setup = dict(
        activations=["relu"],
        norms=["none", "post_ln"],
        widths=[20, 40, 80],
        depth=3,
        runs=3,
        rho0=0.5,
        laws=["gaussian", "uniform"],
    )
    table = round_trip(F.prop5_1(**quick_setup("isometry", "prop5_1", **setup)), tmp_path)
    assert len(table) == 4
    claims = FJ.prop5_1_claims(
        table, **setup, slope_margin=0.15, agree_margin=0.02, control_slope=-0.25
    )
    assert [c.kind for c in claims] == ["paper"] * 5 + ["control"]
    ids = {c.id for c in claims}
    assert ids == {
        "isometry.prop5_1.converges_gaussian",
        "isometry.prop5_1.converges_uniform",
        "isometry.prop5_1.slope_gaussian",
        "isometry.prop5_1.slope_uniform",
        "isometry.prop5_1.laws_agree",
        "isometry.prop5_1.control_wrong_kernel",
    }
    with pytest.raises(ValueError, match="at least 3"):
        F.prop5_1(["relu"], ["none"], [20, 40], 3, 3, 0.5, ["gaussian"])
    with pytest.raises(ValueError, match="law must be"):
        F.finite_width_cosines([("relu", "none")], 10, 0.5, 1, 2, "cauchy")


def test_theorem5_15_alpha_below_one_can_fail(tmp_path):
    """alpha < 1 is judged over every row whose centring condition holds, not only those already
    filtered by kappa_psi'(0) < 1: a linear phi (kappa_psi'(0) = 1, alpha = 1) makes it fail."""
    rho0 = [-0.5, 0.5]
    table = round_trip(N.theorem5_15(["tanh"], ["none"], rho0, 10), tmp_path)
    linear = table.assign(activation="linear", dkappa_psi0=1.0, alpha_corrected=1.0)
    claims = NJ.theorem5_15_claims(
        pd.concat([table, linear], ignore_index=True), rho0=rho0, depth=10,
        case_tolerance=1e-6, float_tolerance=1e-10,
    )  # fmt: skip
    alpha = next(c for c in claims if c.id.endswith("alpha_below_one"))
    assert alpha.verdict == "fails"


def _prop5_1_table(slope, slope_se, cos_gap=0.0, wrong_slope=0.0):
    row = {
        "activation": "relu",
        "norm": "none",
        "slope": slope,
        "slope_se": slope_se,
        "slope_wrong_kernel": wrong_slope,
        "slope_wrong_kernel_se": 0.01,
    }
    for d in (20, 40, 80):
        row |= {f"mean_cosine_d{d}": 0.5, f"mean_cosine_se_d{d}": 0.001}
    other = dict(row, law="uniform")
    other |= {f"mean_cosine_d{d}": 0.5 + cos_gap for d in (20, 40, 80)}
    return pd.DataFrame([dict(row, law="gaussian"), other])


def test_prop5_1_margins_decide_and_can_fail():
    """Declared margins (no SE multiples): a slope near -1/2 with a small SE holds, a slope of 0
    fails, a wide SE is undecided; laws 0.1 apart fail; a converging control fails."""
    setup = dict(widths=[20, 40, 80], depth=3, laws=["gaussian", "uniform"], runs=5,
                 slope_margin=0.15, agree_margin=0.02, control_slope=-0.25)  # fmt: skip

    def verdicts(table):
        return {c.id.split(".")[-1]: c.verdict for c in FJ.prop5_1_claims(table, **setup)}

    assert verdicts(_prop5_1_table(-0.5, 0.01)) == {
        "converges_gaussian": "holds", "converges_uniform": "holds",
        "slope_gaussian": "holds", "slope_uniform": "holds", "laws_agree": "holds",
        "control_wrong_kernel": "holds",
    }  # fmt: skip
    assert verdicts(_prop5_1_table(0.0, 0.01))["slope_gaussian"] == "fails"
    assert verdicts(_prop5_1_table(0.0, 0.01))["converges_gaussian"] == "fails"
    # a slope of -0.3: no d^(-1/2) rate, but it converges (the limit the propositions state)
    shallow = verdicts(_prop5_1_table(-0.3, 0.01))
    assert shallow["slope_gaussian"] == "fails" and shallow["converges_gaussian"] == "holds"
    assert verdicts(_prop5_1_table(-0.5, 0.2))["slope_gaussian"] == "undecided"
    assert verdicts(_prop5_1_table(-0.5, 0.01, cos_gap=0.1))["laws_agree"] == "fails"
    assert verdicts(_prop5_1_table(-0.5, 0.01, wrong_slope=-0.5))["control_wrong_kernel"] == "fails"


def _after_requirements(claims):
    """Verdicts once requirements are applied, as ``claims.write`` does for an item's file."""
    from dataclasses import asdict

    from sigprop.verdicts.claims import apply_requirements

    return {
        r["id"].split(".")[-1]: r
        for r in apply_requirements([asdict(c) for c in claims], strict=False)
    }


def test_prop5_1_convergence_claims_require_the_wrong_kernel_control():
    """A wrong-kernel control that converges (so the slope test cannot tell a wrong kernel)
    makes every convergence and rate claim invalid; the laws' agreement does not depend on it."""
    setup = dict(widths=[20, 40, 80], depth=3, laws=["gaussian", "uniform"], runs=5,
                 slope_margin=0.15, agree_margin=0.02, control_slope=-0.25)  # fmt: skip
    claims = FJ.prop5_1_claims(_prop5_1_table(-0.5, 0.01, wrong_slope=-0.5), **setup)
    after = _after_requirements(claims)
    assert after["control_wrong_kernel"]["verdict"] == "fails"
    for name in ("converges_gaussian", "converges_uniform", "slope_gaussian", "slope_uniform"):
        assert after[name]["verdict"] == "invalid", name
        assert "requires isometry.prop5_1.control_wrong_kernel, which fails" in after[name]["note"]
    assert after["laws_agree"]["verdict"] == "holds"
    assert all(c.tolerance_reason.startswith("wording: ") for c in claims)


def test_theorem5_15_corrected_rate_requires_the_uncentred_control(tmp_path):
    """corrected_rate presumes the control that shows its bound can fail; without an uncentred
    case there is no control and no requirement."""
    rho0 = [-0.9, 0.5, 0.99]
    table = round_trip(N.theorem5_15(["tanh", "relu"], ["none", "post_ln"], rho0, 30), tmp_path)
    settings = dict(rho0=rho0, depth=30, case_tolerance=1e-6, float_tolerance=1e-10)
    claims = NJ.theorem5_15_claims(table, **settings)
    rate = next(c for c in claims if c.id.endswith("corrected_rate"))
    assert rate.requires == "isometry.theorem5_15.control_uncentred"
    assert rate.tolerance_reason.startswith("round_off: ")
    # the control fails if the uncentred excess were within round-off: corrected_rate is invalid
    broken = table.assign(
        max_excess_corrected=table["max_excess_corrected"].where(
            NJ.conditions(table, 1e-6)["centred_ok"], 0.0
        )
    )
    after = _after_requirements(NJ.theorem5_15_claims(broken, **settings))
    assert after["control_uncentred"]["verdict"] == "fails"
    assert after["corrected_rate"]["verdict"] == "invalid"
    centred = table[NJ.conditions(table, 1e-6)["centred_ok"]]
    alone = NJ.theorem5_15_claims(centred, **settings)
    assert [c.requires for c in alone if c.id.endswith("corrected_rate")] == [""]
