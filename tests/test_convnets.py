"""The conv nets of Dan+20 Figs. 5, 7, 10, 13 (sigprop.nets.convnets), BN without centering
as a module swap, and the per-sample gradient alignment of the classification layer (Prop. 19)."""

import math

import pytest
import torch
import torchvision
from torch import nn

from sigprop.engine import metrics
from sigprop.nets import convnets
from sigprop.nets.initializations import init_weights
from sigprop.nets.normalizations import (
    UncenteredBatchNorm1d,
    UncenteredBatchNorm2d,
    uncenter_batch_norm,
)
from sigprop.training.datasets import uniform_noise_images
from sigprop.training.loop import RunStack, TrainData, train
from sigprop.training.probes import gradient_alignment, readout_gradients

TINY = 1 / 32


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def weighted(model):
    return [m for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]


@pytest.mark.parametrize("architecture", ["vgg19", "resnet50"])
def test_the_seeds_init_overrides_torchvisions_kaiming(architecture):
    """torchvision draws Kaiming normal weights (VGG: Linear N(0, 0.01)); ``init_weights``
    replaces every conv and Linear: U[-b, b] (default) or U[0, 2b] (asymmetric), b =
    1/sqrt(fan_in), and BN weight 1, bias 0."""
    for scheme in ("torch_default", "asymmetric"):
        net = convnets.build(architecture, in_channels=1, width_multiplier=1 / 8)
        with torch.no_grad():  # BN state that the init must reset
            for m in net.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.weight.fill_(3.0), m.bias.fill_(1.0)
        before = [m.weight.detach().clone() for m in weighted(net)]
        init_weights(net, scheme, gen(1))
        for layer, old in zip(weighted(net), before, strict=True):
            w = layer.weight.detach().double()
            b = 1 / math.sqrt(w[0].numel())
            assert not torch.equal(w, old.double())
            if scheme == "asymmetric":
                assert w.min() >= 0 and w.max() <= 2 * b
            else:
                assert w.min() >= -b and w.max() <= b
            if w.numel() >= 20_000:  # enough draws for the variance b^2 / 3 of either law
                assert w.var(correction=0) + (w.mean() ** 2 if scheme == "asymmetric" else 0) == (
                    pytest.approx(b**2 / 3 + (b**2 if scheme == "asymmetric" else 0), rel=0.05)
                )
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                assert torch.all(m.weight == 1) and torch.all(m.bias == 0)


def test_the_adapted_networks_keep_torchvisions_layers():
    """At width 1 the networks have torchvision's layer counts; ResNet-50 differs from
    torchvision's only in its 3x3 stem (7680 fewer weights), VGG19 in its classifier's input."""
    resnet = convnets.resnet50(width_multiplier=1.0)
    reference = torchvision.models.resnet50(num_classes=10)
    count = lambda net: sum(p.numel() for p in net.parameters())  # noqa: E731
    assert count(reference) - count(resnet) == 64 * 3 * (7 * 7 - 3 * 3)
    assert [type(m) for m in weighted(resnet)][1:-1] == [type(m) for m in weighted(reference)][1:-1]
    vgg = convnets.vgg19(width_multiplier=1.0)
    convs = [m for m in vgg.modules() if isinstance(m, nn.Conv2d)]
    linears = [m for m in vgg.modules() if isinstance(m, nn.Linear)]
    assert len(convs) == 16 and len(linears) == 3 and vgg.depth == 19 and resnet.depth == 50
    assert [m.out_channels for m in convs] == [
        v for v in torchvision.models.vgg.cfgs["E"] if v != "M"
    ]
    assert sum(isinstance(m, nn.BatchNorm2d) for m in vgg.modules()) == 16
    tensors = [*vgg.parameters(), *vgg.buffers()]
    assert {t.device.type for t in tensors} == {"cpu"}, "torchvision's classifier is built on meta"
    plain = convnets.vgg19("none", width_multiplier=TINY)
    assert not any(isinstance(m, nn.BatchNorm2d) for m in plain.modules())


def test_last_hidden_is_the_input_of_the_readout():
    net = convnets.vgg19(in_channels=1, width_multiplier=TINY).double()
    x = torch.randn(6, 1, 32, 32, generator=gen(2), dtype=torch.float64)
    h = net(x, output="last_hidden")
    assert h.shape == (6, 128)
    assert torch.allclose(net(x), net.readout(h))
    with pytest.raises(ValueError, match="logits or last_hidden"):
        net(x, output="all_hidden")
    with pytest.raises(ValueError, match="architecture must be one of"):
        convnets.build("alexnet")
    with pytest.raises(ValueError, match="norm must be one of"):
        convnets.vgg19("layer_norm")


