"""Tests of sigprop.engine.metrics: closed forms, invariances and Dan+20 Lemma 1."""

import math

import pytest
import torch

from sigprop.engine import metrics, ops


def with_singular_values(sigma, d, n, gen, dtype=torch.float64):
    """A d x n matrix U diag(sigma) V^T with Haar-like random U, V."""
    u, _ = torch.linalg.qr(torch.randn(d, d, generator=gen, dtype=dtype))
    v, _ = torch.linalg.qr(torch.randn(n, n, generator=gen, dtype=dtype))
    s = torch.zeros(d, n, dtype=dtype)
    s[range(len(sigma)), range(len(sigma))] = torch.tensor(sigma, dtype=dtype)
    return u @ s @ v.T


def test_gap_of_orthogonal_columns_is_zero(dtype, rtol, gen):
    """DJB21 Eq. (2): V = 0 iff the samples are orthogonal with equal norms."""
    q, _ = torch.linalg.qr(torch.randn(10, 4, generator=gen, dtype=dtype))
    gap = metrics.orthogonality_gap(3.0 * q)
    assert gap.abs().item() < 10 * rtol


def test_gap_of_rank_one_is_maximal(dtype, rtol, gen):
    """V(H) = sqrt((n - 1) / n) for rank-one H (DJB21 §1.5, Lemma A.8's limit)."""
    n = 5
    h = torch.randn(8, 1, generator=gen, dtype=dtype) @ torch.randn(
        1, n, generator=gen, dtype=dtype
    )
    assert metrics.orthogonality_gap(h).item() == pytest.approx(
        math.sqrt((n - 1) / n), rel=10 * rtol
    )


def test_gap_matches_spectral_form(gen):
    """With ||H||_F = 1: V^2 = sum sigma_i^4 - 1/n (proof of DJB21 Lemma 4)."""
    h = torch.randn(3, 12, 4, generator=gen, dtype=torch.float64)
    h = h / torch.linalg.matrix_norm(h)[:, None, None]
    sigma = torch.linalg.svdvals(h)
    expected = (sigma.pow(4).sum(-1) - 1 / 4).sqrt()
    torch.testing.assert_close(metrics.orthogonality_gap(h), expected)


def test_metrics_are_scale_invariant(gen):
    h = torch.randn(4, 10, 6, generator=gen, dtype=torch.float64)
    for metric in (metrics.orthogonality_gap, metrics.rank_lower_bound, metrics.numerical_rank):
        torch.testing.assert_close(metric(1e3 * h), metric(h))


@pytest.mark.parametrize(
    "kind", ["random", "low_rank_plus_noise", "near_collinear", "wide", "tall"]
)
def test_rank_lower_bound_at_most_rank(kind, gen):
    """Dan+20 Lemma 1: 1 <= r(H) <= rank(H)."""
    d, n = {"wide": (6, 20), "tall": (20, 6)}.get(kind, (16, 16))
    h = torch.randn(200, d, n, generator=gen, dtype=torch.float64)
    if kind == "low_rank_plus_noise":
        h = (
            torch.randn(200, d, 3, generator=gen, dtype=torch.float64)
            @ torch.randn(200, 3, n, generator=gen, dtype=torch.float64)
            + 1e-3 * h
        )
    if kind == "near_collinear":
        h = h[..., :1] + 1e-2 * h
    r = metrics.rank_lower_bound(h)
    assert (r >= 1 - 1e-12).all()
    assert (r <= torch.linalg.matrix_rank(h).to(r.dtype) + 1e-9).all()


def test_rank_lower_bound_of_flat_spectrum_is_its_rank(gen):
    """r(H) = k when H has k equal nonzero singular values (participation ratio)."""
    h = with_singular_values([2.0] * 5, 12, 9, gen)
    assert metrics.rank_lower_bound(h).item() == pytest.approx(5.0)


@pytest.mark.parametrize("tau", [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])
def test_soft_rank_bounded_below_on_bn_states(tau, gen):
    """Dan+20 Lemma 1: rank_tau(H) >= (1 - tau)^2 r(H) for H in the BN space (Tr M = d)."""
    h = ops.bn_rms(torch.randn(500, 16, 16, generator=gen, dtype=torch.float64))
    h = ops.bn_rms(torch.randn(500, 16, 16, generator=gen, dtype=torch.float64) @ h)
    lhs = metrics.soft_rank(h, tau)
    rhs = (1 - tau) ** 2 * metrics.rank_lower_bound(h)
    assert (lhs >= rhs - 1e-9).all()


def test_soft_rank_bound_needs_the_bn_trace(gen):
    """Negative control for Lemma 1: with Tr M far from d the bound fails on some matrices."""
    h = 0.1 * ops.bn_rms(torch.randn(200, 16, 16, generator=gen, dtype=torch.float64))
    tau = 0.5
    assert (metrics.soft_rank(h, tau) < (1 - tau) ** 2 * metrics.rank_lower_bound(h)).any()


