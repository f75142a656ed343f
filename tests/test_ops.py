"""Tests of sigprop.engine.ops against the seeds' definitions."""

import math

import pytest
import torch

from sigprop.engine import ops


def test_bn_rms_rows_have_norm_sqrt_n(dtype, rtol, device, gen):
    """Dan+20 Eq. (2): after BN every row has norm sqrt(N), so diag M = 1 and Tr M = d (Eq. (8))."""
    h = torch.randn(3, 8, 5, generator=gen).to(device, dtype)
    m = ops.second_moment(ops.bn_rms(h))
    ones = torch.ones(3, 8, dtype=dtype, device=device)
    torch.testing.assert_close(m.diagonal(dim1=-2, dim2=-1), ones, rtol=rtol, atol=rtol)
    assert m.dtype == dtype and m.device.type == device.type


def test_bn_rms_invariant_to_positive_row_scaling(dtype, rtol, gen):
    """BN without centering is invariant to D H, D positive diagonal (gamma = inf argument)."""
    h = torch.randn(6, 4, generator=gen, dtype=dtype)
    scale = torch.rand(6, 1, generator=gen, dtype=dtype) + 0.1
    torch.testing.assert_close(ops.bn_rms(scale * h), ops.bn_rms(h), rtol=rtol, atol=rtol)


def test_second_moment_is_hh_t_over_n(dtype, rtol, gen):
    h = torch.randn(4, 7, generator=gen, dtype=dtype)
    torch.testing.assert_close(ops.second_moment(h), h @ h.T / 7, rtol=rtol, atol=rtol)


def test_bn_rms_scaled_has_unit_frobenius_norm(dtype, rtol, gen):
    """DJB21 Eq. (10): ||BN(H)/sqrt(d)||_F = 1; equals bn_rms / sqrt(n d)."""
    h = torch.randn(2, 16, 4, generator=gen, dtype=dtype)
    out = ops.bn_rms_scaled(h)
    one = torch.ones(2, dtype=dtype)
    torch.testing.assert_close(torch.linalg.matrix_norm(out), one, rtol=rtol, atol=rtol)
    torch.testing.assert_close(out, ops.bn_rms(h) / math.sqrt(16 * 4), rtol=rtol, atol=rtol)


def test_bn_unit_is_eq_6_4(dtype, rtol, gen):
    """Thesis Eq. (6.4): BN(X)_ij = X_ij / sqrt(sum_k X_ik^2), unit rows; = bn_rms / sqrt(n)."""
    h = torch.randn(3, 6, 5, generator=gen, dtype=dtype)
    out = ops.bn_unit(h)
    naive = torch.diag_embed(torch.diagonal(h @ h.mT, dim1=-2, dim2=-1).rsqrt()) @ h
    torch.testing.assert_close(out, naive, rtol=rtol, atol=rtol)
    torch.testing.assert_close(
        out.norm(dim=-1), torch.ones(3, 6, dtype=dtype), rtol=rtol, atol=rtol
    )
    torch.testing.assert_close(out, ops.bn_rms(h) / math.sqrt(5), rtol=rtol, atol=rtol)
    torch.testing.assert_close(ops.bn_rms_scaled(h), out / math.sqrt(6), rtol=rtol, atol=rtol)


def test_bn_centered_rows_have_zero_mean_and_unit_variance(dtype, rtol, gen):
    h = torch.randn(5, 9, generator=gen, dtype=dtype) + 3.0
    out = ops.bn_centered(h)
    torch.testing.assert_close(out.mean(-1), torch.zeros(5, dtype=dtype), rtol=0, atol=10 * rtol)
    torch.testing.assert_close(
        out.square().mean(-1), torch.ones(5, dtype=dtype), rtol=10 * rtol, atol=10 * rtol
    )


def test_batch_norm_matches_nn_batchnorm1d(gen):
    """Our (d, n) layout transposed is PyTorch's (n, d); training-mode BN at init."""
    h = torch.randn(2, 6, 10, generator=gen)
    bn = torch.nn.BatchNorm1d(6).train()
    expected = torch.stack([bn(x.T).T for x in h]).detach()
    torch.testing.assert_close(ops.batch_norm(h), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ops.ACTIVATIONS))
def test_activation_lookup(name):
    assert callable(ops.activation(name))


def test_unknown_names_raise_with_choices():
    with pytest.raises(ValueError, match="bn_rms"):
        ops.normalization("bn_typo")
    with pytest.raises(ValueError, match="relu"):
        ops.activation("gelu_typo")
