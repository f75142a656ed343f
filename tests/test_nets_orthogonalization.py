"""Iterative orthogonalization (DJB21 Eq. (6), App. E; Thesis Eq. (2.6), A.4), orthogonal
weights (Thesis A.5 (i)), whitening (DJB21 remark after Thm. 1), and the MLP of DJB21 Figs. 3-4."""

import math

import pytest
import torch

from sigprop.engine import metrics, seeding
from sigprop.nets import djb21
from sigprop.nets import orthogonalization as ini
from sigprop.nets.initializations import init_weights, linear_layers


def xavier(model, experiment_id, run):
    """DJB21's code's ``xavier_init``: ``xavier_relu`` from the run's weight stream."""
    return init_weights(model, "xavier_relu", seeding.generator(experiment_id, run, "weights"))


DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def randn(*shape, seed=0, device="cpu"):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(device)


@pytest.mark.parametrize("device", DEVICES)
def test_code_variant_gives_sliced_v_times_vt(device):
    """[code] improved_init: W = V' Sigma^{-1} U^T, so W H = V' V^T / ||V' V^T||_F exactly."""
    d, n = 8, 24
    h = randn(3, d, n, device=device) + 1.0
    w = ini.orthogonalizing_weight(h, "code")
    _, _, vh = torch.linalg.svd(h, full_matrices=False)
    v = vh.mT
    expected = v[..., :d, :] @ v.mT
    expected = expected / torch.linalg.matrix_norm(expected)[..., None, None]
    torch.testing.assert_close(w @ h, expected, atol=1e-12, rtol=0)
    assert w.shape == (3, d, d) and w.device.type == device


def test_code_variant_is_exact_at_n_equal_d():
    """n = d: V' = V is orthogonal, so W H = V V^T / sqrt(d) and V(W H) = 0."""
    h = randn(4, 6, 6) + 0.5
    wh = ini.orthogonalizing_weight(h, "code") @ h
    assert metrics.orthogonality_gap(wh).max() < 1e-12


@pytest.mark.parametrize("d,n", [(8, 4), (6, 6), (5, 15)])
def test_paper_variant_squared_spectrum(d, n):
    """App. E: with an orthogonal Q, W H has normalized squared spectrum sigma_i / sum sigma."""
    h = randn(5, d, n, seed=1)
    wh = ini.orthogonalizing_weight(h, "paper") @ h
    sigma = torch.linalg.svdvals(h)
    after = torch.linalg.svdvals(wh).square()
    torch.testing.assert_close(
        after / after.sum(-1, keepdim=True), sigma / sigma.sum(-1, keepdim=True)
    )
    torch.testing.assert_close(torch.linalg.matrix_norm(wh), torch.ones(5, dtype=torch.float64))


def test_paper_variant_lowers_the_rank_gap():
    """App. E Eq. (17): V(W H) < V(H) (rank_gap for n > d) when V(H) != 0."""
    for d, n in [(8, 4), (8, 8), (8, 24)]:
        h = randn(20, d, n, seed=2) + randn(20, d, 1, seed=3)
        wh = ini.orthogonalizing_weight(h, "paper") @ h
        assert (metrics.rank_gap(wh) < metrics.rank_gap(h)).all()


def test_sliced_paper_formula_is_not_orthogonal_for_n_above_d():
    """Caveat of spec §1.11: the printed slice V' is not orthogonal; it raises a small gap."""
    q = torch.linalg.qr(randn(4, 24, 8, seed=4)).Q.mT  # 8 x 24, orthonormal rows: V(H) = floor
    h = q + 1e-3 * randn(4, 8, 24, seed=5)
    sliced = ini.orthogonalizing_weight(h, "paper_sliced") @ h
    paper = ini.orthogonalizing_weight(h, "paper") @ h
    assert (metrics.rank_gap(sliced) > 10 * metrics.rank_gap(h)).all()
    assert (metrics.rank_gap(paper) < metrics.rank_gap(h)).all()


def test_invalid_inputs_raise():
    with pytest.raises(ValueError, match="n >= d"):
        ini.orthogonalizing_weight(randn(8, 4), "code")
    with pytest.raises(ValueError, match="variant"):
        ini.orthogonalizing_weight(randn(8, 16), "svd")
    with pytest.raises(ValueError, match="zero"):
        ini.orthogonalizing_weight(torch.zeros(4, 8, dtype=torch.float64), "paper")
    model = djb21.relu_mlp(5, 8, 4).double()
    with pytest.raises(ValueError, match="n >= width"):
        ini.iterative_orthogonalization(model, randn(6, 5), "code")
    with pytest.raises(ValueError, match="variant"):
        ini.iterative_orthogonalization(model, randn(24, 5), "Code")
    with pytest.raises(ValueError, match="depth"):
        djb21.relu_mlp(5, 8, 1)
    with pytest.raises(ValueError, match="rank deficient"):
        ini.whitening(torch.ones(4, 3, dtype=torch.float64))


def test_rank_deficient_h_uses_the_pseudo_inverse():
    """A dead ReLU unit (zero row of H): W H = V'_r V_r^T on the numerical rank, finite."""
    h = randn(6, 18, seed=6)
    h[2] = 0.0
    w = ini.orthogonalizing_weight(h, "code")
    assert torch.isfinite(w).all()
    assert torch.linalg.matrix_rank(w @ h).item() == 5


