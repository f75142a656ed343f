"""Hermite expansions and kernel maps (Thesis ch. 5): closed forms, Stein identities, cases."""

import math

import numpy as np
import pytest

from sigprop.papers.isometry import hermite as H

RHO = np.linspace(-1.0, 1.0, 21)


def test_hermite_recursion_matches_table_5_1():
    x = np.linspace(-3, 3, 7)
    he_k = H.hermite_he(4, x)
    expected = [np.ones_like(x), x, x**2 - 1, x**3 - 3 * x, x**4 - 6 * x**2 + 3]
    np.testing.assert_allclose(he_k, expected, atol=1e-12)
    np.testing.assert_allclose(
        H.he(4, x), he_k / np.sqrt([1, 1, 2, 6, 24])[:, None], rtol=1e-14, atol=1e-14
    )


def test_orthonormality_by_gauss_hermite():
    x, w = H.gauss_hermite(40)
    assert w.sum() == pytest.approx(1.0, abs=1e-14)
    values = H.he(30, x)
    gram = (values * w) @ values.T
    assert np.abs(gram - np.eye(31)).max() < 1e-10


@pytest.mark.parametrize("name", H.CLOSED_FORMS)
def test_closed_forms_equal_quadrature(name):
    km = H.kernel_map(name, method="quadrature")
    np.testing.assert_allclose(km.kappa(RHO), H.closed_form_kernel(name, RHO), atol=1e-12)
    np.testing.assert_allclose(km.dkappa(RHO), H.closed_form_kernel(name, RHO, 1), atol=1e-12)


def test_relu_closed_form_is_arc_cosine():
    r = RHO
    arc = (np.sqrt(1 - r**2) + (np.pi - np.arccos(r)) * r) / np.pi
    np.testing.assert_allclose(H.closed_form_kernel("relu", r), arc, atol=1e-15)


@pytest.mark.parametrize("name", ["tanh", "relu", "selu", "gelu", "sigmoid"])
def test_stein_identities(name):
    km = H.kernel_map(name)
    c = H.hermite_coefficients(H.activation(name), 3) / km.scale
    assert km.kappa(0.0) == pytest.approx(c[0] ** 2, abs=1e-12)
    assert km.kappa0 == pytest.approx(c[0] ** 2, abs=1e-12)
    assert km.dkappa(0.0) == pytest.approx(c[1] ** 2, abs=1e-12)
    assert km.dkappa0 == pytest.approx(c[1] ** 2, abs=1e-12)
    assert km.kappa(1.0) == pytest.approx(1.0, abs=1e-12)
    assert km.dkappa(1.0) == pytest.approx(km.dkappa1, abs=1e-12)


@pytest.mark.parametrize("name", ["tanh", "gelu", "elu"])
def test_series_converges_to_quadrature_and_derivative(name):
    km = H.kernel_map(name)
    c = H.hermite_coefficients(H.activation(name), 60) / km.scale
    r = np.linspace(-0.9, 0.9, 7)
    np.testing.assert_allclose(H.series_kernel(c, r), km.kappa(r), atol=1e-8)
    h = 1e-5
    fd = (km.kappa(r + h) - km.kappa(r - h)) / (2 * h)
    np.testing.assert_allclose(km.dkappa(r), fd, atol=1e-8)


def test_order_counts_coefficients_as_the_authors_code():
    """order = 25 means c_0..c_24, as compute_hermite_coefs_integration(f, order=25) (issue 12)."""
    for name in ("relu", "tanh", "identity"):
        assert H.hermite_coefficients(H.activation(name), 25).shape == (25,)
    tanh = H.hermite_coefficients(H.activation("tanh"), 26)
    np.testing.assert_allclose(
        H.hermite_coefficients(H.activation("tanh"), 25), tanh[:25], atol=1e-12
    )
    assert abs(tanh[25]) > 1e-6  # the 26th coefficient (odd k = 25) that order 25 leaves out
    with pytest.raises(ValueError, match="number of coefficients"):
        H.hermite_coefficients(H.activation("relu"), 0)


def test_relu_coefficients_closed_form():
    c = H.hermite_coefficients(H.activation("relu"), 13)
    k = np.arange(2, 13)
    he_at_zero = H.hermite_he(10, np.array(0.0))
    expected = he_at_zero / np.sqrt(2 * np.pi * np.array([math.factorial(j) for j in k]))
    np.testing.assert_allclose(c[:2], [1 / math.sqrt(2 * math.pi), 0.5], atol=1e-14)
    np.testing.assert_allclose(c[2:], expected, atol=1e-14)


