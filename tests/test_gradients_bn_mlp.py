"""Tests of sigprop.papers.gradients.bn_mlp: the Thesis Eq. (6.3)/(6.11) network against a
naive PyTorch model."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from sigprop.engine import ops
from sigprop.nets import initializations
from sigprop.papers.gradients import bn_mlp
from sigprop.papers.gradients.bn_mlp import Architecture


class _TorchBN(nn.Module):
    """Naive reference in PyTorch's (n, d) layout: the authors' norm -> gain -> act order."""

    def __init__(self, arch: Architecture, params: bn_mlp.Parameters, run: int):
        super().__init__()
        self.arch = arch
        self.fcs = nn.ModuleList()
        for layer, w in enumerate(params.weights):
            fc = nn.Linear(w.shape[2], w.shape[1], bias=params.biases is not None).double()
            with torch.no_grad():
                fc.weight.copy_(w[run])
                if params.biases is not None:
                    fc.bias.copy_(params.biases[layer][run, :, 0])
            self.fcs.append(fc)
        self.bns = nn.ModuleList(nn.BatchNorm1d(arch.width).double() for _ in range(arch.depth))

    def norm(self, layer: int, h: torch.Tensor) -> torch.Tensor:
        n = h.shape[0]
        if self.arch.norm == "batch_norm":
            return self.bns[layer](h)
        if self.arch.norm == "bn_centered":
            h = h - h.mean(0, keepdim=True)
        factor = 1.0 if self.arch.norm == "bn_unit" else math.sqrt(n)
        return h / h.norm(dim=0, keepdim=True) * factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        act = {"linear": lambda t: t, "tanh": torch.tanh, "sin": torch.sin}[self.arch.activation]
        for layer, fc in enumerate(self.fcs):
            x = fc(x)
            if layer < self.arch.depth:
                alpha = self.arch.gain * (layer + 1) ** -self.arch.gain_exponent
                x = act(self.norm(layer, x) * alpha)
        return x


@pytest.mark.parametrize(
    "arch",
    [
        Architecture(4, 6, "bn_unit"),
        Architecture(4, 6, "bn_rms", init="gaussian"),
        Architecture(3, 6, "bn_centered", activation="tanh", gain_exponent=0.4),
        Architecture(3, 6, "batch_norm", activation="sin", bias=True, gain=0.7),
    ],
    ids=lambda a: f"{a.norm}-{a.init}-{a.activation}",
)
def test_gradients_equal_naive_torch_model_per_run(arch):
    """Batched autograd over runs == nn.Linear/nn.BatchNorm1d model run by run."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(9, 8, generator=g, dtype=torch.float64)  # D = 9, n = 8
    y = torch.randint(0, 3, (8,), generator=g)
    prof = bn_mlp.gradient_profile(arch, x, y, "test.bn_mlp", [0, 1], n_classes=3)
    params = bn_mlp.init_parameters(arch, 9, 3, "test.bn_mlp", [0, 1])
    for run in (0, 1):
        model = _TorchBN(arch, params, run).train()
        loss = nn.functional.cross_entropy(model(x.T), y)
        loss.backward()
        naive = torch.stack([fc.weight.grad.norm().log() for fc in model.fcs])
        torch.testing.assert_close(prof.log_grad[run], naive, rtol=1e-10, atol=1e-10)
        torch.testing.assert_close(prof.loss[run], loss.detach(), rtol=1e-12, atol=1e-12)


