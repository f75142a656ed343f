"""The training engine (``training.loop``'s step, ``training.graphs``): on a CPU the same bytes as
the loop before it; on CUDA (skipped without) graph replay agrees with eager launches and with
the CPU run."""

import contextlib

import pytest
import torch
import torch.nn.functional as F
from interruptions import Stopped, stop_after_saves

from sigprop.base import checkpoints
from sigprop.engine import seeding
from sigprop.nets.initializations import init_weights
from sigprop.nets.mlp import MLP
from sigprop.training import graphs, loop
from sigprop.training.loop import (
    EAGER,
    Curves,
    Engine,
    RunStack,
    TrainData,
    _log_point,
    sgd_step,
    train,
)

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
PROBES = ("rank", "r_lower_bound", "gradient_alignment", "weight_isometry_gap", "gradient_norm")


def data(device="cpu", dtype=torch.float32, n=256, d=12, classes=3) -> TrainData:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, d, generator=g).to(device, dtype)
    y = torch.randint(0, classes, (n,), generator=g).to(device)
    return TrainData(x, y, x[:64], y[:64], x[:32], probe_y=y[:32])


def networks(norm="batch_norm", runs=3, bias=True, device="cpu", dtype=torch.float32):
    return [
        init_weights(
            MLP(12, 16, 3, 3, norm, bias=bias), "torch_default", seeding.generator("e", r)
        ).to(device, dtype)
        for r in range(runs)
    ]


def previous_train(stack, data, lrs, epochs, batch_size, eid, runs, log_every, momentum, probes,
                   clip=0.0) -> Curves:  # fmt: skip
    """The training loop as it was before the engine (advanced indexing with the epoch's order
    slice, the step's ops in line): the reference for the bytes."""
    gens = seeding.generators(eid, list(runs), "batches")
    curves, state, step, n = Curves(), {}, 0, len(data.train_x)
    curves.add(0, 0.0, _log_point(stack, data, probes))
    for p in stack.params.values():
        p.requires_grad_(True)
    per_epoch = n // batch_size
    for epoch in range(epochs):
        order = torch.stack([torch.randperm(n, generator=g) for g in gens])
        for k in range(per_epoch):
            idx = order[:, k * batch_size : (k + 1) * batch_size]
            out = stack.logits(data.train_x[idx], training=True)
            loss = F.cross_entropy(out.flatten(0, 1), data.train_y[idx].flatten(), reduction="none")
            loss.view(stack.size, -1).mean(-1).sum().backward()
            stack.collect_grads()
            sgd_step(stack.params, lrs, momentum, state, clip)
            step += 1
            if log_every and step % log_every == 0 and k + 1 < per_epoch:
                curves.add(step, epoch + (k + 1) / per_epoch, _log_point(stack, data, probes))
        curves.add(step, epoch + 1.0, _log_point(stack, data, probes))
    return curves


def snapshot(stack: RunStack, curves: Curves) -> dict[str, torch.Tensor]:
    out = {k: v.detach().cpu().clone() for k, v in {**stack.params, **stack.buffers}.items()}
    return out | {f"curve {k}": v for k, v in curves.tensors().items()}


def same_bytes(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        a[k].dtype == b[k].dtype and torch.equal(a[k].nan_to_num(7.0), b[k].nan_to_num(7.0))
        for k in a
    )


CASES = {
    "BN, momentum": dict(norm="batch_norm", momentum=0.9, probes=PROBES),
    "vanilla": dict(norm="none", momentum=0.0, probes=PROBES),
    "AGC, bias-free": dict(norm="none", momentum=0.0, bias=False, clip=0.05, probes=PROBES[:2]),
    "BN per run": dict(
        norm="batch_norm", momentum=0.9, per_run=True, products=False, probes=PROBES
    ),  # fmt: skip
    "theory BN (vmap)": dict(norm="bn_rms", momentum=0.0, probes=PROBES[:2]),
}


