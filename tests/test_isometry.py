"""Thesis ch. 4: the isometry I (Def. 4.1, Eq. (4.2)) of sigprop.engine.gram_isometry; LN, BN
operators."""

import math

import pytest
import torch

from sigprop.engine import gram_isometry as iso
from sigprop.engine import ops


def test_isometry_equals_det_over_trace_and_is_scale_invariant():
    """Def. 4.1 / Eq. (4.2) against the determinant formula; Lemma 4.2 part 1."""
    g = torch.Generator().manual_seed(0)
    b = torch.randn(5, 6, 9, generator=g, dtype=torch.float64)
    m = b @ b.mT
    naive = torch.linalg.det(m) ** (1 / 6) / (torch.diagonal(m, dim1=-2, dim2=-1).sum(-1) / 6)
    assert torch.allclose(iso.isometry(m), naive, rtol=1e-12)
    assert torch.allclose(iso.isometry(1e7 * m), naive, rtol=1e-10)
    assert torch.allclose(iso.isometry(torch.eye(4) * 3.0), torch.tensor(1.0))


def test_isometry_is_zero_for_singular_and_gap_infinite():
    b = torch.randn(3, 5, 2, dtype=torch.float64)
    m = b @ b.mT  # rank 2 < 5
    assert (iso.isometry(m) == 0).all() and torch.isinf(iso.isometry_gap(m)).all()
    assert iso.isometry(torch.zeros(3, 3)).item() == 0.0


def test_parallelogram_closed_form():
    a, b, theta = 1.3, 0.4, 0.7
    value = iso.parallelepiped_isometry(iso.parallelogram(a, b, theta)).item()
    assert value == pytest.approx(2 * a * b * math.sin(theta) / (a**2 + b**2), abs=1e-14)
    assert iso.parallelepiped_faces(torch.eye(3, dtype=torch.float64)).shape == (6, 4, 3)


def test_theorem4_3_identity_on_one_case():
    """I(G~)/I(G) = AM(a^2)/GM(a^2) >= 1 + var(a)/abar^2 (Thm. 4.3)."""
    x = torch.randn(8, 4, dtype=torch.float64) * torch.tensor([0.3, 1.0, 2.0, 5.0])
    a = x.norm(dim=0)
    ratio = iso.isometry(iso.gram(ops.ln_rms(x))) / iso.isometry(iso.gram(x))
    assert ratio.item() == pytest.approx(iso.am_over_gm(a**2).item(), rel=1e-10)
    assert ratio.item() >= iso.norm_variation(a).item()


def test_ln_and_bn_scaling_normalize_columns_and_rows():
    x = torch.randn(2, 7, 5, dtype=torch.float64)
    assert torch.allclose(
        ops.ln_rms(x).norm(dim=-2), torch.full((2, 5), math.sqrt(7), dtype=torch.float64)
    )
    assert torch.allclose(
        ops.ln_centered(x).mean(dim=-2), torch.zeros(2, 5, dtype=torch.float64), atol=1e-14
    )


@pytest.mark.parametrize("m", [torch.ones(3), torch.ones(2, 3, 4)])
def test_isometry_rejects_non_square(m):
    with pytest.raises(ValueError):
        iso.isometry(m)
