"""papers.orthogonality.lyapunov: V_hat, Sawa p_i, g of Eq. (16), the one-step Monte Carlo
(DJB21 App. C)."""

import math

import mpmath
import numpy as np
import pytest
import torch
from scipy import integrate

from sigprop.engine import ops
from sigprop.papers.orthogonality import lyapunov


def spectrum(*values):
    s = torch.tensor(values, dtype=torch.float64)
    return s / s.sum()


def test_lyapunov_gap_is_one_over_n_minus_smallest_squared_singular_value():
    g = torch.Generator().manual_seed(0)
    h = torch.randn(5, 12, 4, generator=g, dtype=torch.float64)
    unit = h / torch.linalg.matrix_norm(h)[:, None, None]
    expected = 1 / 4 - torch.linalg.svdvals(unit)[:, -1] ** 2
    torch.testing.assert_close(lyapunov.lyapunov_gap(unit), expected, rtol=0, atol=1e-14)
    # scale invariant, in [0, 1/n]
    torch.testing.assert_close(lyapunov.lyapunov_gap(3.7 * h), expected, rtol=0, atol=1e-14)
    assert ((expected >= 0) & (expected <= 1 / 4)).all()


def test_lyapunov_gap_extremes():
    eye = torch.eye(6, 4, dtype=torch.float64)
    assert lyapunov.lyapunov_gap(eye).abs().item() < 1e-15  # orthogonal samples of equal norm
    rank_one = torch.ones(6, 4, dtype=torch.float64)
    assert lyapunov.lyapunov_gap(rank_one).item() == pytest.approx(1 / 4, abs=1e-15)
    wide = torch.randn(3, 5, dtype=torch.float64)  # d < n: sigma_n = 0
    assert lyapunov.lyapunov_gap(wide).item() == pytest.approx(1 / 5, abs=1e-14)


def test_p_coefficients_two_samples_closed_form():
    """n = 2: E[a w1^2 / (a w1^2 + b w2^2)] = sqrt(a) / (sqrt(a) + sqrt(b))."""
    for a in (0.5, 0.9, 0.999999, 1 - 1e-12):
        p = lyapunov.p_coefficients(spectrum(a, 1 - a))
        expected = math.sqrt(a) / (math.sqrt(a) + math.sqrt(1 - a))
        assert p[0].item() == pytest.approx(expected, rel=1e-13)
        assert p[1].item() == pytest.approx(1 - expected, rel=1e-10)


def test_p_coefficients_sum_to_one_invariances_and_order():
    rng = np.random.default_rng(1)
    s = torch.from_numpy(rng.dirichlet(np.full(7, 0.4), size=50))
    p = lyapunov.p_coefficients(s)
    torch.testing.assert_close(p.sum(-1), torch.ones(50, dtype=torch.float64), rtol=0, atol=1e-14)
    torch.testing.assert_close(lyapunov.p_coefficients(5.0 * s), p, rtol=1e-13, atol=1e-16)
    perm = torch.randperm(7, generator=torch.Generator().manual_seed(2))
    torch.testing.assert_close(lyapunov.p_coefficients(s[:, perm]), p[:, perm])
    order_s, order_p = s.argsort(-1), p.argsort(-1)
    assert torch.equal(order_s, order_p)  # p_i increases with sigma_i
    zero = lyapunov.p_coefficients(spectrum(0.5, 0.3, 0.2, 0.0))
    assert zero[-1].item() == 0.0 and zero.sum().item() == pytest.approx(1.0, abs=1e-14)


def test_p_coefficients_match_scipy_quad_when_well_conditioned():
    s = spectrum(0.4, 0.3, 0.2, 0.1)
    p = lyapunov.p_coefficients(s)
    x = s.numpy()
    for i in range(4):

        def integrand(t, i=i):
            return x[i] / (1 + 2 * t * x[i]) * np.prod((1 + 2 * t * x) ** -0.5)

        ref = integrate.quad(integrand, 0, np.inf, epsabs=1e-15, epsrel=1e-13)[0]
        assert p[i].item() == pytest.approx(ref, rel=1e-11)


def test_p_coefficients_near_degenerate_match_mpmath():
    """sigma_n^2 = 1e-12: the log-t trapezoid keeps full relative accuracy (DJB21 App. C)."""
    values = [0.5, 0.3, 0.2 - 1e-12, 1e-12]
    p = lyapunov.p_coefficients(torch.tensor(values, dtype=torch.float64))
    mpmath.mp.dps = 30
    s = [mpmath.mpf(v) for v in values]
    for i in (0, 3):

        def integrand(t, i=i):
            return s[i] / (1 + 2 * t * s[i]) * mpmath.fprod((1 + 2 * t * x) ** -0.5 for x in s)

        breaks = [0, *sorted(1 / (2 * x) for x in s), mpmath.inf]
        ref = float(mpmath.quad(integrand, breaks))
        assert p[i].item() == pytest.approx(ref, rel=1e-13)
    assert p[3].item() > 0


