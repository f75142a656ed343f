"""Thesis ch. 6 / app. C.1-C.2: the definitions of ``sigprop.papers.gradients.isometry_decay``
vs their equations."""

import math

import pytest
import torch

from sigprop.engine import gram_isometry, ops, seeding
from sigprop.nets import initializations
from sigprop.papers.gradients import bn_mlp
from sigprop.papers.gradients import isometry_decay as dec

F64 = torch.float64


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _bn_input(d, spread, seed=0):
    g = _gen(seed)
    u, v = dec.haar_batch(2, d, g)
    s = torch.exp(spread * torch.randn(d, generator=g, dtype=F64))
    return ops.bn_unit((u * s) @ v.mT)


def test_haar_batch_is_orthogonal_with_haar_second_moment():
    w = dec.haar_batch(4000, 5, _gen())
    eye = torch.eye(5, dtype=F64)
    assert torch.allclose(w @ w.mT, eye.expand_as(w), atol=1e-13)
    p = w[:, 0, 0].square()  # E W_ik^2 = 1/d, Eq. (C.22)
    assert abs(p.mean().item() - 1 / 5) < 4 * p.std().item() / math.sqrt(4000)
    det = torch.linalg.det(w)  # O(d), not SO(d): both signs
    assert (det > 0).any() and (det < 0).any()


def test_normalized_eigenvalues_sum_to_d_and_match_a_bn_output():
    x = _bn_input(6, 0.5)
    lam = dec.normalized_eigenvalues(x)
    assert lam.sum().item() == pytest.approx(6.0, rel=1e-13)
    assert torch.allclose(lam, torch.linalg.eigvalsh(x @ x.mT), atol=1e-12)  # trace = d already
    assert torch.allclose(dec.normalized_eigenvalues(3.0 * x), lam, atol=1e-12)  # scale-free
    with pytest.raises(ValueError, match="shape"):
        dec.normalized_eigenvalues(torch.ones(3, dtype=F64))


def test_rotation_factor_closed_form_and_range():
    lam = torch.tensor([0.5, 1.0, 1.5], dtype=F64)  # sum (lambda - 1)^2 = 0.5
    assert dec.rotation_factor(lam).item() == pytest.approx(1 - 0.5 / (2 * 9 * 5), rel=1e-15)
    assert dec.sigma_lambda(lam).item() == pytest.approx(0.5 / 3, rel=1e-15)  # Eq. (C.51)
    for d in (2, 5, 30):
        spike = torch.zeros(d, dtype=F64)
        spike[0] = d  # extreme BN spectrum: sum (lambda - 1)^2 = d^2 - d
        f = dec.rotation_factor(spike).item()
        assert f == pytest.approx(1 - (d * d - d) / (2 * d * d * (d + 2)), rel=1e-14)
        assert 0 < f < 1


def test_theorem6_3_factor_is_one_at_an_orthogonal_input():
    x = dec.haar_batch(1, 7, _gen())[0]
    lam = dec.normalized_eigenvalues(ops.bn_unit(x))
    assert dec.rotation_factor(lam).item() == pytest.approx(1.0, abs=1e-14)
    assert dec.sigma_lambda(lam).item() == pytest.approx(0.0, abs=1e-14)


def test_rates_follow_their_formulas():
    assert dec.proof_rate(10, 0.0) == 200.0  # max(2 d^2, 32 d^3 psi_0), Eq. (C.72)-(C.75)
    assert dec.proof_rate(10, 0.01) == pytest.approx(320.0)
    psi = torch.tensor([0.0, 0.01], dtype=F64)
    assert torch.allclose(dec.proof_rate(10, psi), torch.tensor([200.0, 320.0], dtype=F64))
    assert dec.authors_rate(100, 0.02) == pytest.approx(0.015 * 1e4 * 3.0)  # Eq. (6.6)
    assert dec.authors_rate(4, 0.5, c=2.0) == pytest.approx(2.0 * 16 * 3.0)
    assert dec.AUTHORS_C == 0.015


def test_weingarten_moments_closed_forms():
    # O(2): W = rotation/reflection by a uniform angle: E cos^4 = 3/8, E cos^2 sin^2 = 1/8.
    assert dec.weingarten_e1(2) == pytest.approx(3 / 8)
    assert dec.weingarten_e2(2) == pytest.approx(1 / 8)
    for d in (2, 3, 10, 100):  # row j sums to 1: (d - 1) E1 + E2 = E W_ik^2 = 1/d
        assert (d - 1) * dec.weingarten_e1(d) + dec.weingarten_e2(d) == pytest.approx(1 / d)
    with pytest.raises(ValueError, match="d must be >= 2"):
        dec.weingarten_e1(1)
    with pytest.raises(ValueError, match="d must be >= 2"):
        dec.weingarten_e2(1)


