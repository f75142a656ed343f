"""sigprop.papers.gradients.bn_jacobian: Thesis app. C.3 definitions (Lemma C.18,
C.136-C.139, C.17, C.86)."""

import math

import pytest
import torch

from sigprop.engine import ops
from sigprop.papers.gradients import bn_jacobian as bj
from sigprop.papers.gradients import bn_mlp

torch.set_num_threads(1)
D = torch.float64


def _x(d=5, n=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(3, d, n, generator=g, dtype=D)


def test_closed_form_equals_autograd_rectangular():
    x = _x(3, 6)
    auto = torch.vmap(torch.func.jacrev(ops.bn_unit))(x).reshape(3, 18, 18)
    torch.testing.assert_close(bj.bn_jacobian(x), auto, rtol=0, atol=1e-13)


def test_row_jacobian_spectrum_and_kernel():
    x = _x()[0, 0]
    j = bj.row_jacobian(x)
    eig = torch.linalg.eigvalsh(j)
    r = x.norm()
    torch.testing.assert_close(eig[1:], torch.full((4,), 1 / r.item(), dtype=D))
    assert abs(eig[0].item()) < 1e-14
    torch.testing.assert_close(j @ x, torch.zeros(5, dtype=D), rtol=0, atol=1e-14)


def test_operator_norm_is_inverse_min_row_norm_and_c16():
    x = _x(4, 4)
    op = torch.linalg.matrix_norm(bj.bn_jacobian(x), ord=2)
    torch.testing.assert_close(op, bj.bn_jacobian_norm(x))
    lam_min = torch.linalg.eigvalsh(x @ x.mT)[:, 0]
    assert torch.all(op**2 * lam_min <= 1 + 1e-12)


def test_trace_normalize_and_scale():
    x = bj.trace_normalize(_x(4, 6))
    torch.testing.assert_close(x.square().sum((-2, -1)), torch.full((3,), 4.0, dtype=D))
    torch.testing.assert_close(
        bj.log_bn_jacobian_norm(2 * x), bj.log_bn_jacobian_norm(x) - math.log(2)
    )


def test_c17_holds_and_small_branch():
    x = bj.trace_normalize(_x(6, 6))
    psi = bn_mlp.representation_gap(x)
    general, small = bj.c17_bound(psi, 6)
    lam = torch.linalg.eigvalsh(x.mT @ x)[:, 0]
    assert torch.all(-lam.log() <= general)
    assert torch.all(torch.isinf(small) == (psi > 1 / 96))
    tiny = torch.tensor([1e-4], dtype=D)
    assert bj.c13_bound(tiny, 6).item() == pytest.approx(2 * math.sqrt(6e-4))


def test_hitting_time_and_bounds():
    path = torch.tensor([[1.0, 0.5, 0.01, 0.0], [1.0, 1.0, 1.0, 1.0]], dtype=D)
    s = bj.hitting_time(path, 4)  # threshold 1/64
    assert s[0].item() == 2 and math.isinf(s[1].item())
    psi0 = torch.tensor([1.0, 1e-3], dtype=D)
    assert bj.c14_bound(psi0, 4).tolist() == [512 * 256, 0.0]
    assert bj.c14_proof_bound(psi0, 4)[0].item() == 16 * 4 * 32 * 64
    assert bj.c15_bound(psi0, 4, 10)[0].item() < 10 * 2 + 1e-9  # ~ L sqrt(d psi0) for small L
    assert 0 < bj.c108_factor(2) < 1


def test_logit_gradients_match_autograd_and_bounds():
    g = torch.Generator().manual_seed(1)
    z = 5 * torch.randn(200, 7, generator=g, dtype=D)
    y = torch.randint(0, 7, (200,), generator=g)
    zz = z.clone().requires_grad_(True)
    ce = torch.autograd.grad(torch.nn.functional.cross_entropy(zz, y, reduction="sum"), zz)[0]
    torch.testing.assert_close(bj.ce_logit_gradient(z, y), ce)
    oh = torch.nn.functional.one_hot(y, 7).to(D)
    mse = torch.autograd.grad(((oh - torch.softmax(zz, -1)) ** 2).mean(-1).sum(), zz)[0]
    torch.testing.assert_close(bj.mse_softmax_logit_gradient(z, y), mse)
    assert bj.ce_logit_gradient(z, y).norm(dim=-1).max() <= math.sqrt(2)


def test_bad_input_raises():
    with pytest.raises(ValueError):
        bj.bn_jacobian(torch.ones(3, dtype=D))
    with pytest.raises(ValueError):
        bj.ce_logit_gradient(torch.ones(2, 3, dtype=D), torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError):
        bj.critical_gap(0)
