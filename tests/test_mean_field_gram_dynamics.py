"""Thesis ch. 3 mean-field Gram dynamics (``papers.mean_field.gram_dynamics``, ``simulations``):
definitions, the fixed point G_* of Eq. (B.36), and the Gram chain of Figs. 3.1-3.4."""

import math

import pytest
import torch

from sigprop.engine import ops, seeding
from sigprop.papers.mean_field import gram_dynamics as mf
from sigprop.papers.mean_field.gram_simulations import gram_chain


def gen(tag="t", run=0):
    return seeding.generator(f"test.mean_field.{tag}", run, "s")


def test_centred_bn_rows_have_squared_norm_n_and_zero_mean():
    h = torch.randn(3, 50, 7, generator=gen(), dtype=torch.float64)
    a = mf.bn_activation(h, "linear")
    assert torch.allclose(a, ops.bn_centered(h))
    assert torch.allclose(a.square().sum(-1), torch.full((3, 50), 7.0, dtype=torch.float64))
    assert torch.allclose(a.sum(-1), torch.zeros(3, 50, dtype=torch.float64), atol=1e-12)
    g = mf.gram(a)
    assert g.shape == (3, 7, 7)
    assert torch.allclose(g.diagonal(dim1=-2, dim2=-1).sum(-1), torch.full((3,), 7.0).double())


def test_seeded_fixed_point_draws_from_the_activations_sphere_stream():
    """G_* as every mean-field item draws it: ``sphere_fixed_point`` from stream
    (``<id>.<activation>.n<n>``, 0, "sphere"); exact for linear: diag 1, off-diagonal -1/(n-1)."""
    fp = mf.seeded_fixed_point("test.mean_field.seeded", "tanh", 5, 2000)
    g = seeding.generator("test.mean_field.seeded.tanh.n5", 0, "sphere")
    assert fp == mf.sphere_fixed_point("tanh", 5, 2000, g)
    linear = mf.seeded_fixed_point("test.mean_field.seeded", "linear", 5, 10)
    assert (linear.diag, linear.offdiag) == pytest.approx((1.0, -0.25), abs=1e-15)


def test_sphere_draws_lie_on_the_centred_sphere():
    u = mf.sphere_draws(gen(), 1000, 6)
    assert torch.allclose(u.sum(-1), torch.zeros(1000, dtype=torch.float64), atol=1e-12)
    assert torch.allclose(u.square().sum(-1), torch.full((1000,), 6.0, dtype=torch.float64))


@pytest.mark.parametrize("n", [3, 5, 10])
def test_linear_fixed_point_is_exact_and_singular(n):
    g = mf.linear_fixed_point(n)
    fp = mf.sphere_fixed_point("linear", n, 10, gen())
    assert torch.allclose(fp.matrix(), g, atol=1e-15)
    assert math.isinf(fp.kappa) and math.isinf(mf.condition_number(g).item())
    assert mf.diagonal_quadrature("linear", n) == pytest.approx(1.0, abs=1e-9)
    # E_u u u^T by Monte Carlo equals n/(n-1) M
    u = mf.sphere_draws(gen("lin"), 200_000, n)
    assert torch.allclose(u.mT @ u / u.shape[0], g, atol=0.02)


@pytest.mark.parametrize("n", [4, 10])
def test_relu_diagonal_is_one_half(n):
    # u and -u are equally likely, so E relu(u_1)^2 = E u_1^2 / 2 = 1/2
    assert mf.diagonal_quadrature("relu", n) == pytest.approx(0.5, abs=1e-8)
    fp = mf.sphere_fixed_point("relu", n, 50_000, gen("relu"))
    assert abs(fp.diag - 0.5) < 4 * fp.diag_se


def test_sphere_diagonal_matches_quadrature_for_tanh():
    fp = mf.sphere_fixed_point("tanh", 5, 100_000, gen("tanh"))
    assert abs(fp.diag - mf.diagonal_quadrature("tanh", 5)) < 4 * fp.diag_se
    assert fp.diag == pytest.approx(
        0.4410, abs=2e-3
    )  # independent reference value (fixed_point.REFERENCE)
    assert fp.offdiag == pytest.approx(-0.1039, abs=2e-3)


