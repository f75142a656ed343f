"""Thesis Thm. 5.15 and Props. 5.1/5.2: effective kernels, normalization layers, finite width
(papers.isometry.normalization_layers, papers.isometry.finite_width)."""

import math

import numpy as np
import pytest
import torch

from sigprop import hermite as H
from sigprop import ops
from sigprop.papers.isometry import finite_width as F
from sigprop.papers.isometry import finite_width_judges as FJ
from sigprop.papers.isometry import normalization_layer_judges as NJ
from sigprop.papers.isometry import normalization_layers as N
from sigprop.workflow import read_table


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
    verdict = {c.id.split(".")[-1]: c.passed for c in claims}
    assert verdict == {
        "printed_eq5_14": False,
        "corrected_rate": True,
        "alpha_below_one": True,
        "control_uncentred": True,
    }
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
    table = round_trip(F.prop5_1(**setup), tmp_path)
    assert len(table) == 4
    claims = FJ.prop5_1_claims(
        table, **setup, slope_z=3.0, slope_slack=0.15, agree_z=4.0, control_slope=-0.25
    )
    ids = {c.id for c in claims}
    assert ids == {
        "isometry.prop5_1.slope_gaussian",
        "isometry.prop5_1.slope_uniform",
        "isometry.prop5_1.laws_agree",
        "isometry.prop5_1.control_wrong_kernel",
    }
    with pytest.raises(ValueError, match="at least 3"):
        F.prop5_1(["relu"], ["none"], [20, 40], 3, 3, 0.5, ["gaussian"])
    with pytest.raises(ValueError, match="law must be"):
        F.finite_width_cosines([("relu", "none")], 10, 0.5, 1, 2, "cauchy")