def test_uncentered_batch_norm_2d_is_the_hand_computation():
    """x / sqrt(mean over samples and pixels of x^2 + eps) * weight + bias, per channel; the
    running second moment moves by momentum; eval mode divides by it."""
    x = torch.randn(4, 3, 5, 5, generator=gen(3), dtype=torch.float64) + 1.5
    bn = UncenteredBatchNorm2d(3).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.0, 2.0, 3.0])), bn.bias.fill_(-0.5)
    second = x.square().mean(dim=(0, 2, 3))
    expected = x / torch.sqrt(second + 1e-5).view(1, 3, 1, 1) * bn.weight.view(1, 3, 1, 1) - 0.5
    assert torch.allclose(bn(x), expected)
    assert torch.allclose(bn.running_var, 0.9 + 0.1 * second)
    bn.eval()
    assert torch.allclose(bn(x), x / torch.sqrt(bn.running_var + 1e-5).view(1, 3, 1, 1)
                          * bn.weight.view(1, 3, 1, 1) - 0.5)  # fmt: skip


def test_the_module_swap_replaces_every_batch_norm_and_keeps_its_state():
    net = convnets.resnet50(in_channels=1, width_multiplier=TINY)
    n_bn = sum(isinstance(m, nn.BatchNorm2d) for m in net.modules())
    with torch.no_grad():
        net.body.bn1.running_var.fill_(4.0), net.body.bn1.weight.fill_(2.0)
    uncenter_batch_norm(net)
    kinds = [type(m) for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    assert len(kinds) == n_bn and set(kinds) == {UncenteredBatchNorm2d}
    assert torch.all(net.body.bn1.running_var == 4.0) and torch.all(net.body.bn1.weight == 2.0)
    mlp = uncenter_batch_norm(nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4, eps=1e-3)))
    assert type(mlp[1]) is UncenteredBatchNorm1d and mlp[1].eps == 1e-3
    built = convnets.vgg19("batch_norm_uncentered", in_channels=1, width_multiplier=TINY)
    assert any(isinstance(m, UncenteredBatchNorm2d) for m in built.modules())


def test_identical_samples_give_alignment_one():
    """Prop. 19's limit: per-sample gradients of identical samples are identical."""
    weight = torch.randn(10, 8, generator=gen(4), dtype=torch.float64)
    bias = torch.randn(10, generator=gen(5), dtype=torch.float64)
    h = torch.randn(1, 8, generator=gen(6), dtype=torch.float64).expand(5, 8)
    y = torch.tensor([0, 3, 3, 7, 9])  # labels may differ: the direction is h either way
    assert gradient_alignment(weight, bias, h, y) == pytest.approx(1.0, abs=1e-12)


def test_per_sample_gradients_are_eq_97():
    """torch.func's per-sample gradient of the cross-entropy w.r.t. W_{L+1} is
    (softmax(z_i) - e_{y_i}) h_i^T (Dan+20 Eq. (97)); on Gaussian features the alignment is
    the hand-computed mean |cos| and well below 1."""
    weight = torch.randn(4, 16, generator=gen(7), dtype=torch.float64)
    bias = torch.randn(4, generator=gen(8), dtype=torch.float64)
    h = torch.randn(12, 16, generator=gen(9), dtype=torch.float64)
    y = torch.randint(0, 4, (12,), generator=gen(10))
    grads = readout_gradients(weight, bias, h, y)
    errors = torch.softmax(h @ weight.T + bias, -1) - nn.functional.one_hot(y, 4)
    assert torch.allclose(grads, errors[:, :, None] * h[:, None, :])
    by_hand = []
    for k in range(4):
        g = grads[:, k]
        cos = [abs(float(torch.cosine_similarity(g[i], g[j], 0)))
               for i in range(12) for j in range(12) if i != j]  # fmt: skip
        by_hand.append(sum(cos) / len(cos))
    value = gradient_alignment(weight, bias, h, y)
    assert value == pytest.approx(sum(by_hand) / 4, rel=1e-10) and value < 0.5


def test_mean_abs_cosine_leaves_out_zero_columns():
    h = torch.tensor([[1.0, 2.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]])  # columns: e1, 2 e1, 0, e1+e2
    expected = (1 + 2 * (1 / math.sqrt(2))) / 3  # pairs (1,2), (1,4), (2,4)
    assert float(metrics.mean_abs_cosine(h)) == pytest.approx(expected)
    assert math.isnan(float(metrics.mean_abs_cosine(torch.zeros(3, 4))))