def _case(spec: dict, device="cpu", dtype=torch.float32):
    """Three initial networks, each trained at two step sizes (six members, as
    ``experiment._trained`` stacks them), two epochs of 8 steps, a log point every 3."""
    nets = networks(spec["norm"], 3, spec.get("bias", True), device, dtype)
    stack = RunStack(nets * 2, per_run=spec.get("per_run", False),
                     stacked_products=spec.get("products", True))  # fmt: skip
    lrs = torch.tensor([0.05, 0.05, 0.05, 0.2, 0.2, 0.2], dtype=dtype, device=device)
    args = (data(device, dtype), lrs, 2, 32, "engine.test", [0, 1, 2] * 2, 3, spec["momentum"],
            spec["probes"])  # fmt: skip
    return stack, args, spec.get("clip", 0.0)


@pytest.mark.parametrize("case", list(CASES))
def test_the_engine_trains_as_the_previous_loop_bit_for_bit(case):
    """CPU: every tensor of a training (parameters, BN statistics, every curve) is the previous
    loop's, byte for byte: several runs and step sizes, momentum, clipping, per-run modules."""
    stack, args, clip = _case(CASES[case])
    ours = snapshot(stack, train(stack, *args, clip=clip))
    stack, args, clip = _case(CASES[case])
    theirs = snapshot(stack, previous_train(stack, *args, clip=clip))
    assert same_bytes(ours, theirs)


def test_a_resumed_training_is_the_previous_loop_bit_for_bit(tmp_path, monkeypatch):
    """A training stopped after its second epoch's checkpoint and rerun ends in the bytes of the
    previous loop run through once (the CPU engine: steps, checkpoint, generators)."""
    spec = CASES["BN, momentum"]
    stack, (d, lrs, _, bs, eid, runs, every, mom, probes), _ = _case(spec)
    plain = checkpoints.save

    with checkpoints.resumable(tmp_path):
        monkeypatch.setattr(checkpoints, "save", stop_after_saves(2))
        with pytest.raises(Stopped):
            train(stack, d, lrs, 4, bs, eid, runs, every, mom, probes)
        monkeypatch.setattr(checkpoints, "save", plain)
        stack, *_ = _case(spec)
        resumed = snapshot(stack, train(stack, d, lrs, 4, bs, eid, runs, every, mom, probes))
    stack, *_ = _case(spec)
    once = snapshot(stack, previous_train(stack, d, lrs, 4, bs, eid, runs, every, mom, probes))
    assert same_bytes(resumed, once)


class _FakeGraph:
    """A stand-in for ``torch.cuda.CUDAGraph`` on a CPU: the capture block runs the step (a real
    capture only records it), so the first replay after it does nothing and later ones rerun it."""

    step = None
    captures = 0

    def __init__(self):
        self.fresh = True

    def replay(self):
        if self.fresh:
            self.fresh = False
        else:
            type(self).step()


def _fake_cuda(monkeypatch, fail: bool = False) -> None:
    @contextlib.contextmanager
    def capture(graph, capture_error_mode="global"):
        _FakeGraph.captures += 1
        if fail:  # before the block: a real capture records the step, it never runs it
            raise RuntimeError("operation not permitted when stream is capturing")
        yield

    class Stream:
        def wait_stream(self, other):
            pass

    monkeypatch.setattr(torch.cuda, "CUDAGraph", _FakeGraph)
    monkeypatch.setattr(torch.cuda, "graph", capture)
    monkeypatch.setattr(torch.cuda, "Stream", Stream)
    monkeypatch.setattr(torch.cuda, "stream", lambda s: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "current_stream", Stream)