def test_monte_carlo_agrees():
    est, se = H.monte_carlo_kernel(H.activation("tanh"), np.array([-0.5, 0.3]), 200_000, seed=1)
    exact = H.kernel_map("tanh").kappa(np.array([-0.5, 0.3]))
    assert np.all(np.abs(est - exact) < 5 * se)


@pytest.mark.parametrize(
    "name, case, rho_star, alpha",
    [
        ("tanh", 1, 0.0, 0.9350),
        ("sigmoid", 2, 1.0, 0.1528),
        ("relu", 3, 1.0, 0.1817),
        ("exp", 3, 1.0, 1 - 2 / math.e),
        ("gelu", 4, 0.7603, 0.9327),
    ],
)
def test_thm511_reference_numbers(name, case, rho_star, alpha):
    s = H.analyse(H.kernel_map(name), tolerance=1e-6)
    assert s.case == case
    assert s.rho_star == pytest.approx(rho_star, abs=1e-4)
    assert s.alpha == pytest.approx(alpha, abs=1e-4)


def test_relu_truncated_series_is_case_2():
    km = H.kernel_map("relu")
    c = H.hermite_coefficients(H.activation("relu"), 25)
    c = c / np.sqrt(np.sum(c**2))
    dk1 = H.series_kernel(c, 1.0, derivative=1)
    assert dk1 == pytest.approx(0.9487, abs=1e-4)
    assert H.thm511_case(c[0] ** 2, dk1, 1e-6) == 2
    assert H.thm511_case(km.kappa0, km.dkappa1, 1e-6) == 3


def test_polynomial_case_4_fixed_point():
    act = H.hermite_activation("case4", [math.sqrt(0.168), 0.4, math.sqrt(0.672)])
    s = H.analyse(H.kernel_map(act), tolerance=1e-9)
    assert s.case == 4
    assert s.rho_star == pytest.approx(0.25, abs=1e-12)
    np.testing.assert_allclose(H.sign_changes(H.kernel_map(act).kappa, 101), [0.25])


def test_iterate_converges_under_bound():
    km = H.kernel_map("tanh")
    s = H.analyse(km, 1e-6)
    rho0 = np.array([-0.9, 0.5])
    path = H.iterate(km.kappa, rho0, 40)
    bound = H.convergence_bound(1, s.alpha, rho0, 0.0, np.arange(41))
    assert np.all(np.abs(path) <= bound + 1e-12)
    np.testing.assert_allclose(H.potential(np.array([0.5, -0.5, 1.0])), [1.0, 1.0, np.inf])


def test_bad_input_raises():
    with pytest.raises(ValueError, match="activation must be one of"):
        H.activation("swish")
    with pytest.raises(ValueError, match="rho must lie"):
        H.kernel_map("tanh").kappa(1.5)
    with pytest.raises(ValueError, match="case must be"):
        H.thm511_rate(5, 0, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="no closed form"):
        H.closed_form_kernel("tanh", 0.0)
    with pytest.raises(ValueError, match="method"):
        H.kernel_map("tanh", method="series")


def test_truncated_relu_series_gives_the_thesis_case_2_slope():
    """Order-25 truncation of ReLU's series: kappa'(1) = 0.9487 < 1 (exact: 1), Table 5.2."""
    c = H.hermite_coefficients(H.activation("relu"), 25)
    kappa0, dkappa1 = H.truncated_kernel_endpoints(c)
    assert kappa0 == pytest.approx(1 / math.pi, abs=2e-3)
    assert dkappa1 == pytest.approx(0.9487, abs=1e-4)


def test_check_cosines_keeps_the_open_interval():
    """rho_0 in (-1, 1) comes back as float64; +-1 or beyond is refused (the bounds diverge)."""
    r0 = H.check_cosines([0.5, -0.25, 0])
    assert r0.dtype == np.float64 and r0.tolist() == [0.5, -0.25, 0.0]
    for bad in ([1.0], [0.2, -1.0], 1.5):
        with pytest.raises(ValueError, match=r"open interval \(-1, 1\)"):
            H.check_cosines(bad)