def test_bsb1_eigenvalues():
    g = mf.bsb1(0.7, 0.1, 6)
    perp, one = mf.bsb1_eigenvalues(0.7, 0.1, 6)
    lam = torch.linalg.eigvalsh(g)
    assert lam[0].item() == pytest.approx(perp) and lam[-1].item() == pytest.approx(one)
    assert mf.condition_number(g).item() == pytest.approx(one / perp)


def test_mean_field_map_at_identity_is_the_sphere_average():
    # BN(w) for w ~ N(0, I) is uniform on the centred sphere: F(I) = G_* of route (a)
    est = mf.mean_field_map(torch.eye(5, dtype=torch.float64), "tanh", 100_000, gen("map"))
    fp = mf.sphere_fixed_point("tanh", 5, 100_000, gen("sph"))
    tol = 4 * math.sqrt(est.variance.sum().item() + fp.frobenius_se**2)
    assert mf.frobenius(est.value - fp.matrix()) < tol
    assert torch.allclose(est.value, est.value.mT)


def test_map_iteration_converges_from_a_non_symmetric_start():
    g0 = mf.ar1_correlation(5, 0.9)
    reps, path = mf.iterate_mean_field(g0, "relu", 25, 5, 5000, "test.mf.iter", range(2))
    g_b, var_b = mf.replica_mean(reps)
    fp = mf.sphere_fixed_point("relu", 5, 100_000, gen("r"))
    assert path.shape == (25,)
    assert mf.frobenius(g_b - fp.matrix()) < 4 * math.sqrt(var_b.sum().item()) + 0.02
    assert mf.frobenius(g0 - fp.matrix()) > 1.0


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="n must be >= 2"):
        mf.centering(1)
    with pytest.raises(ValueError, match="needs n >= 3"):
        mf.diagonal_quadrature("tanh", 2)
    with pytest.raises(ValueError, match="average_last"):
        mf.iterate_mean_field(torch.eye(3).double(), "tanh", 2, 3, 100, "x")
    with pytest.raises(ValueError, match="replicas"):
        mf.replica_mean(torch.zeros(1, 3, 3))
    with pytest.raises(ValueError, match="rho"):
        mf.ar1_correlation(3, 1.0)
    with pytest.raises(ValueError, match="network must be one of"):
        gram_chain(
            ["bn_gelu"],
            [8],
            [4],
            2,
            2,
            0.5,
            1000,
            product="gram",
            dtype="float64",
            device="cpu",
            experiment_id="mean_field.gram_chain",
        )


def test_gram_chain_shapes_and_no_bn_reference():
    out = gram_chain(
        ["bn_tanh", "no_bn_linear"],
        [16, 32],
        [4],
        3,
        2,
        0.5,
        2000,
        product="gram",
        dtype="float64",
        device="cpu",
        experiment_id="mean_field.gram_chain",
    )
    dist, kappa = out.values["distance"], out.values["kappa"]
    assert dist.shape == (2, 1, 2, 2, 4)
    assert torch.all(dist[1, ..., 0] == 0)  # G_0 - G_0
    assert torch.all(dist[0] > 0) and torch.isnan(kappa[1]).all() and torch.isfinite(kappa[0]).all()


def test_gram_and_explicit_products_agree_in_law():
    kw = dict(networks=["bn_relu"], widths=[64], batch_sizes=[4], depth=6, n_runs=40)
    kw.update(input_correlation=0.5, fixed_point_samples=20_000, device="cpu")
    kw.update(experiment_id="mean_field.gram_chain", dtype="float64")
    a = gram_chain(product="gram", **kw).values["distance"][0, 0, 0, :, -1]
    b = gram_chain(product="explicit", **kw).values["distance"][0, 0, 0, :, -1]
    se = math.sqrt(a.var() / a.numel() + b.var() / b.numel())
    assert abs(a.mean() - b.mean()) < 4 * se