def test_a_run_is_reproducible_alone():
    arch = Architecture(3, 5)
    both = bn_mlp.init_parameters(arch, 7, 2, "test.alone", [0, 1])
    one = bn_mlp.init_parameters(arch, 7, 2, "test.alone", [1])
    for w2, w1 in zip(both.weights, one.weights, strict=True):  # batched QR: equal to round-off
        torch.testing.assert_close(w2[1:], w1, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize(("rows", "cols"), [(5, 5), (3, 7), (7, 3)])
def test_haar_weights_are_semi_orthogonal(rows, cols):
    gens = [torch.Generator().manual_seed(s) for s in range(4)]
    w = initializations.haar_weights(gens, rows, cols, torch.float64, "cpu")
    k = min(rows, cols)
    small = w @ w.mT if rows <= cols else w.mT @ w
    torch.testing.assert_close(small, torch.eye(k, dtype=torch.float64).expand(4, k, k))


def test_haar_weights_have_haar_moments():
    """E W_ik^2 = 1/d and E[W_ik^2 W_jk^2] = 1/(d(d+2)) (Thesis Eq. (C.29)-(C.31)); sign fix makes
    Q Haar (without it, diag(R) > 0 is not imposed and Q is biased)."""
    d, m = 4, 4000
    gens = [torch.Generator().manual_seed(s) for s in range(m)]
    w = initializations.haar_weights(gens, d, d, torch.float64, "cpu")
    sq = w.square()
    assert abs(sq[:, 0, 0].mean() - 1 / d) < 4 * sq[:, 0, 0].std() / math.sqrt(m)
    e2 = (sq[:, 0, 0] * sq[:, 1, 0]).mean()
    assert abs(e2 - 1 / (d * (d + 2))) < 0.15 / (d * (d + 2))
    assert abs(w[:, 0, 0].mean()) < 4 * w[:, 0, 0].std() / math.sqrt(m)


def test_gaussian_weights_have_xavier_variance():
    gens = [torch.Generator().manual_seed(s) for s in range(2)]
    w = initializations.gaussian_weights(gens, 300, 100, torch.float64, "cpu")
    assert abs(w.var().item() - 2 / 400) < 0.05 * 2 / 400


def test_gains_follow_eq_6_11():
    arch = Architecture(4, 3, gain=0.5, gain_exponent=0.4)
    assert arch.gains() == pytest.approx([0.5 * (k + 1) ** -0.4 for k in range(4)])
    assert arch.gains()[0] == 0.5


def test_orthogonal_identity_network_preserves_psi_under_rotation():
    """psi(W X) = psi(X) for orthogonal W (Lemma 6.2): fc_l output gap equals that of X_l."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(6, 6, generator=g, dtype=torch.float64)
    arch = Architecture(3, 6, "bn_unit")
    params = bn_mlp.init_parameters(arch, 6, 2, "test.rot", [0])
    _, gaps = bn_mlp.forward(params, x, arch, gap_layers=[0, 1])
    torch.testing.assert_close(gaps[0][0], bn_mlp.representation_gap(x), rtol=1e-10, atol=1e-12)
    x1 = ops.bn_unit(params.weights[0][0] @ x)
    torch.testing.assert_close(gaps[1][0], bn_mlp.representation_gap(x1), rtol=1e-10, atol=1e-12)


def test_mean_reduction_makes_psi_infinite():
    g = torch.Generator().manual_seed(2)
    h = ops.bn_centered(torch.randn(8, 8, generator=g, dtype=torch.float64))
    assert math.isinf(bn_mlp.representation_gap(h))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"depth": 0}, "depth"),
        ({"norm": "bn"}, "norm must be one of"),
        ({"init": "xavier"}, "init must be one of"),
        ({"activation": "cube"}, "activation must be one of"),
        ({"gain": 0.0}, "gain"),
    ],
)
def test_bad_architecture_raises(kwargs, match):
    base = {"depth": 2, "width": 3}
    with pytest.raises(ValueError, match=match):
        Architecture(**{**base, **kwargs})


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous().view(torch.int64)


@pytest.mark.parametrize(
    "arch",
    [
        Architecture(3, 5, "bn_rms"),
        Architecture(4, 5, "batch_norm", activation="sin", bias=True, gain_exponent=0.4),
        Architecture(4, 5, "bn_centered", activation="tanh", init="gaussian"),
    ],
    ids=lambda a: f"{a.norm}-{a.init}-{a.activation}",
)
@pytest.mark.parametrize("align", [True, False], ids=["aligned", "unaligned"])
def test_chunked_runs_equal_one_pass_bit_for_bit(arch, align, monkeypatch):
    """Runs in chunks (the smallest the alignment allows) == all runs in one pass, every bit:
    on one machine and kernel path, MKL's results depend on the data's 64-byte alignment, which
    aligned chunks keep. Chunks of one run move the Haar draws off that alignment: their QR may
    round otherwise (on some CPUs it does, on AVX-512 ones it does not), so they agree with the
    one pass to round-off only; no test asserts which bits a given CPU produces."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(7, 8, generator=g, dtype=torch.float64)  # D = 7, n = 8, C = 2: odd blocks
    y = torch.randint(0, 2, (8,), generator=g)
    runs = range(20)
    monkeypatch.setattr(bn_mlp, "CHUNK_BYTES", {})
    args = (arch, x, y, "test.chunks", runs, 2)
    whole = bn_mlp.gradient_profile(*args, gap_layers=[0, 1, arch.depth - 1])
    monkeypatch.setattr(bn_mlp, "CHUNK_BYTES", {"cpu": 1})
    if not align:
        monkeypatch.setattr(bn_mlp, "_CHUNK_ALIGN", 8)
    chunks = bn_mlp.run_chunks(runs, arch, 7, 8, 2, torch.float64, torch.device("cpu"))
    assert [len(c) for c in chunks] == ([16, 4] if align else [1] * 20)
    chunked = bn_mlp.gradient_profile(*args, gap_layers=[0, 1, arch.depth - 1])
    assert whole.gaps.keys() == chunked.gaps.keys() == {0, 1, arch.depth - 1}
    pairs = [
        (chunked.log_grad, whole.log_grad),
        (chunked.loss, whole.loss),
        *[(chunked.gaps[k], gap) for k, gap in whole.gaps.items()],
    ]
    for a, b in pairs:
        if align:
            assert torch.equal(_bits(a), _bits(b))
        else:  # the same draws, rounded perhaps otherwise: equal to round-off in float64
            torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_run_chunks_follow_the_memory_budget(monkeypatch):
    arch, f64, cpu = Architecture(1000, 100), torch.float64, torch.device("cpu")
    per_run = bn_mlp.graph_bytes(arch, 784, 100, 10, f64)
    monkeypatch.setattr(bn_mlp, "CHUNK_BYTES", {"cpu": 4 * per_run})
    assert bn_mlp.run_chunks(range(10), arch, 784, 100, 10, f64, cpu) == [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, 9],
    ]
    # below one run: the smallest aligned chunk (C x d = 1000 doubles: 2 runs span 128 bytes)
    monkeypatch.setattr(bn_mlp, "CHUNK_BYTES", {"cpu": per_run // 2})
    assert [len(c) for c in bn_mlp.run_chunks(range(5), arch, 784, 100, 10, f64, cpu)] == [2, 2, 1]
    assert bn_mlp.run_chunks(range(5), arch, 784, 100, 10, f64, torch.device("meta")) == [
        list(range(5))
    ]


@pytest.mark.parametrize("init", ["orthogonal", "gaussian"])
def test_parameter_cache_gives_the_bits_of_a_fresh_draw(init, monkeypatch):
    """A sweep over activations and gains at one depth reuses one draw: its profiles equal, bit
    for bit, those of networks drawn afresh (cache off), chunked or not."""
    g = torch.Generator().manual_seed(5)
    x = torch.randn(6, 8, generator=g, dtype=torch.float64)
    y = torch.randint(0, 3, (8,), generator=g)
    archs = [
        Architecture(5, 4, "batch_norm", act, init, gain_exponent=e, bias=True)
        for act in ("sin", "tanh", "linear")
        for e in (0.0, 0.4)
    ]
    monkeypatch.setattr(bn_mlp, "CHUNK_BYTES", {"cpu": 1})
    bn_mlp._PARAMETER_CACHE.clear()
    cached = [bn_mlp.gradient_profile(a, x, y, "test.cache", range(6), 3) for a in archs]
    assert len(bn_mlp._PARAMETER_CACHE) == 1
    monkeypatch.setattr(bn_mlp, "CACHE_BYTES", 0)
    bn_mlp._PARAMETER_CACHE.clear()
    for arch, hit in zip(archs, cached, strict=True):
        fresh = bn_mlp.gradient_profile(arch, x, y, "test.cache", range(6), 3)
        assert torch.equal(_bits(fresh.log_grad), _bits(hit.log_grad))
        assert torch.equal(_bits(fresh.loss), _bits(hit.loss))
    assert not bn_mlp._PARAMETER_CACHE
    other = bn_mlp.gradient_profile(archs[0], x, y, "test.cache.other", range(6), 3)
    assert not torch.equal(other.log_grad, cached[0].log_grad)  # the key holds the address