@pytest.mark.parametrize("fail", [False, True])
def test_the_captured_step_reads_its_static_indices(monkeypatch, fail):
    """The graph path's plumbing on a CPU (CUDA's graph calls faked): warm-up, capture, replays
    reading the minibatch from the one index tensor, or the eager fallback after a failed
    capture, train to the eager engine's bytes."""
    spec = CASES["BN, momentum"]
    stack, args, _ = _case(spec)
    eager = snapshot(stack, train(stack, *args))
    _fake_cuda(monkeypatch, fail)
    _FakeGraph.captures = 0
    steps_made = []
    plain_steps = loop._Steps

    class Steps(plain_steps):
        def __init__(self, *a):
            super().__init__(*a[:-2], True, a[-1])
            _FakeGraph.step = lambda: self.step(self.index)
            steps_made.append(self)

    monkeypatch.setattr(loop, "_Steps", Steps)
    stack, args, _ = _case(spec)
    curves = train(stack, *args)
    assert same_bytes(snapshot(stack, curves), eager)
    assert _FakeGraph.captures == 1
    mode = curves.timing["engine"]
    assert steps_made[0].captured is None  # let go at the end
    assert mode.startswith("eager (capture failed: RuntimeError") if fail else mode == "replay"
    assert curves.timing["setup_steps"] == graphs.WARMUP + 1


def test_measured_cuts_every_training_and_records_its_time(tmp_path):
    """``measured(cut_steps=k)``: each training stops after k steps and logs its epoch-end point,
    writes no checkpoint, and its time is recorded by bucket."""
    spec = CASES["BN, momentum"]
    stack, (d, lrs, _, bs, eid, runs, every, mom, probes), _ = _case(spec)
    with checkpoints.resumable(tmp_path), loop.measured(cut_steps=5) as records:
        curves = train(stack, d, lrs, 3, bs, eid, runs, 0, mom, probes, desc="cut")
    assert curves.step == [0, 5] and curves.epoch == [0.0, 1.0]
    assert list(tmp_path.iterdir()) == []
    (record,) = records
    assert record["desc"] == "cut" and record["members"] == 6 and record["steps"] == 5
    assert (record["steps_per_epoch"], record["epochs"], record["log_points"]) == (8, 3, 2)
    assert record["engine"] == "eager" and record["nonfinite_runs"] == 0
    assert all(record[k] >= 0 for k in ("setup_s", "step_s", "log_s"))
    with loop.measured() as records:
        assert train(stack, d, lrs, 1, bs, eid, runs, 0, mom, probes).step == [0, 8]
    assert records[0]["steps"] == 8


