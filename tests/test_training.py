"""The training layer: initializations, normalization slots, the batched-over-runs loop, probes
and rank pre-training (Dan+20 Algorithm 1)."""

import math

import pytest
import torch
from torch import nn

from sigprop.engine import chains, metrics, ops
from sigprop.nets.initializations import init_weights
from sigprop.nets.mlp import MLP, stacked_mlp_supports
from sigprop.nets.normalizations import UncenteredBatchNorm1d
from sigprop.training.loop import RunStack, TrainData, sgd_step, train
from sigprop.training.pretrain import pretrain_rank
from sigprop.training.probes import last_hidden_probes


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def big_layer(scheme, fan_in=400, fan_out=300):
    layer = nn.Linear(fan_in, fan_out)
    init_weights(layer, scheme, gen())
    return layer.weight.detach().double()


def test_default_and_asymmetric_inits_have_the_same_variance():
    """Dan+20 Fig. 5: U[-b, b] and U[0, 2b], b = 1/sqrt(fan_in), both of variance b^2 / 3."""
    b = 1 / math.sqrt(400)
    default, asym = big_layer("torch_default"), big_layer("asymmetric")
    assert default.min() >= -b and default.max() <= b and abs(default.mean()) < 0.01 * b
    assert asym.min() >= 0 and asym.max() <= 2 * b
    assert asym.mean() == pytest.approx(b, rel=0.01)
    for w in (default, asym):
        assert w.var() == pytest.approx(b**2 / 3, rel=0.02)


def test_xavier_and_orthogonal_inits():
    w = big_layer("xavier")
    assert w.var() == pytest.approx(2 / 700, rel=0.02) and abs(w.mean()) < 0.002
    q = big_layer("orthogonal", 300, 200)  # 200 x 300: orthonormal rows
    assert torch.allclose(q @ q.T, torch.eye(200, dtype=q.dtype), atol=1e-5)


def test_init_is_seeded_and_bad_names_raise():
    a, b = MLP(5, 4, 2), MLP(5, 4, 2)
    init_weights(a, "torch_default", gen(3)), init_weights(b, "torch_default", gen(3))
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    with pytest.raises(ValueError, match="init must be one of"):
        init_weights(a, "kaiming", gen())
    with pytest.raises(ValueError, match="norm must be one of"):
        MLP(5, 4, 2, norm="layer_norm")


def test_uncentered_batch_norm_is_the_hand_computation():
    x = torch.randn(16, 5, generator=gen(1), dtype=torch.float64) + 2.0
    bn = UncenteredBatchNorm1d(5).double()
    with torch.no_grad():
        bn.weight.copy_(torch.arange(1.0, 6.0)), bn.bias.fill_(0.5)
    second = x.square().mean(0)
    expected = x / torch.sqrt(second + bn.eps) * torch.arange(1.0, 6.0) + 0.5
    assert torch.allclose(bn(x), expected)
    assert torch.allclose(bn.running_var, 0.9 + 0.1 * second)  # momentum 0.1 from 1
    bn.eval()
    assert torch.allclose(bn(x), x / torch.sqrt(bn.running_var + bn.eps) * bn.weight + 0.5)


def test_normalization_slots_at_initialization():
    """BatchNorm1d with eps = 0 is the centered theory BN; the bn_rms slot is Dan+20 Eq. (2)."""
    x = torch.randn(32, 6, generator=gen(2), dtype=torch.float64)
    torch_bn = nn.BatchNorm1d(6, eps=1e-300).double()  # torch refuses eps = 0 in training
    assert torch.allclose(torch_bn(x), ops.bn_centered(x.T).T)
    rms = MLP(6, 6, 1, norm="bn_rms").hidden[1]
    assert torch.allclose(rms(x), ops.bn_rms(x.T).T)