def test_soft_rank_counts_eigenvalues_of_m(gen):
    """Dan+20 Eq. (3): rank_tau counts sigma_i^2 / N >= tau, in wide and tall layouts."""
    for d, n in [(12, 6), (6, 12)]:
        sigma = [4.0, 3.0, 2.0, 1.0, 0.5, 0.1][: min(d, n)]
        h = with_singular_values(sigma, d, n, gen)
        for tau in [0.01, 0.1, 0.5, 1.0]:
            expected = sum(s**2 / n >= tau for s in sigma)
            assert metrics.soft_rank(h, tau).item() == expected


def test_soft_rank_zero_tau_counts_every_dimension(gen):
    """tau = 0: every eigenvalue of the d x d matrix M counts, including the structural zeros."""
    h = torch.randn(10, 4, generator=gen, dtype=torch.float64)
    assert metrics.soft_rank(h, 0.0).item() == 10
    with pytest.raises(ValueError, match="tau"):
        metrics.soft_rank(h, -0.1)


def test_numerical_rank_uses_the_footnote_tolerance(gen):
    """Dan+20 footnote 2: singular values below sigma_max * d * 1e-7 count as zero."""
    d = 10
    tol = d * 1e-7
    h = with_singular_values([1.0, 0.5, 3 * tol, 0.3 * tol, 1e-12], d, d, gen)
    assert metrics.numerical_rank(h).item() == 3
    # float32 matrix_rank's default (eps = 1.19e-7) agrees with the footnote on this matrix
    assert torch.linalg.matrix_rank(h.float()).item() == 3


def test_abs_cosine_of_known_pairs(dtype, rtol):
    h = torch.tensor([[1.0, 1.0, 0.0], [0.0, 1.0, -2.0]], dtype=dtype)
    assert metrics.abs_cosine(h, 0, 1).item() == pytest.approx(1 / math.sqrt(2), rel=rtol)
    assert metrics.abs_cosine(h, 0, 2).item() == pytest.approx(0.0, abs=rtol)
    assert metrics.abs_cosine(-h, 1, 2).item() == pytest.approx(1 / math.sqrt(2), rel=rtol)


def test_metrics_keep_dtype_and_device(dtype, device, gen):
    h = torch.randn(2, 3, 8, 4, generator=gen).to(device, dtype)
    for fn in (
        metrics.orthogonality_gap,
        metrics.rank_lower_bound,
        metrics.numerical_rank,
        metrics.abs_cosine,
        lambda x: metrics.soft_rank(x, 0.5),
    ):
        out = fn(h)
        assert out.shape == (2, 3) and out.dtype == dtype and out.device.type == device.type


def test_moment_metrics_match_the_spectrum(gen):
    """Dan+20 Prop. 8 ingredients: Tr M^3 = ||lambda||_3^3, ||M||_F^2 = ||lambda||_2^2."""
    h = torch.randn(4, 9, 6, generator=gen, dtype=torch.float64)
    lam = torch.linalg.eigvalsh(ops.second_moment(h))
    torch.testing.assert_close(metrics.trace_m_cubed(h), lam.pow(3).sum(-1))
    torch.testing.assert_close(metrics.frobenius_m_squared(h), lam.pow(2).sum(-1))
    m = ops.second_moment(h)
    expected = torch.diagonal(m @ m, dim1=-2, dim2=-1).square().sum(-1)
    torch.testing.assert_close(metrics.trace_diag_m2_squared(h), expected)


def test_frobenius_drift_vanishes_on_the_identity():
    """delta_F(I) = 2d^2 - 2d - 8d + 8d = 2d(d - 1) for M = I (orthogonal rows), Eq. (43)."""
    d = 6
    h = math.sqrt(d) * torch.eye(d, dtype=torch.float64)  # M = H H^T / N = I
    assert metrics.frobenius_drift(h).item() == pytest.approx(2 * d * (d - 1))


def test_spectral_statistics_agree_with_the_single_metrics(gen):
    h = ops.bn_rms(torch.randn(3, 12, 12, generator=gen, dtype=torch.float64))
    out = metrics.spectral_statistics(h, [0.25, 0.5], top=4)
    for tau in (0.25, 0.5):
        torch.testing.assert_close(out[f"soft_rank_{tau:g}"], metrics.soft_rank(h, tau))
    torch.testing.assert_close(out["rank_lower_bound"], metrics.rank_lower_bound(h))
    torch.testing.assert_close(out["trace_diag_m2_squared"], metrics.trace_diag_m2_squared(h))
    sigma = torch.linalg.svdvals(h) / math.sqrt(12)
    torch.testing.assert_close(out["sigma_1"], sigma[..., 0])
    torch.testing.assert_close(out["sigma_4"], sigma[..., 3])


def test_spectral_norm_equals_the_largest_singular_value(gen):
    """metrics.spectral_norm (through the Gram eigenproblem) equals LAPACK's SVD where that
    converges, for tall, wide and rank-deficient batches, to ~eps relative."""
    from sigprop.engine.metrics import spectral_norm

    for shape in [(5, 7, 3), (5, 3, 7), (4, 6, 6)]:
        a = torch.randn(*shape, generator=gen, dtype=torch.float64)
        if shape[-1] == shape[-2]:
            a[..., -1] = a[..., 0]  # singular
        expected = torch.linalg.matrix_norm(a, ord=2)
        torch.testing.assert_close(spectral_norm(a), expected, rtol=1e-12, atol=0)
