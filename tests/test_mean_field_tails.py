"""Thesis ch. 3 / app. B tails (Lemmas B.1, B.2, 3.3 proxy) and the Assumption 3.1 mixing proxy."""

import math

import pytest
import torch

from sigprop import mean_field as mf
from sigprop.theorems import mean_field_tails as mt


def test_gaussian_quantile_ratio_closed_form():
    # P(T > s) = exp(-s^2): q_p = sqrt(-ln(1 - p))
    assert mt.gaussian_quantile_ratio(0.99, 0.5) == pytest.approx(
        math.sqrt(math.log(100) / math.log(2))
    )
    t = torch.sqrt(-torch.log(torch.rand(200_000, generator=torch.Generator().manual_seed(1))))
    assert mt.quantile_ratio(t, 0.99, 0.5) == pytest.approx(mt.gaussian_quantile_ratio(), rel=0.02)
    with pytest.raises(ValueError, match="lower < upper"):
        mt.gaussian_quantile_ratio(0.5, 0.9)


def test_wls_slope_exact_line_and_errors():
    slope, se = mt.wls_slope([0.0, 1.0, 2.0], [1.0, 0.5, 0.0], [0.1, 0.1, 0.1])
    assert slope == pytest.approx(-0.5) and se == pytest.approx(0.1 / math.sqrt(2))
    with pytest.raises(ValueError, match=">= 2 points"):
        mt.wls_slope([1.0], [1.0], [1.0])


def test_collinear_inputs_are_collinear_after_centring():
    h = mt.collinear_inputs("test.mf2", range(2), 300, 6, 1e-6)
    a = mf.bn_activation(h, "linear")
    cos = mf.gram(a)
    cos = cos / torch.sqrt(
        cos.diagonal(dim1=-2, dim2=-1)[..., :, None] * cos.diagonal(dim1=-2, dim2=-1)[..., None, :]
    )
    assert torch.allclose(cos.abs(), torch.ones_like(cos), atol=1e-4)
    with pytest.raises(ValueError, match="noise"):
        mt.collinear_inputs("test.mf2", range(1), 10, 4, 0.0)


def test_lemma_b1_b2_tiny_passes_and_bounds_hold():
    res = mt.lemma_b1_b2(
        batch_size=5,
        activations=["tanh"],
        widths=[20, 80],
        draws=300,
        fixed_point_samples=20_000,
        n_boot=50,
        device="cpu",
    )
    verdict = {c.id.split(".")[-1]: c for c in res.claims}
    assert verdict["row_norm_bound"].passed and verdict["row_norm_bound"].measured <= 1.0
    assert verdict["tail_control"].passed and verdict["lemma3_3_control"].passed
    assert verdict["b1_tail"].passed and verdict["b2_tail"].passed
    # E ||C_d - C||_F^2 = E ||x x^T - C||_F^2 / d exactly: normalised RMS is width-free
    rms = res.table["b1_normalised_rms"].to_numpy()
    assert rms[1] == pytest.approx(rms[0], rel=0.1)


def test_lemma_b1_b2_rejects_singular_and_unknown():
    with pytest.raises(ValueError, match="singular"):
        mt.lemma_b1_b2(
            activations=["linear"],
            widths=[10, 20],
            draws=100,
            device="cpu",
            fixed_point_samples=1000,
            n_boot=10,
        )
    with pytest.raises(ValueError, match="no bound B"):
        mt.lemma_b1_b2(activations=["gelu"], widths=[10, 20], draws=100, device="cpu")
    with pytest.raises(ValueError, match="2 widths"):
        mt.lemma_b1_b2(widths=[10], device="cpu")


def test_mixing_tiny_merges():
    res = mt.mixing(
        batch_size=5,
        widths=[100],
        activations=["relu"],
        depth=20,
        n_runs=8,
        fixed_point_samples=10_000,
        merged_from=14,
        n_boot=50,
        device="cpu",
    )
    verdict = {c.id.split(".")[-1]: c for c in res.claims}
    assert verdict["starts_differ"].passed and verdict["decay"].passed
    assert set(res.table["summary"]) == {"distance", "isometry_gap"}
    with pytest.raises(ValueError, match="merged_from"):
        mt.mixing(depth=5, merged_from=6, device="cpu")
    with pytest.raises(ValueError, match="unknown summaries"):
        mt.mixing(summaries=["rank"], device="cpu")
