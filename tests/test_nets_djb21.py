"""Tests of nets.djb21: DJB21 Fig. 5 networks from torch's own layers."""

from __future__ import annotations

import math

import pytest
import torch

from sigprop.engine import metrics, ops, seeding
from sigprop.nets import convnets, djb21
from sigprop.nets.initializations import linear_layers


def _mlp(norm, depth=4, width=16, in_features=12, seed=0):
    g = seeding.generator("test.models", seed, "weights")
    return djb21.relu_first_mlp(in_features, width, depth, norm, generator=g).double().train()


def _conv(norm, depth=3, channels=5, padding_mode="reflect", seed=0):
    g = seeding.generator("test.models", seed, "weights")
    net = convnets.ConvNet(2, channels, depth, 3, norm, padding_mode, generator=g)
    return net.double().train()


def _images(gen, n=6, c=2, side=7):
    return torch.randn(n, c, side, side, generator=gen, dtype=torch.float64)


def test_mlp_bn_block_is_torch_batch_norm(gen):
    """ReLU -> Linear -> BatchNorm1d equals ops.batch_norm on the d x n layout."""
    net = _mlp("batch_norm")
    x = torch.randn(6, 12, generator=gen, dtype=torch.float64)
    h = x
    for k in range(net.depth):
        block = net.blocks(k, k + 1)
        relu, linear, bn = block
        assert relu.name == "relu" and isinstance(bn, torch.nn.BatchNorm1d)
        assert linear.bias is None
        expected = ops.batch_norm(linear(torch.relu(h)).mT).mT
        out = block(h)
        torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
        h = out


def test_conv_bn_block_is_torch_batch_norm_per_channel(gen):
    """BatchNorm2d = batch_norm with each channel's batch x pixels as its batch axis."""
    net = _conv("batch_norm")
    h = _images(gen)
    for block in net.blocks:
        relu, conv, bn = block
        assert isinstance(bn, torch.nn.BatchNorm2d) and conv.bias is None
        z = conv(torch.relu(h))
        n, c, hh, ww = z.shape
        flat = z.transpose(0, 1).reshape(c, -1)  # (channels, n * pixels)
        expected = ops.batch_norm(flat).reshape(c, n, hh, ww).transpose(0, 1)
        out = block(h)
        torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
        h = out


@pytest.mark.parametrize("norm", convnets.FIG5_NORMS)
def test_representations_count_and_shapes(gen, norm):
    x = _images(gen)
    mlp = djb21.build("mlp", tuple(x.shape[1:]), 16, 5, norm)
    reps = mlp.double().representations(x)
    assert len(reps) == 5 and torch.equal(reps[0], x.flatten(1))
    assert all(r.shape == (6, 16) for r in reps[1:])
    assert len(mlp.representations(x, include_output=True)) == 6
    torch.testing.assert_close(mlp.representations(x, include_output=True)[-1], mlp(x))

    for mode in convnets.PADDING_MODES:
        conv = _conv(norm, depth=4, padding_mode=mode)
        reps = conv.representations(x, include_output=True)
        assert len(reps) == 5 and reps[0] is x
        assert all(r.shape == (6, 5, 7, 7) for r in reps[1:]), mode  # maps keep their size
        torch.testing.assert_close(reps[-1], conv(x))


def test_gap_of_the_input_is_the_code_formula(gen):
    """V on features_by_samples = the code's ||C / tr C - I/n||_F with C = H H^T, H (n x feats)."""
    x = _images(gen) + 0.3
    flat = x.flatten(1)
    c = flat @ flat.T
    expected = torch.linalg.matrix_norm(c / c.trace() - torch.eye(6, dtype=x.dtype) / 6)
    got = metrics.orthogonality_gap(djb21.features_by_samples(x))
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=0)
    net = _conv("batch_norm")
    first = net.representations(x)[0]
    torch.testing.assert_close(metrics.orthogonality_gap(djb21.features_by_samples(first)), got)


def test_vanilla_mlp_is_positively_homogeneous(gen):
    """Without BN, ReLU and bias-free layers commute with c > 0: V is unchanged at every layer."""
    net = _mlp("none", depth=6)
    x = torch.randn(5, 12, generator=gen, dtype=torch.float64)

    def gaps(inp):
        reps = net.representations(inp, include_output=True)
        return torch.stack([metrics.orthogonality_gap(djb21.features_by_samples(h)) for h in reps])

    a, b = gaps(x), gaps(3.7 * x)
    torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)
    out, scaled = net(x), net(3.7 * x)
    torch.testing.assert_close(scaled, 3.7 * out, rtol=1e-12, atol=1e-14)


def test_bn_nets_are_scale_invariant_after_the_first_bn(gen):
    """Torch BN removes the input scale up to eps: layers >= 2 match for two large scales."""
    net = _mlp("batch_norm", depth=5)
    x = torch.randn(6, 12, generator=gen, dtype=torch.float64)
    a = net.representations(100.0 * x)[2:]
    b = net.representations(10000.0 * x)[2:]
    for u, v in zip(a, b, strict=True):
        torch.testing.assert_close(u, v, rtol=1e-6, atol=1e-6)


def test_init_is_xavier_normal_and_seeded():
    net = _mlp("none", depth=3, width=200, in_features=200)
    w = linear_layers(net)[1].weight
    expected_sd = math.sqrt(2.0) * math.sqrt(2.0 / (200 + 200))  # gain sqrt 2, [code]
    assert abs(w.std().item() / expected_sd - 1) < 0.02
    conv = convnets.ConvNet(3, 50, 2, generator=seeding.generator("t", 0, "w"))
    wc = conv.blocks[1][1].weight
    assert abs(wc.std().item() / math.sqrt(2.0 / (9 * 50 + 9 * 50)) - 1) < 0.05  # gain 1
    same = _mlp("none", depth=3, width=200, in_features=200)
    other = _mlp("none", depth=3, width=200, in_features=200, seed=1)
    assert torch.equal(linear_layers(same)[1].weight, w)
    assert not torch.equal(linear_layers(other)[1].weight, w)


def test_bn_and_vanilla_share_weights_for_one_generator_seed():
    a, b = _mlp("batch_norm"), _mlp("none")
    for linear_a, linear_b in zip(linear_layers(a), linear_layers(b), strict=True):
        assert torch.equal(linear_a.weight, linear_b.weight)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"architecture": "resnet"}, "architecture must be one of"),
        ({"norm": "layernorm"}, "norm must be one of"),
        ({"padding_mode": "zero"}, "padding_mode must be one of"),
        ({"kernel_size": 4}, "kernel_size must be odd"),
        ({"depth": 0}, "depth must be a positive integer"),
        ({"input_shape": (784,), "architecture": "convnet"}, r"convnet needs \(C, H, W\)"),
    ],
)
def test_bad_arguments_raise(kwargs, match):
    args = {
        "architecture": "convnet",
        "input_shape": (1, 8, 8),
        "width": 4,
        "depth": 2,
        "norm": "batch_norm",
        "kernel_size": 3,
        "padding_mode": "reflect",
    }
    with pytest.raises(ValueError, match=match):
        djb21.build(**{**args, **kwargs})