def test_p_coefficients_match_monte_carlo():
    s = spectrum(0.5, 0.25, 0.15, 0.1)
    w = torch.randn(200_000, 4, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    ratio = s * w.square() / (s * w.square()).sum(-1, keepdim=True)
    mc, se = ratio.mean(0), ratio.std(0) / math.sqrt(ratio.shape[0])
    assert ((lyapunov.p_coefficients(s) - mc).abs() < 4 * se).all()


def test_p_coefficients_reject_bad_spectra():
    for bad in ([0.5, -0.1, 0.6], [1.0], [0.0, 0.0], [float("nan"), 1.0]):
        with pytest.raises(ValueError, match="sigma2"):
            lyapunov.p_coefficients(torch.tensor(bad, dtype=torch.float64))


@pytest.mark.parametrize("n", [2, 3, 4, 7, 30, 100])
def test_g_integral_value_slope_and_end(n):
    assert lyapunov.g_integral(torch.tensor(0.0), n).item() == pytest.approx(1.0, abs=1e-14)
    h = 1e-5 / n
    g = lyapunov.g_integral(torch.tensor([h, -h], dtype=torch.float64), n)
    assert ((g[0] - g[1]) / (2 * h)).item() == pytest.approx(2 * n / (n + 2), rel=1e-8)
    end = lyapunov.g_integral(torch.tensor(1.0 / n, dtype=torch.float64), n).item()
    # g(1/n) = int (1 + 2t/(n-1))^{-(n-1)/2} dt = (n-1)/(n-3), infinite for n <= 3
    assert end == (math.inf if n <= 3 else pytest.approx((n - 1) / (n - 3), rel=1e-13))


def test_g_integral_is_f_n_of_the_equal_others_spectrum():
    n, delta = 6, 0.07
    s = torch.tensor([1 / n + delta / (n - 1)] * (n - 1) + [1 / n - delta], dtype=torch.float64)
    f_n = lyapunov.f_coefficients(s)[-1]
    g = lyapunov.g_integral(torch.tensor(delta, dtype=torch.float64), n)
    assert g.item() == pytest.approx(f_n.item(), rel=1e-14)
    with pytest.raises(ValueError, match="delta"):
        lyapunov.g_integral(torch.tensor(0.5), n)


def test_one_step_gram_equals_the_bn_layer_in_the_rotated_frame():
    """C = H_{l+1}^T H_{l+1} for H_l = [diag(sigma); 0] (U = I, V = I): BN(W H)/sqrt(d), Eq. (1)."""
    d, n, draws = 16, 3, 50
    sigma = torch.tensor([0.8, 0.5, 0.33], dtype=torch.float64)
    c = lyapunov.one_step_gram(sigma, d, draws, torch.Generator().manual_seed(4))
    w = torch.randn(draws, d, n, generator=torch.Generator().manual_seed(4)).to(torch.float64)
    h_next = ops.bn_rms_scaled(w * sigma)  # W H = W[:, :n] diag(sigma)
    torch.testing.assert_close(c, h_next.mT @ h_next, rtol=0, atol=1e-14)
    trace = c.diagonal(dim1=-2, dim2=-1).sum(-1)
    torch.testing.assert_close(trace, torch.ones(draws, dtype=torch.float64))


def test_one_step_gram_batches_with_common_random_numbers_and_chunks():
    sigma = torch.rand(2, 3, 4, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    batch = lyapunov.one_step_gram(sigma, 8, 20, torch.Generator().manual_seed(6))
    alone = lyapunov.one_step_gram(sigma[1, 2], 8, 20, torch.Generator().manual_seed(6))
    torch.testing.assert_close(batch[1, 2], alone, rtol=0, atol=1e-14)
    assert batch.shape == (2, 3, 20, 4, 4)
    with pytest.raises(ValueError, match="d and n_draws"):
        lyapunov.one_step_gram(sigma[0, 0], 0, 5, torch.Generator())


def test_one_step_statistics_lemma6_exact_variance():
    s = spectrum(0.4, 0.3, 0.2, 0.1)
    st = lyapunov.one_step_statistics(s, 8, 4000, torch.Generator().manual_seed(7))
    exact = (1 - st["p"].square().sum()) / 8
    assert abs(st["frob"] - exact) < 4 * st["frob_se"]
    assert (st["diag"] - st["p"]).abs().max() < 4 * st["diag_se"].max()
    assert st["weyl_margin"] >= -1e-14


def test_running_moments_match_one_pass_mean_and_se():
    x = 1.0 + 1e-9 * torch.randn(3, 1000, generator=torch.Generator().manual_seed(8)).double()
    m = lyapunov._Moments()
    for part in x.split(137, dim=-1):
        m.add(part, -1)
    mean, se = m.mean_se()
    torch.testing.assert_close(mean, x.mean(-1), rtol=1e-15, atol=0)
    # a sum-of-squares formula would lose everything here (spread 1e-9 of the mean)
    torch.testing.assert_close(se, x.std(-1) / math.sqrt(1000), rtol=1e-6, atol=0)


def test_one_step_statistics_blocks_agree_in_law():
    s = spectrum(0.5, 0.3, 0.2)
    small = lyapunov.one_step_statistics(
        s, 8, 3000, torch.Generator().manual_seed(9), block_elements=9 * 100
    )
    large = lyapunov.one_step_statistics(s, 8, 3000, torch.Generator().manual_seed(10))
    se = math.hypot(small["vhat_next_se"], large["vhat_next_se"])
    assert abs(small["vhat_next"] - large["vhat_next"]) < 4 * se


def test_drift_contraction_is_one_minus_two_thirds_sigma_n_squared():
    """DJB21 Thm. 5: gamma = 1 - (2/3) sigma_n^2 with sigma_n^2 = 1/n - V_hat."""
    n, sigma_n2 = 4, torch.tensor([0.0, 0.1, 0.25], dtype=torch.float64)
    gamma = lyapunov.drift_contraction(1.0 / n - sigma_n2, n)
    torch.testing.assert_close(gamma, 1.0 - 2.0 / 3.0 * sigma_n2)