@pytest.mark.parametrize("norm", ["bn_rms", "none"])
def test_mlp_equals_the_at_init_chain(norm):
    """At initialization the trainable MLP (zero biases) is the chain of the at-init figures:
    H_{l+1} = relu(norm(W_l H_l)) (``chains.Step``), up to the vanilla chain's positive
    rescaling, which the scale-invariant probes ignore."""
    torch.set_default_dtype(torch.float64)
    try:
        model = MLP(8, 8, 5, norm=norm)
    finally:
        torch.set_default_dtype(torch.float32)
    init_weights(model, "torch_default", gen(4))
    linears = [m for m in model.hidden if isinstance(m, nn.Linear)]
    for layer in linears:
        nn.init.zeros_(layer.bias)
    x = torch.randn(20, 8, generator=gen(5), dtype=torch.float64)
    step, h = chains.Step(norm, "relu"), x.T[None]
    for weight in [layer.weight.detach() for layer in linears]:
        h = step(h, weight.__matmul__)
    ours = model(x, output="last_hidden").detach().T[None]
    if norm == "none":
        ours, h = ours / ours.norm(), h / h.norm()
    assert torch.allclose(ours, h, atol=1e-12)
    assert metrics.rank_lower_bound(ours) == pytest.approx(float(metrics.rank_lower_bound(h)))


def models(norm="batch_norm", runs=3, depth=3):
    out = []
    for r in range(runs):
        m = MLP(12, 16, depth, n_classes=3, norm=norm)
        out.append(init_weights(m, "torch_default", gen(10 + r)))
    return out


def test_stack_equals_each_network_alone():
    nets = models()
    stack = RunStack(nets)
    x = torch.randn(3, 24, 12, generator=gen(6))
    out = stack.logits(x, training=True)
    for r, net in enumerate(nets):
        assert torch.allclose(out[r], net.train()(x[r]), atol=1e-6)
        running = stack.buffers["hidden.1.running_mean"][r]
        assert torch.allclose(running, net.hidden[1].running_mean, atol=1e-7)


def test_stack_modes_follow_each_call_after_blocks():
    """The stack switches its modules' mode only on a change; ``blocks`` puts some of them in
    training mode, so an eval-mode call after it must still use the running statistics."""
    nets = models()
    stack = RunStack(nets)
    x = torch.randn(3, 24, 12, generator=gen(7))
    stack.logits(x, training=True)
    expected = stack.logits(x, training=False)
    stack.blocks(x, 0, 2)
    assert torch.equal(stack.logits(x, training=False), expected)
    for r, net in enumerate(nets):
        net.train()(x[r])  # the same running statistics as the stack's one training call
        assert torch.allclose(expected[r], net.eval()(x[r]), atol=1e-6)


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_stacked_sgd_is_torch_sgd_per_run(momentum):
    """Per-run learning rates on the stack = torch.optim.SGD on each network alone."""
    nets, lrs = models(), torch.tensor([0.05, 0.1, 0.2])
    stack = RunStack(nets)
    x = torch.randn(4, 3, 24, 12, generator=gen(7))
    y = torch.randint(0, 3, (4, 3, 24), generator=gen(8))
    _sgd_steps(stack, x, y, lrs, momentum)
    for r, net in enumerate(nets):
        opt = torch.optim.SGD(net.parameters(), lr=float(lrs[r]), momentum=momentum)
        for t in range(4):
            opt.zero_grad()
            nn.functional.cross_entropy(net.train()(x[t, r]), y[t, r]).backward()
            opt.step()
        alone = dict(net.named_parameters())
        for name, p in stack.params.items():
            assert torch.allclose(p[r], alone[name], atol=1e-6), name


def _sgd_steps(stack: RunStack, x, y, lrs, momentum: float) -> None:
    """One SGD step of the stack per batch x[t] (R, B, d): each run's mean cross-entropy."""
    for p in stack.params.values():
        p.requires_grad_(True)
    state = {}
    for t in range(len(x)):
        out = stack.logits(x[t], training=True)
        loss = nn.functional.cross_entropy(out.flatten(0, 1), y[t].flatten(), reduction="none")
        loss.view(stack.size, -1).mean(-1).sum().backward()
        stack.collect_grads()
        sgd_step(stack.params, lrs, momentum, state)


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_the_per_run_path_trains_as_the_vmap_path(momentum):
    """``RunStack(per_run=True)``: each run through its own module, whose parameters and BN
    statistics are views of the stack's. Outputs, running statistics and SGD steps equal the
    vmap path's to round-off, and the stack's own tensors are what the members use."""
    nets, lrs = models(), torch.tensor([0.05, 0.1, 0.2])
    stacks = [RunStack(nets, stacked_products=False), RunStack(nets, True, stacked_products=False)]
    x = torch.randn(4, 3, 24, 12, generator=gen(7))
    y = torch.randint(0, 3, (4, 3, 24), generator=gen(8))
    for stack in stacks:
        _sgd_steps(stack, x, y, lrs, momentum)
    vmapped, per_run = stacks
    for name, p in vmapped.params.items():
        assert torch.allclose(per_run.params[name], p, atol=1e-6), name
        member = dict(per_run.members[1].named_parameters())[name]
        assert member.data_ptr() == per_run.params[name][1].data_ptr()  # a view, not a copy
    for name, b in vmapped.buffers.items():
        assert torch.allclose(per_run.buffers[name].double(), b.double(), atol=1e-6), name
    evaluated = [stack.logits(x[0], training=False) for stack in stacks]
    assert torch.allclose(*evaluated, atol=1e-6)
    kept = {k: v.clone() for k, v in per_run.buffers.items()}
    with torch.no_grad():
        hidden = [stack.hidden(x[0]) for stack in stacks]
    assert torch.allclose(*hidden, atol=1e-5)
    for k, v in per_run.buffers.items():
        assert torch.equal(v, kept[k]), f"H_L probe moved the running statistic {k}"