@pytest.mark.parametrize("epochs, batch, every", [(2, 32, 0), (3, 32, 3), (2, 64, 4), (3, 40, 2)])
def test_log_points_counts_what_train_logs(epochs, batch, every):
    """``loop.log_points`` (the projection of a cut run to the paper run uses it) is the number
    of points ``train`` logs."""
    stack = RunStack(networks("none", 1))
    curves = train(stack, data(), torch.tensor([0.1]), epochs, batch, "t.lp", [0], every)
    assert loop.log_points(epochs, 256 // batch, every) == len(curves.step)


def test_nonfinite_runs_are_counted_on_the_device():
    """A step size that blows a run up shows in the timing record's non-finite count (read at
    the end, never per step); the other runs train on."""
    stack = RunStack(networks("none", 2))
    curves = train(stack, data(), torch.tensor([0.05, 1e30]), 1, 32, "t.nan", [0, 1])
    assert curves.timing["nonfinite_runs"] == 1
    assert torch.isfinite(curves.tensors()["train_loss"][0]).all()


def test_engine_choices(monkeypatch):
    stack = RunStack(networks())
    cpu = torch.device("cpu")
    assert Engine().resolved(stack, cpu) == (False, loop.EVAL_CHUNK)
    assert EAGER.resolved(stack, cpu) == (False, loop.EVAL_CHUNK)
    assert Engine(eval_chunk=7).resolved(stack, cpu) == (False, 7)
    with pytest.raises(ValueError, match="CUDA graphs need a CUDA device"):
        Engine(graphs=True).resolved(stack, cpu)
    cuda = torch.device("cuda")  # resolving touches no device
    assert Engine().resolved(stack, cuda) == (True, loop.EVAL_CHUNK_CUDA)
    monkeypatch.setenv(loop.GRAPHS_ENV, "0")
    assert Engine().resolved(stack, cuda) == (False, loop.EVAL_CHUNK_CUDA)
    assert Engine(graphs=True).resolved(RunStack(networks("bn_rms")), cuda) == (True, 128)


# --- CUDA (skipped without): graphs vs eager, CUDA vs CPU -------------------------------------


def _cuda_run(case: str, engine: Engine, device="cuda", dtype=torch.float32):
    stack, args, clip = _case(CASES[case], device, dtype)
    curves = train(stack, *args, clip=clip, engine=engine)
    return snapshot(stack, curves), curves.timing


@CUDA
@pytest.mark.parametrize("case", [c for c in CASES if not CASES[c].get("per_run")])
def test_cuda_graph_replay_agrees_with_eager_launches(case):
    """The captured step replays what eager launches compute (the same kernels: equal up to
    cuBLAS's choices under capture), and capture succeeds: stacked products with and without BN,
    clipping, the vmap path (the per-run path is the CPU's only)."""
    replayed, timing = _cuda_run(case, Engine(graphs=True))
    eager, _ = _cuda_run(case, EAGER)
    assert timing["engine"] == "replay", timing["engine"]
    for k, v in eager.items():
        assert torch.allclose(replayed[k], v, rtol=1e-5, atol=1e-6, equal_nan=True), k


@CUDA
@pytest.mark.parametrize("case", ["BN, momentum", "vanilla", "AGC, bias-free"])
def test_cuda_training_agrees_with_the_cpu(case):
    """Two epochs on CUDA (graphs) land where the CPU's do: every random number is drawn on the
    CPU (``seeding``), so the runs differ by rounding only; in float64 that stays far inside the
    training claims' margins (accuracies 0.05 apart, Thesis Figs. 6.4, C.5-C.8; Dan+20 Fig. 1)."""
    cuda, _ = _cuda_run(case, Engine(), "cuda", torch.float64)
    cpu, _ = _cuda_run(case, Engine(), "cpu", torch.float64)
    for k, v in cpu.items():
        assert torch.allclose(cuda[k], v, rtol=1e-6, atol=1e-8, equal_nan=True), k
    cuda32, _ = _cuda_run(case, Engine(), "cuda")
    cpu32, _ = _cuda_run(case, Engine(), "cpu")
    for k in ("curve train_loss", "curve test_loss"):
        assert torch.allclose(cuda32[k], cpu32[k], rtol=1e-3), k
    for k in ("curve train_accuracy", "curve test_accuracy"):
        assert (cuda32[k] - cpu32[k]).abs().max() <= 0.05, k


@CUDA
def test_cuda_resumed_training_agrees_with_one_pass(tmp_path, monkeypatch):
    """On CUDA with graphs, a training resumed from its second epoch's checkpoint (warm-up and
    capture again) ends where one pass does."""
    spec = CASES["BN, momentum"]
    stack, (d, lrs, _, bs, eid, runs, every, mom, probes), _ = _case(spec, "cuda")
    once = snapshot(stack, train(stack, d, lrs, 4, bs, eid, runs, every, mom, probes))
    plain = checkpoints.save

    with checkpoints.resumable(tmp_path):
        stack, *_ = _case(spec, "cuda")
        monkeypatch.setattr(checkpoints, "save", stop_after_saves(2))
        with pytest.raises(Stopped):
            train(stack, d, lrs, 4, bs, eid, runs, every, mom, probes)
        monkeypatch.setattr(checkpoints, "save", plain)
        stack, *_ = _case(spec, "cuda")
        resumed = snapshot(stack, train(stack, d, lrs, 4, bs, eid, runs, every, mom, probes))
    for k, v in once.items():
        assert torch.allclose(resumed[k], v, rtol=1e-5, atol=1e-6, equal_nan=True), k
