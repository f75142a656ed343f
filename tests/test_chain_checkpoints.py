"""Resumable chains (chains.simulate inside base.checkpoints.resumable): a chain interrupted
mid-run, or a bn_chain job killed mid-run, and rerun ends in the same bytes as one never
interrupted."""

import math
from functools import partial
from pathlib import Path

import pytest
import torch
from interruptions import kill_child_when
from item_setups import quick_setup

from sigprop.base import checkpoints
from sigprop.engine import chains, metrics

ROOT = Path(__file__).resolve().parents[1]
DEPTH = 150
LAYERS = list(range(0, DEPTH + 1, 7))


class Interrupted(Exception):
    pass


class _Failing:
    """A product that raises at its ``fail_at``-th call, as a killed job stops mid-chain."""

    def __init__(self, product, fail_at=None):
        self.product, self.fail_at, self.calls = product, fail_at, 0

    def __call__(self, h):
        self.calls += 1
        if self.calls == self.fail_at:
            raise Interrupted
        return self.product(h)

    def state_dict(self):
        return self.product.state_dict()

    def load_state_dict(self, state):
        self.product.load_state_dict(state)


def _product(kind):
    if kind == "explicit":  # d = 8: blocks of 64 layers, so layer 100 is inside a block
        return chains.ExplicitProduct(["x.a", "x.b"], [0, 1], 8, "uniform", 2.0)
    return chains.GaussianGramProduct("x.gram", [0, 1, 2, 3], 8, 8)