@pytest.mark.parametrize(
    "norm, bias, block_order",
    [
        ("batch_norm", True, "linear_norm_act"),
        ("none", True, "linear_norm_act"),
        ("batch_norm", False, "act_linear_norm"),
    ],
)
def test_stacked_products_train_as_the_vmap_path(norm, bias, block_order):
    """``stacked_mlp``: Linear as one baddbmm over the runs, BN over every run's channels side
    by side. Outputs, gradients, running statistics, SGD steps and H_L equal the vmap path's."""
    nets = [
        init_weights(MLP(12, 16, 3, 3, norm, bias=bias, block_order=block_order), "xavier", gen(r))
        for r in range(3)
    ]
    lrs = torch.tensor([0.05, 0.1, 0.2])
    stacks = [RunStack(nets, stacked_products=False), RunStack(nets)]
    assert [stack.stacked_products for stack in stacks] == [False, True]
    x = torch.randn(4, 3, 24, 12, generator=gen(7))
    y = torch.randint(0, 3, (4, 3, 24), generator=gen(8))
    for stack in stacks:
        _sgd_steps(stack, x, y, lrs, 0.9)
    vmapped, stacked = stacks
    for name, p in vmapped.params.items():
        assert torch.allclose(stacked.params[name], p, atol=1e-6), name
    for name, b in vmapped.buffers.items():
        assert torch.allclose(stacked.buffers[name].double(), b.double(), atol=1e-6), name
    for output in ("logits", "last_hidden"):
        training = output == "last_hidden"
        a, b = (s.outputs(x[0], training, output) for s in stacks)
        assert torch.allclose(a, b, atol=1e-6), output
    # hidden blocks 2..3 from H_1 (rank pre-training's path): values and gradients
    h_1 = vmapped.blocks(x[0], 0, 1).detach()
    outs = [s.blocks(h_1, 1, 3) for s in stacks]
    assert torch.allclose(*outs, atol=1e-6)
    probe = torch.randn(outs[0].shape, generator=gen(9))  # not sum(H^2): BN makes it flat
    grads = [
        torch.autograd.grad((o * probe).sum(), s.block_parameters(2))
        for o, s in zip(outs, stacks, strict=True)
    ]
    for a, b in zip(*grads, strict=True):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-5), (a - b).abs().max()
    assert not RunStack(nets, per_run=True).members, "the stacked products beat the per-run path"


@pytest.mark.parametrize("norm", ["batch_norm_uncentered", "bn_rms"])
def test_stacked_products_leave_other_blocks_to_vmap(norm):
    """Blocks ``stacked_mlp`` does not write out (the uncentred BN, a theory BN) keep vmap."""
    assert stacked_mlp_supports(MLP(12, 16, 2, 3, "batch_norm"))
    assert not stacked_mlp_supports(MLP(12, 16, 2, 3, norm))
    assert not RunStack(models(norm)).stacked_products