def _image_data(n=16, channels=1, size=32, seed=11):
    x = torch.randn(n, channels, size, size, generator=gen(seed))
    y = torch.randint(0, 10, (n,), generator=gen(seed + 1))
    return TrainData(x, y, x[:8], y[:8], x[:8], 0, y[:8])


@pytest.mark.parametrize(
    "architecture, norm",
    [("vgg19", "batch_norm"), ("vgg19", "none"), ("vgg19", "batch_norm_uncentered"),
     ("resnet50", "batch_norm"), ("resnet50", "batch_norm_uncentered")],
)  # fmt: skip
def test_a_tiny_training_step_of_each_network(architecture, norm):
    """Two runs stacked, two SGD steps, every probe logged and finite; the parameters move."""
    nets = [
        init_weights(convnets.build(architecture, norm=norm, in_channels=1,
                                    width_multiplier=TINY), "torch_default", gen(r))
        for r in range(2)
    ]  # fmt: skip
    stack = RunStack(nets)
    start = {k: v.detach().clone() for k, v in stack.params.items()}
    curves = train(stack, _image_data(), torch.tensor([0.01, 0.01]), 1, 8, "t", [0, 1],
                   probes=("rank", "r_lower_bound", "gradient_alignment"))  # fmt: skip
    values = curves.tensors()
    assert curves.step == [0, 2] and values["gradient_alignment"].shape == (2, 2)
    assert all(torch.isfinite(v).all() for v in values.values())
    assert any(not torch.equal(start[k], stack.params[k]) for k in start)


def test_gradient_probe_needs_labels_and_known_names():
    stack = RunStack([convnets.vgg19(in_channels=1, width_multiplier=TINY)])
    data = _image_data()
    with pytest.raises(ValueError, match="unknown probes"):
        train(stack, data, torch.tensor([0.1]), 1, 8, "t", [0], probes=("curvature",))
    data.probe_y = None
    with pytest.raises(ValueError, match="probe batch's labels"):
        train(stack, data, torch.tensor([0.1]), 1, 8, "t", [0], probes=("gradient_alignment",))


def test_uniform_noise_images_keep_shape_labels_and_preprocessing():
    data = _image_data()
    noise = uniform_noise_images(data, "fashion_mnist", gen(12))
    assert noise.train_x.shape == data.train_x.shape and torch.equal(noise.train_y, data.train_y)
    pixels = noise.train_x * 0.3530 + 0.2860  # undo Fashion-MNIST's normalization
    assert pixels.min() >= -1e-6 and pixels.max() <= 1 + 1e-6
    assert torch.allclose(pixels * 255, (pixels * 255).round(), atol=1e-3)  # integer pixels
    assert pixels.mean() == pytest.approx(0.5, abs=0.02)
    assert torch.equal(noise.probe_x, noise.train_x[:8]) and torch.equal(noise.test_x, data.test_x)


def test_resnet50s_smoke_depth_keeps_every_layer_shape():
    """Depth 26 (``RESNET_BLOCKS``, two blocks per stage): every distinct layer shape and stride
    of ResNet-50, the same output; other depths are refused."""
    shapes = lambda net: {(type(m), tuple(m.weight.shape), getattr(m, "stride", None))  # noqa: E731
                          for m in weighted(net)}  # fmt: skip
    full, cut = (
        convnets.resnet50(width_multiplier=TINY),
        convnets.build("resnet50", 26, width_multiplier=TINY),
    )
    assert shapes(cut) == shapes(full) and cut.depth == 26 and full.depth == 50
    assert len(weighted(cut)) == 26 + 4  # 2 + 3 per block, and 4 projection shortcuts
    x = torch.randn(2, 3, 32, 32, generator=gen(4))
    assert cut(x).shape == full(x).shape == (2, 10)
    for bad in (14, 27):
        with pytest.raises(ValueError, match="has depth 50"):
            convnets.build("resnet50", bad)
    with pytest.raises(ValueError, match="has depth 19"):
        convnets.build("vgg19", 26)


def test_network_training_takes_a_fixed_nets_depth_or_its_smoke_cut_only():
    from sigprop.training.experiment import _depths

    assert _depths("resnet50", None) == [50] and _depths("resnet50", [26]) == [26]
    assert _depths("vgg19", [19]) == [19] and _depths("djb21_convnet", [20, 80]) == [20, 80]
    for architecture, depths in (("resnet50", [14]), ("resnet50", [50, 26]), ("vgg19", [26])):
        with pytest.raises(ValueError, match="cannot change it"):
            _depths(architecture, depths)
