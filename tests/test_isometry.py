"""Thesis ch. 4: isometry (Def. 4.1), Lemma 4.2, Thm. 4.3, Cor. 4.4/4.5 checks, Fig. 4.1 claims."""

import math

import pandas as pd
import pytest
import torch

from sigprop import isometry as iso
from sigprop import ops
from sigprop.checks.isometry import fig4_1_claims
from sigprop.theorems import isometry as T

SMALL = dict(n_cases=150, n_range=(2, 12))


def by_what(check):
    return {c.id.split(".", 2)[2]: c for c in check.claims}


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


def test_lemma4_2_claims_pass():
    claims = by_what(T.lemma4_2(**SMALL, device="cpu"))
    assert all(c.passed for c in claims.values()), [c for c in claims.values() if not c.passed]


def test_lemma4_2_fails_for_a_wrong_isometry(monkeypatch):
    """A gap that ignores the smallest eigenvalue breaks the zero-iff-singular claim."""
    monkeypatch.setattr(iso, "isometry_gap", lambda m, rtol=None: torch.zeros(m.shape[:-2]))
    claims = by_what(T.lemma4_2(**SMALL, device="cpu"))
    assert not claims["zero_iff_singular"].passed
    assert not claims["gm_over_am"].passed


def test_theorem_and_corollaries_verdicts():
    thm = by_what(T.theorem4_3(**SMALL, device="cpu"))
    assert thm["bound"].passed and thm["exact_identity"].passed
    assert not thm["printed_equality_4_7"].passed  # the erratum (4.6) -> (4.7)
    for check in (T.corollary4_4, T.corollary4_5):
        claims = by_what(check(**SMALL, device="cpu"))
        assert claims["scaling_bound"].passed and claims["scaling_exact_identity"].passed
        assert not claims["centered_bound"].passed  # centering breaks the corollary


def test_theorem4_3_bound_fails_with_a_wrong_normalization(monkeypatch):
    """Normalizing to norms that vary (not a projection) violates Eq. (4.3)."""
    monkeypatch.setattr(
        ops, "ln_rms", lambda h: h * torch.linspace(0.2, 3, h.shape[-1], dtype=h.dtype)
    )
    thm = by_what(T.theorem4_3(**SMALL, device="cpu"))
    assert not thm["bound"].passed and not thm["exact_identity"].passed


def test_fig4_1_claims_pass_and_detect_a_wrong_annotation():
    table = iso.example_table(
        ["a", "b"],
        [[1, 1, 90], [1, 0.5, 30]],
        [torch.eye(3).tolist(), [[1, 0, 0], [1, 1, 0], [0, 1, 1]]],
    )
    assert all(c.passed for c in fig4_1_claims(table, tolerance=1e-12))
    wrong = table.assign(isometry=table["isometry"] * 0.99)
    failed = {c.id for c in fig4_1_claims(wrong, tolerance=1e-12) if not c.passed}
    assert "isometry.fig4_1.parallelogram_closed_form" in failed
    assert isinstance(table, pd.DataFrame)