@pytest.mark.parametrize("per_run", [False, True])
def test_chunked_evaluation_is_one_pass(per_run):
    """``_evaluate`` in chunks of ``EVAL_CHUNK`` gives one pass's loss and accuracy (eval mode:
    each sample's logits do not depend on the others in its chunk)."""
    from sigprop.training.loop import EVAL_CHUNK, _evaluate

    stack = RunStack(models(), per_run, stacked_products=False)
    x = torch.randn(3 * EVAL_CHUNK + 5, 12, generator=gen(11))
    y = torch.randint(0, 3, (len(x),), generator=gen(12))
    chunked, whole = _evaluate(stack, x, y), _evaluate(stack, x, y, chunk=len(x))
    assert torch.allclose(chunked[0], whole[0], rtol=1e-6)
    assert torch.allclose(chunked[1], whole[1])


def test_a_per_run_training_is_the_vmap_training():
    data, lrs = synthetic_data(), torch.tensor([0.05, 0.1])
    curves = [
        train(RunStack(models(runs=2), per_run, False), data, lrs, 2, 20, "test.pr", [0, 1], 5)
        for per_run in (False, True)
    ]
    assert curves[0].step == curves[1].step
    for name, value in curves[0].tensors().items():
        assert torch.allclose(curves[1].tensors()[name], value, rtol=1e-4, atol=1e-6), name


def synthetic_data(n=240, d=12, classes=3):
    """Three linearly separable Gaussian blobs: a task a small MLP learns in a few epochs."""
    g = gen(9)
    centers = 3 * torch.randn(classes, d, generator=g)
    y = torch.randint(0, classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, d, generator=g)
    return TrainData(x[:200], y[:200], x[200:], y[200:], probe_x=x[:32])


@pytest.mark.parametrize("norm", ["none", "batch_norm"])
def test_a_tiny_training_run_lowers_the_loss(norm):
    data = synthetic_data()
    stack = RunStack(models(norm, runs=2))
    curves = train(stack, data, torch.tensor([0.1, 0.1]), 3, 20, "test.train", [0, 1], 5)
    values = curves.tensors()
    assert curves.step[0] == 0 and curves.epoch[-1] == 3.0 and curves.step[-1] == 30
    assert curves.step == [0, 5, 10, 15, 20, 25, 30]
    assert values["train_loss"].shape == (2, len(curves.step))
    assert (values["train_loss"][:, -1] < 0.5 * values["train_loss"][:, 0]).all()
    assert (values["test_accuracy"][:, -1] > 0.8).all()
    assert ((values["rank"] >= 1) & (values["rank"] <= 16)).all()


def test_training_is_reproducible_per_run():
    """A run's curve depends on its seeding address, not on the other runs of the stack."""
    data, lrs = synthetic_data(), torch.tensor([0.05, 0.05])
    both = train(RunStack(models(runs=2)), data, lrs, 1, 20, "test.seed", [0, 1]).tensors()
    alone = train(RunStack(models(runs=1)), data, lrs[:1], 1, 20, "test.seed", [0]).tensors()
    assert torch.allclose(both["train_loss"][0], alone["train_loss"][0], rtol=1e-5)


def test_blocks_compose_to_the_hidden_layers():
    nets = models(depth=4)
    stack = RunStack(nets)
    x = torch.randn(3, 24, 12, generator=gen(11))
    h2 = stack.blocks(x, 0, 2)
    assert torch.allclose(stack.blocks(h2, 2, 4), stack.hidden(x), atol=1e-6)
    assert torch.allclose(h2, stack.hidden(x, "all_hidden")[:, 1], atol=1e-6)
    assert torch.equal(stack.blocks(x, 0, 0), x)
    assert [tuple(p.shape) for p in stack.block_parameters(2)] == [
        (3, 16, 16),
        (3, 16),
        (3, 16),
        (3, 16),
    ]  # Linear weight and bias, BN weight and bias
    with pytest.raises(ValueError, match="start"):
        stack.blocks(x, 3, 5)


@pytest.mark.parametrize("variant", ["last_layer", "layer_wise"])
def test_rank_pretraining_raises_the_rank_lower_bound(variant):
    """Algorithm 1 on vanilla ReLU nets at PyTorch's default init (r(H_L) about 1.1 of 32)
    raises r(H_L) on a batch it never saw, for both readings, with the quick-scale constants.
    (At 12 blocks of this width the raise is erratic, 1.0 to 1.9: the deep case is measured by
    Fig. 6's claim at width 128, not here.)"""
    x = torch.randn(400, 48, generator=gen(3))
    nets = [init_weights(MLP(48, 32, 4, 3), "torch_default", gen(10 + r)) for r in range(4)]
    stack = RunStack(nets)

    def r_probe():
        with torch.no_grad():
            h = stack.hidden(x[:32].expand(stack.size, 32, 48))
        return metrics.rank_lower_bound(h.double().mT)

    before = r_probe()
    history = pretrain_rank(stack, x[32:], "test.pre", range(4), 5, 5, 32, 0.01, variant)
    assert history.shape == (4, (1 if variant == "last_layer" else 4) * 25)
    assert (r_probe() > 2 * before).all(), (before, r_probe())
    for p in stack.params.values():
        assert p.grad is None