def test_near_identity_input():
    d, f = 8, 0.005
    assert torch.equal(dec.near_identity_input(d, 0.0, _gen()), torch.eye(d, dtype=F64))
    x = dec.near_identity_input(d, f, _gen())
    rest = x - (1 - f) * torch.eye(d, dtype=F64)  # f u v^T, u, v in [0, 1]^d
    sv = torch.linalg.svdvals(rest)
    assert sv[1].item() < 1e-10 * sv[0].item()  # rank one up to the round-off of the diagonal
    assert rest.min().item() >= 0 and rest.max().item() <= f
    assert torch.equal(x, dec.near_identity_input(d, f, _gen()))  # seeded
    gap = bn_mlp.representation_gap(x).item()
    assert 0 < gap < 1e-3  # near-isometric
    for bad in ((0, 0.1), (4, -0.1), (4, 1.0)):
        with pytest.raises(ValueError, match="fraction"):
            dec.near_identity_input(*bad, _gen())


def test_bn_haar_chain_equals_the_naive_loop_and_decays():
    x0 = _bn_input(5, 0.8)
    chain = dec.bn_haar_chain(x0, 30, "test.chain", [0, 1, 2])
    assert chain.shape == (3, 31)
    assert torch.allclose(chain[:, 0], bn_mlp.representation_gap(x0).expand(3))
    # run r's weights: seeding.generator("test.chain", r, "weights"), layer after layer
    g = seeding.generator("test.chain", 1, "weights")
    x, naive = x0, [bn_mlp.representation_gap(x0)]
    for _ in range(30):
        w = initializations.haar_weights([g], 5, 5, F64, "cpu")[0]
        assert torch.allclose(
            gram_isometry.isometry_gap(gram_isometry.gram(w @ x)), naive[-1], rtol=1e-9
        )  # Lemma 6.2: rotation keeps psi
        x = ops.bn_unit(w @ x)
        naive.append(bn_mlp.representation_gap(x))
    assert torch.allclose(chain[1], torch.stack(naive), rtol=1e-10, atol=1e-14)
    assert torch.allclose(dec.bn_haar_chain(x0, 30, "test.chain", [1])[0], chain[1])
    assert (chain.diff(dim=-1) <= 1e-12).all()  # Lemma C.1: BN never increases psi
    assert (chain[:, -1] < 0.5 * chain[:, 0]).all()
    with pytest.raises(ValueError, match="depth"):
        dec.bn_haar_chain(x0, -1, "x", [0])
    with pytest.raises(ValueError, match="depth"):
        dec.bn_haar_chain(x0[0], 3, "x", [0])


def test_haar_step_psi_and_isometry():
    x = _bn_input(4, 0.5)
    step = dec.haar_step(x, 200, _gen(1))
    assert step["psi"].shape == (200,) and step["isometry"].shape == (200,)
    assert torch.allclose(step["isometry"], torch.exp(-step["psi"]))
    psi0 = bn_mlp.representation_gap(x).item()
    assert (step["psi"] <= psi0 + 1e-12).all()  # Lemma 6.2 / C.2 draw by draw
    ortho = dec.haar_step(dec.haar_batch(1, 4, _gen(2))[0], 10, _gen(3))
    assert ortho["psi"].abs().max().item() < 1e-13  # equality for orthogonal X
    with pytest.raises(ValueError, match="draws"):
        dec.haar_step(x, 1, _gen())


def test_fitted_rate_recovers_an_exponential():
    layers = torch.arange(0, 50)
    assert dec.fitted_rate(layers, 3.0 * torch.exp(-layers / 12.5)) == pytest.approx(12.5)
    assert dec.fitted_rate(layers, torch.full((50,), 2.0, dtype=F64)) == math.inf


def test_isometry_of_is_exp_minus_psi_and_scale_invariant():
    x = _bn_input(5, 0.7)
    i = dec.isometry_of(x)
    assert i.item() == pytest.approx(math.exp(-bn_mlp.representation_gap(x).item()), rel=1e-12)
    assert dec.isometry_of(4.0 * x).item() == pytest.approx(i.item(), rel=1e-12)
    assert 0 < i.item() < 1
    assert dec.isometry_of(dec.haar_batch(1, 5, _gen())[0]).item() == pytest.approx(1.0)