def test_relu_mlp_architecture_and_xavier_seeding():
    """[code] MLP(layer_num, d_in, width, 10, bias=False, act=relu); xavier_uniform_ gain sqrt 2."""
    model = djb21.relu_mlp(20, 16, 5)
    layers = linear_layers(model)
    assert [(m.in_features, m.out_features) for m in layers] == [(20, 16)] + [(16, 16)] * 3 + [
        (16, 10)
    ]
    assert all(m.bias is None for m in layers)
    assert sum(getattr(m, "name", None) == "relu" for m in model) == 4
    xavier(model, "test", 0)
    bound = math.sqrt(2) * math.sqrt(6 / (16 + 16))
    assert layers[1].weight.abs().max() <= bound
    assert layers[1].weight.abs().max() > 0.9 * bound
    again = xavier(djb21.relu_mlp(20, 16, 5), "test", 0)
    other = xavier(djb21.relu_mlp(20, 16, 5), "test", 1)
    assert torch.equal(linear_layers(again)[2].weight, layers[2].weight)
    assert not torch.equal(linear_layers(other)[2].weight, layers[2].weight)


def test_hidden_representations_is_one_forward_pass():
    """Each module runs once; post[l + 1] is the activation of pre[l], and the last pre-activation
    is the network's output (the papers' layout: columns are samples)."""
    model = xavier(djb21.relu_mlp(12, 8, 5).double(), "test", 2)
    calls = []
    for module in model:
        module.register_forward_hook(lambda m, args, out: calls.append(m))
    x = randn(24, 12, seed=7)
    pre, post = ini.hidden_representations(model, x)
    assert len(calls) == len(model) and len(set(map(id, calls))) == len(model)
    for layer in range(len(pre) - 1):
        torch.testing.assert_close(post[layer + 1], torch.relu(pre[layer]), rtol=0, atol=0)
    torch.testing.assert_close(pre[-1], model(x).mT, rtol=0, atol=0)


@pytest.mark.parametrize("variant", ["code", "paper"])
def test_iterative_orthogonalization_touches_hidden_layers_only(variant):
    """The input and output layers keep Xavier; hidden pre-activations have unit norm."""
    model = xavier(djb21.relu_mlp(12, 8, 5).double(), "test", 2)
    before = [m.weight.clone() for m in linear_layers(model)]
    x = randn(24, 12, seed=7)
    ini.iterative_orthogonalization(model, x, variant)
    after = [m.weight for m in linear_layers(model)]
    assert torch.equal(before[0], after[0]) and torch.equal(before[-1], after[-1])
    assert all(not torch.equal(b, a) for b, a in zip(before[1:-1], after[1:-1], strict=True))
    pre, post = ini.hidden_representations(model, x)
    assert len(pre) == len(post) == 5 and post[0].shape == (12, 24)
    for layer in (1, 2, 3):
        assert abs(torch.linalg.matrix_norm(pre[layer]).item() - 1.0) < 1e-12
        assert metrics.rank_gap(pre[layer]) < metrics.rank_gap(post[layer])
    if variant == "code":  # W_l H_l = V' V^T for the representation the layer saw
        h = post[2]
        _, _, vh = torch.linalg.svd(h, full_matrices=False)
        expected = vh.mT[:8] @ vh
        torch.testing.assert_close(pre[2], expected / torch.linalg.matrix_norm(expected))


def test_orthogonal_weights_have_equal_singular_values():
    """Thesis A.5 (i): W = U diag(s) V^T -> mean(s) U V^T keeps U, V and the mean of s."""
    model = xavier(djb21.relu_mlp(12, 8, 4).double(), "test", 3)
    means = [torch.linalg.svdvals(m.weight).mean() for m in linear_layers(model)]
    ini.orthogonal_weights(model)
    for layer, mean in zip(linear_layers(model), means, strict=True):
        s = torch.linalg.svdvals(layer.weight)
        torch.testing.assert_close(s, torch.full_like(s, mean.item()))


def test_whitening_orthogonalizes_and_attains_the_rank_floor():
    """M^{-1/2} H: V = 0 for n <= d; V = sqrt((n - d) / (n d)) for n > d; unit Frobenius norm."""
    h = randn(10, 16, 4, seed=8) + randn(10, 16, 1, seed=9)
    white = ini.whitening(h)
    assert metrics.orthogonality_gap(white).max() < 1e-13
    torch.testing.assert_close(torch.linalg.matrix_norm(white), torch.ones(10, dtype=torch.float64))
    wide = ini.whitening(randn(3, 4, 12, seed=10))
    expected = math.sqrt((12 - 4) / (12 * 4))
    torch.testing.assert_close(
        metrics.orthogonality_gap(wide), torch.full((3,), expected, dtype=torch.float64)
    )


def test_rank_gap_equals_eq2_for_n_at_most_d_and_transposes_otherwise():
    h = randn(2, 8, 5, seed=11)
    torch.testing.assert_close(metrics.rank_gap(h), metrics.orthogonality_gap(h))
    w = randn(2, 5, 8, seed=12)
    torch.testing.assert_close(metrics.rank_gap(w), metrics.orthogonality_gap(w.mT))