def test_rank_pretraining_of_a_stack_is_each_run_alone():
    """One Adam over the stacked parameters = each run's own Adam on its own minibatches."""
    data = synthetic_data()
    nets = models("none", runs=2, depth=3)
    both = RunStack(nets)
    pretrain_rank(both, data.train_x, "test.pre", [0, 1], 2, 3, 32, 0.01)
    for r in range(2):
        alone = RunStack(nets[r : r + 1])
        pretrain_rank(alone, data.train_x, "test.pre", [r], 2, 3, 32, 0.01)
        for name, p in both.params.items():
            assert torch.allclose(p[r], alone.params[name][0], atol=1e-6), name


def test_rank_pretraining_refuses_unknown_choices():
    stack = RunStack(models("none", runs=1, depth=2))
    x = synthetic_data().train_x
    with pytest.raises(ValueError, match="variant"):
        pretrain_rank(stack, x, "test.pre", [0], 1, 1, 8, 0.1, "greedy")
    with pytest.raises(ValueError, match="optimizer"):
        pretrain_rank(stack, x, "test.pre", [0], 1, 1, 8, 0.1, "last_layer", "lbfgs")


def test_probes_of_a_diverged_run_are_nan():
    """A run whose H_L is not finite is probed as NaN; the other runs as usual."""
    h = torch.randn(2, 32, 16, generator=gen(12), dtype=torch.float64)
    h[1, 3, 4] = float("inf")
    probes = last_hidden_probes(h)
    for name, value in probes.items():
        assert torch.isfinite(value[0]) and torch.isnan(value[1]), name
    assert probes["rank"][0] == 16


def test_classification_data_subsets_are_seeded_and_normalized(monkeypatch, tmp_path):
    """Generated IDX files in Fashion-MNIST's format: a seeded subset, normalized with the
    dataset's constants, flattened; the probe batch is the first training samples."""
    from test_data import _write_source

    from sigprop.datasets import data
    from sigprop.training.datasets import classification_data

    source = tmp_path / "fashion-mnist"
    arrays = _write_source(source, 50, 20, seed=1)
    monkeypatch.setenv(data.ENV_SOURCES, str(source))
    a = classification_data("fashion_mnist", tmp_path / "root", 30, 0, 8, experiment_id="t")
    b = classification_data("fashion_mnist", tmp_path / "root", 30, 0, 8, experiment_id="t")
    assert a.train_x.shape == (30, 784) and a.test_x.shape == (20, 784)
    assert torch.equal(a.train_x, b.train_x) and torch.equal(a.probe_x, a.train_x[:8])
    pixels = torch.as_tensor(arrays["t10k-images-idx3-ubyte"]).flatten(1).float() / 255
    assert torch.allclose(a.test_x, (pixels - 0.2860) / 0.3530)


def test_missing_dataset_stops_before_training(monkeypatch, tmp_path):
    from sigprop.datasets import data
    from sigprop.training.datasets import classification_data

    monkeypatch.delenv(data.ENV_SOURCES, raising=False)
    monkeypatch.setitem(data.LOCAL_SOURCES, "fashion_mnist", [str(tmp_path / "nowhere")])
    with pytest.raises(data.DatasetNotFoundError, match="Fashion-MNIST"):
        classification_data("fashion_mnist", tmp_path / "root", 10, 10, 4)


def test_uncentered_batch_norm_cumulative_average():
    """momentum=None: the running second moment is the plain average over batches."""
    bn = UncenteredBatchNorm1d(3, momentum=None).double()
    batches = [torch.randn(8, 3, generator=gen(k), dtype=torch.float64) for k in range(3)]
    for x in batches:
        bn(x)
    expected = torch.stack([x.square().mean(0) for x in batches]).mean(0)
    assert torch.allclose(bn.running_var, expected)