def _chain_of(product, every_s=0.0):
    """The test chain (resumable, a checkpoint after every layer or span by default)."""
    h0 = torch.randn(4, 8, 8, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    step = chains.Step("bn_rms", gamma=(0.5, math.inf))
    observers = {"stats": partial(metrics.spectral_statistics, taus=[0.5])}
    return chains.simulate(
        h0, step, product, DEPTH, observers, LAYERS, resumable=True, checkpoint_every_s=every_s
    )


def _chain(kind, fail_at=None, every_s=0.0):
    product = _Failing(_product(kind), fail_at)
    return _chain_of(product, every_s), product.calls


def _bytes(t):
    return t.contiguous().reshape(-1).view(torch.uint8)


def _equal(a, b):
    """Byte for byte (NaN included)."""
    return a.keys() == b.keys() and all(torch.equal(_bytes(a[k]), _bytes(b[k])) for k in a)


@pytest.mark.parametrize("kind", ["explicit", "gram"])
def test_an_interrupted_chain_resumes_to_the_same_bytes(tmp_path, kind):
    uninterrupted, _ = _chain(kind)
    with checkpoints.resumable(tmp_path):
        with pytest.raises(Interrupted):
            _chain(kind, fail_at=101)
        (saved,) = tmp_path.glob("chain-*.pt")
        assert torch.load(saved, weights_only=True)["epoch"] == 100
        resumed, calls = _chain(kind)
    assert calls == DEPTH - 100  # it went on from layer 100, not from the start
    assert _equal(resumed.values, uninterrupted.values)


def test_a_finished_chain_is_not_run_again(tmp_path):
    with checkpoints.resumable(tmp_path):
        first, _ = _chain("explicit")
        again, calls = _chain("explicit")
    assert calls == 0 and _equal(first.values, again.values)


def test_a_chain_with_a_checkpoint_saves_its_end(tmp_path):
    """Once a chain has saved, its end is saved too, however soon: a rerun skips it whole."""
    with checkpoints.resumable(tmp_path):
        with pytest.raises(Interrupted):
            _chain("explicit", fail_at=101)
        resumed, calls = _chain("explicit", every_s=1e9)
        (saved,) = tmp_path.glob("chain-*.pt")
        assert calls == DEPTH - 100 and torch.load(saved, weights_only=True)["epoch"] == DEPTH
        again, calls = _chain("explicit", every_s=1e9)
    assert calls == 0 and _equal(resumed.values, again.values)


def test_another_chain_ignores_the_checkpoint(tmp_path):
    """Another input is another identity, hence another file: nothing is resumed across chains."""
    with checkpoints.resumable(tmp_path):
        _chain("explicit")
        product = _Failing(_product("explicit"))
        h0 = torch.ones(4, 8, 8, dtype=torch.float64)
        observers = {"r": metrics.numerical_rank}
        chains.simulate(h0, chains.Step(), product, DEPTH, observers, LAYERS, resumable=True,
                        checkpoint_every_s=0.0)  # fmt: skip
    assert product.calls == DEPTH and len(list(tmp_path.glob("chain-*.pt"))) == 2


def test_outside_resumable_a_chain_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _chain("explicit")
    assert list(tmp_path.iterdir()) == []


def test_a_chain_not_declared_resumable_writes_nothing(tmp_path):
    """Observers with state of their own (orthogonality's A1Monitor) must not be resumed."""
    h0 = torch.ones(4, 8, 8, dtype=torch.float64)
    with checkpoints.resumable(tmp_path):
        chains.simulate(h0, chains.Step(), _product("explicit"), 20, {"r": metrics.numerical_rank},
                        checkpoint_every_s=0.0)  # fmt: skip
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("law", ["gaussian", "uniform"])
def test_stream_state_mid_block_gives_the_same_next_draws(law):
    first = chains.ExplicitProduct("x.s", [0, 1], 8, law)
    for _ in range(70):  # past one block of 64 layers
        first.next_weights()
    second = chains.ExplicitProduct("x.s", [0, 1], 8, law)
    second.load_state_dict(first.state_dict())
    for _ in range(100):
        assert torch.equal(first.next_weights(), second.next_weights())


CHILD = """
import math, sys, time
import torch
from sigprop.engine import chains
from sigprop.papers.rank_collapse.chain_simulations import bn_chain
from sigprop.base import checkpoints

torch.set_num_threads(1)
chains.CHECKPOINT_EVERY_S = 0.0
plain_save = checkpoints.save


def slow_save(path, state):  # in the second chain: time for the parent to kill the job
    plain_save(path, state)
    if len(list(path.parent.glob("chain-*.pt"))) == 2:
        time.sleep(0.5)


checkpoints.save = slow_save
with checkpoints.resumable(sys.argv[1]):
    bn_chain(
        [8, 16], [0.1, math.inf], 400, 100, 10, 2, [0.5], "gaussian", "float64", "cpu",
        experiment_id="rank_collapse.bn_chain",
    )
"""


def _bn_chain():
    from sigprop.papers.rank_collapse.chain_simulations import bn_chain

    return bn_chain(
        [8, 16],
        [0.1, math.inf],
        400,
        100,
        10,
        2,
        [0.5],
        "gaussian",
        "float64",
        "cpu",
        experiment_id="rank_collapse.bn_chain",
    )


def test_a_killed_bn_chain_job_resumes_to_the_same_bytes(tmp_path, monkeypatch):
    uninterrupted = _bn_chain()
    directory = tmp_path / "checkpoints"
    # inside the second width's chain
    kill_child_when(CHILD, [str(directory)], lambda: len(list(directory.glob("chain-*.pt"))) == 2)
    monkeypatch.setattr(chains, "CHECKPOINT_EVERY_S", 0.0)
    with checkpoints.resumable(directory):
        resumed = _bn_chain()
    assert _equal(resumed.values, uninterrupted.values)


def test_an_interrupted_a1_grid_skips_its_finished_pixels(tmp_path, monkeypatch):
    from sigprop.papers.orthogonality import assumption_simulations as a1

    def grid():
        return a1.a1_grid(
            [4, 12],
            [8, 12, 48],
            0.1,
            60,
            3,
            "float64",
            True,
            device="cpu",
            experiment_id="orthogonality.a1_grid",
        )

    uninterrupted = grid()
    plain, calls = a1._pixel, []

    def pixel(*args, fail_at=None):
        calls.append(args[:2])
        if len(calls) == fail_at:
            raise Interrupted
        return plain(*args)

    monkeypatch.setattr(chains, "CHECKPOINT_EVERY_S", 0.0)
    with checkpoints.resumable(tmp_path):
        monkeypatch.setattr(a1, "_pixel", partial(pixel, fail_at=3))
        with pytest.raises(Interrupted):
            grid()
        calls.clear()
        monkeypatch.setattr(a1, "_pixel", pixel)
        resumed = grid()
    assert calls == [(4, 48), (12, 12), (12, 48)]  # 5 valid pixels, 2 done before it stopped
    assert _equal(resumed.values, uninterrupted.values)


def _eager_spans(monkeypatch, spans, fail_after=None):
    """Run ``_LayerGraphs`` on the CPU with an eager 'capture': the spans' bookkeeping (block
    positions, records, checkpoints) is then checked against the layer-by-layer loop."""

    def graphs(step, product, h, layers):
        if not isinstance(product, chains.ExplicitProduct):
            return None
        made = chains._LayerGraphs(step, product, h, layers, capture=lambda fn: fn)
        span = made.span

        def counted(done, depth):
            if fail_after is not None and done >= fail_after:
                raise Interrupted
            spans.append(span(done, depth))
            return spans[-1]

        made.span = counted
        return made

    monkeypatch.setattr(chains, "_layer_graphs", graphs)


def _plain(product):  # the same product, seen as no ExplicitProduct: layer by layer
    return _Failing(product)


@pytest.mark.parametrize("d, every", [(8, 7), (64, 100)])  # blocks of 64 and of 256 layers
def test_spans_of_layers_equal_the_layer_by_layer_chain(monkeypatch, d, every):
    def run(wrap):
        product = chains.ExplicitProduct(["x.a", "x.b"], [0, 1], d, "gaussian")
        h0 = torch.randn(4, d, d, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
        observers = {"stats": partial(metrics.spectral_statistics, taus=[0.5])}
        step, layers = chains.Step("bn_rms", gamma=(0.1, math.inf)), range(30, 301, every)
        return chains.simulate(h0, step, wrap(product), 300, observers, layers).values

    plain, spans = run(_plain), []
    _eager_spans(monkeypatch, spans)
    spanned = run(lambda product: product)
    assert _equal(spanned, plain) and sum(spans) == 300 and max(spans) > 1


def test_spans_of_layers_resume_to_the_same_bytes(tmp_path, monkeypatch):
    uninterrupted, _ = _chain("explicit")
    with checkpoints.resumable(tmp_path):
        _eager_spans(monkeypatch, [], fail_after=100)
        with pytest.raises(Interrupted):
            _chain_of(_product("explicit"))
        (saved,) = tmp_path.glob("chain-*.pt")
        epoch = torch.load(saved, weights_only=True)["epoch"]
        spans = []
        _eager_spans(monkeypatch, spans)
        resumed = _chain_of(_product("explicit"))
    assert 50 < epoch < DEPTH and sum(spans) == DEPTH - epoch and max(spans) > 1
    assert _equal(resumed.values, uninterrupted.values)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
def test_cuda_graph_spans_equal_the_eager_cuda_chain(monkeypatch):
    def run():
        product = chains.ExplicitProduct(["x.a", "x.b"], [0, 1], 32, "gaussian", device="cuda")
        h0 = torch.randn(4, 32, 32, generator=torch.Generator().manual_seed(0)).double().cuda()
        observers = {"stats": partial(metrics.spectral_statistics, taus=[0.5])}
        step = chains.Step("bn_rms", gamma=(0.1, math.inf))
        return chains.simulate(h0, step, product, 500, observers, range(100, 501, 30)).values

    graphed = run()
    monkeypatch.setattr(chains, "GRAPH_LAYERS", False)
    assert _equal(graphed, run())


@pytest.mark.parametrize("fail_at", [40, 130])
def test_a_measure_with_stateful_observers_resumes_to_the_same_table(
    tmp_path, monkeypatch, fail_at
):
    """Dan+20 Lemma 4's measure (20 CPU-minutes at paper scale) checkpoints its chains with the
    state of its accumulating observers (``_LayerMean``, ``_Buffered``: ``state_dict``); a job
    stopped inside its first or second chain ends in the table of an uninterrupted one."""
    from sigprop.papers.rank_collapse.bn_chain_lemmas import measure_lemma4

    settings = dict(width=6, batch_size=6, depth=60, burn_in=10, n_runs=3, gammas=(0.5,),
                    identity_layers=5, device="cpu")  # fmt: skip
    uninterrupted = measure_lemma4(**quick_setup("rank_collapse", "lemma4", **settings))
    monkeypatch.setattr(chains, "CHECKPOINT_EVERY_S", 0.0)
    call = chains.ExplicitProduct.__call__
    calls = [0]

    def stopping(self, h):
        calls[0] += 1
        if calls[0] == fail_at:
            raise Interrupted
        return call(self, h)

    with checkpoints.resumable(tmp_path):
        monkeypatch.setattr(chains.ExplicitProduct, "__call__", stopping)
        with pytest.raises(Interrupted):
            measure_lemma4(**quick_setup("rank_collapse", "lemma4", **settings))
        monkeypatch.setattr(chains.ExplicitProduct, "__call__", call)
        resumed = measure_lemma4(**quick_setup("rank_collapse", "lemma4", **settings))
    assert list(tmp_path.glob("chain-*.pt"))
    assert resumed.equals(uninterrupted)
