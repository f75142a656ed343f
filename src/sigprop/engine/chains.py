"""The chain engine: many independent random networks H_{l+1} = F(W_l, H_l) at once.

State: a tensor of shape (runs, d, n). Each layer draws one W_l per run from that run's own
stream (``seeding``), applies the step to all runs in one batched operation, and hands the new
state to observers that reduce it to a few numbers per run. Only recorded metrics are kept, so a
chain of 10^6 layers runs in memory independent of its depth. Long chains can be resumable
(checkpoints, ``simulate(resumable=True)``), and on CUDA the layers between two recorded ones
run as captured graphs of several layers each (``GRAPH_LAYERS``), the same kernels as one by one.

Steps covered (``Step``):
    Dan+20 Eq. (1):  H_{l+1} = BN(H_l + gamma W_l H_l), gamma = inf meaning BN(W_l H_l)
    DJB21 Eq. (1):   H_{l+1} = BN(W_l H_l) / sqrt(d)              (Thesis Eq. (2.1))
    vanilla:         H_{l+1} = phi(W_l H_l) or H_l + gamma W_l H_l (Dan+20 Eq. (6)), rescaled
                     by a positive scalar per run so nothing under- or overflows.
An activation phi, when given, follows the normalization: H_{l+1} = phi(norm(...)).

Products W_l H_l (``ExplicitProduct``, ``GaussianGramProduct``; ``ActivatedProduct`` wraps
either to give W_l F(c H_l), the activation-before-weights order of DJB21 App. F):
    explicit: draw W_l in R^{d x d} (Gaussian or uniform, Dan+20 Def. 1) and multiply.
    gram (fast path, Gaussian W only): given H, the rows of W H are i.i.d. N(0, H^T H), so
        W H has the law of G R with G in R^{d x n} i.i.d. N(0, 1) and R^T R = H^T H. This is exact
        in law for every step above, costs O(d n^2) instead of O(d^2 n), and is tested against
        the explicit product. Our derivation, not in the seeds; it is the rotation invariance of
        DJB21 Eq. (12), W_l H_l = (W_l U) diag(sigma) V^T with W_l U again i.i.d. Gaussian.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import logging
import math
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

import torch
from torch import Tensor

from ..base import checkpoints
from . import ops
from .seeding import generators

__all__ = [
    "WEIGHT_LAWS",
    "ActivatedProduct",
    "ExplicitProduct",
    "GaussianGramProduct",
    "Step",
    "Trace",
    "block_layers",
    "gram_sqrt",
    "progress",
    "record_layers",
    "simulate",
    "trajectory",
    "unit_variance_draws",
]

log = logging.getLogger(__name__)

WEIGHT_LAWS = ("gaussian", "uniform")
"""Dan+20 Def. 1 laws with the requested variance: N(0, v) and U[-sqrt(3v), sqrt(3v)]."""

_BLOCK_ELEMENTS = 2**20

CHECKPOINT_EVERY_S = 180.0
"""Seconds of chain work between two checkpoints of ``simulate`` inside
``base.checkpoints.resumable`` (the simulation rule's jobs): a killed job loses at most this."""


def unit_variance_draws(
    g: torch.Generator,
    size: tuple[int, ...],
    law: str,
    dtype: torch.dtype,
    device: str | torch.device = "cpu",
    draw_dtype: torch.dtype = torch.float32,
) -> Tensor:
    """I.i.d. unit-variance entries: N(0, 1) or U[-sqrt(3), sqrt(3)] (Dan+20 Def. 1, App. A).

    The raw draws (``torch.randn`` / ``torch.rand`` from ``g``) are made in ``draw_dtype`` and cast
    to ``dtype`` before the affine map of the uniform law.
    """
    if law == "gaussian":
        return torch.randn(size, generator=g, dtype=draw_dtype).to(device).to(dtype)
    if law == "uniform":
        u = torch.rand(size, generator=g, dtype=draw_dtype).to(device).to(dtype)
        return (u * 2.0 - 1.0) * math.sqrt(3.0)
    raise ValueError(f"weight law must be one of {WEIGHT_LAWS}, got {law!r}")


def block_layers(elements_per_layer: int) -> int:
    """Layers drawn per generator call: min(64, 2^20 // elements), at least 1.

    Part of the stream contract: it depends only on the matrix size, never on the number of
    runs or the device, so a run's draws are the same whether it is simulated alone or batched.
    """
    return max(1, min(64, _BLOCK_ELEMENTS // elements_per_layer))


class _BlockStream:
    """Per-run draws of shape ``shape`` per layer, refilled ``block_layers`` layers at a time.

    Stream contract: each run's generator fills blocks of ``block_layers`` layers with float32
    draws (``torch.randn`` or ``torch.rand``), cast to the chain's dtype and scaled. float32
    draws are about 4x faster than float64 on CPU, and float32 and float64 chains of the same
    address see the same draws (equal up to the dtype's rounding of the scaling), so precision
    can be compared draw for draw.
    """

    def __init__(self, experiment_id, runs, shape, law, variance, dtype, device, stream):
        if law not in WEIGHT_LAWS:
            raise ValueError(f"weight law must be one of {WEIGHT_LAWS}, got {law!r}")
        if variance <= 0:
            raise ValueError(f"weight variance must be > 0, got {variance}")
        self.runs = list(runs)
        self.shape = tuple(shape)
        self.law, self.std = law, math.sqrt(variance)
        self.dtype, self.device = dtype, torch.device(device)
        self.block = block_layers(math.prod(self.shape))
        ids = [experiment_id] if isinstance(experiment_id, str) else list(experiment_id)
        self._gens = [g for eid in ids for g in generators(eid, self.runs, stream)]
        self._buffer: Tensor | None = None
        self._block_start: list[Tensor] = []
        self._next = self.block

    def _draw(self, g: torch.Generator, out: Tensor) -> None:
        size = (self.block, *self.shape)
        if self.law == "gaussian":  # copy_ casts exactly, as .to(dtype) would, without a temporary
            out.copy_(torch.randn(size, generator=g, dtype=torch.float32).to(self.device))
        else:
            out.copy_(unit_variance_draws(g, size, self.law, self.dtype, self.device))
        if self.std != 1.0:  # x * 1.0 is x: skipping it leaves every byte as it was
            out.mul_(self.std)

    def _refill(self) -> None:
        """Draw the next block of every run, keeping the generators' states before it."""
        if self._buffer is None:
            self._buffer = torch.empty(
                len(self._gens), self.block, *self.shape, dtype=self.dtype, device=self.device
            )
        self._block_start = [g.get_state() for g in self._gens]
        for i, g in enumerate(self._gens):
            self._draw(g, self._buffer[i])
        self._next = 0

    def next(self) -> Tensor:
        """The next layer's draws for all runs, shape (runs, *shape).

        A view into the block buffer: valid until the next call, which may refill it in place.
        """
        if self._next == self.block:
            self._refill()
        out = self._buffer[:, self._next]
        self._next += 1
        return out

    def state_dict(self) -> dict:
        """Where the streams stand: the generators' states at the start of the current block
        and the next layer's place in it (a block is redrawn on load, not stored)."""
        inside = self._next < self.block
        states = self._block_start if inside else [g.get_state() for g in self._gens]
        return {"generators": [s.clone() for s in states], "next": self._next}

    def load_state_dict(self, state: Mapping) -> None:
        """Continue the streams from ``state_dict()``: the same draws as never interrupted."""
        if len(state["generators"]) != len(self._gens):
            raise ValueError(
                f"state holds {len(state['generators'])} streams, not {len(self._gens)}"
            )
        for g, s in zip(self._gens, state["generators"], strict=True):
            g.set_state(s)
        self._next = self.block
        if state["next"] < self.block:
            self._refill()
            self._next = int(state["next"])


class _StreamedProduct:
    """A product H -> X_l H whose X_l come from one ``_BlockStream``, checkpointable."""

    _stream: _BlockStream

    def state_dict(self) -> dict:
        """The streams' place (``simulate``'s checkpoints)."""
        return self._stream.state_dict()

    def load_state_dict(self, state: Mapping) -> None:
        self._stream.load_state_dict(state)


class ExplicitProduct(_StreamedProduct):
    """W_l H with W_l in R^{d x d} drawn i.i.d. per run from stream ``"weights"``, Dan+20 Def. 1.

    Args:
        experiment_id, runs: address of the random streams (``seeding``). A sequence of ids
            stacks several chains in the run dimension, id-major: (id_0, run_0), (id_0, run_1),
            ..., (id_1, run_0), ...; each draws exactly what it would draw alone.
        d: width. law: ``"gaussian"`` or ``"uniform"``. variance: of each entry of W.
    """

    def __init__(
        self,
        experiment_id: str | Sequence[str],
        runs: Sequence[int],
        d: int,
        law: str = "gaussian",
        variance: float = 1.0,
        dtype: torch.dtype = torch.float64,
        device: str | torch.device = "cpu",
    ):
        self._stream = _BlockStream(
            experiment_id, runs, (d, d), law, variance, dtype, device, "weights"
        )

    def next_weights(self) -> Tensor:
        """Draw the next layer's W_l for all runs, shape (runs, d, d); valid until the next draw."""
        return self._stream.next()

    def __call__(self, h: Tensor) -> Tensor:
        return self.next_weights() @ h


def gram_sqrt(h: Tensor) -> Tensor:
    """R in R^{n x n} with R^T R = H^T H (symmetric square root via eigh), batched.

    Any matrix with the Gram of H has the same singular values, V(H), cosines and r(H).
    """
    lam, u = torch.linalg.eigh(h.mT @ h)
    return lam.clamp_min(0.0).sqrt()[..., :, None] * u.mT


class GaussianGramProduct(_StreamedProduct):
    """Fast path for Gaussian W: W_l H sampled as G_l R(H), exact in law (module docstring).

    G_l in R^{d x n} is drawn per run from stream ``"gram"`` (a different stream from the
    explicit product, so the two paths agree in law, not draw for draw).
    """

    def __init__(
        self,
        experiment_id: str,
        runs: Sequence[int],
        d: int,
        n: int,
        variance: float = 1.0,
        dtype: torch.dtype = torch.float64,
        device: str | torch.device = "cpu",
    ):
        self._stream = _BlockStream(
            experiment_id, runs, (d, n), "gaussian", variance, dtype, device, "gram"
        )

    def next_draws(self) -> Tensor:
        """Draw the next layer's G_l for all runs, shape (runs, d, n); valid until the next draw."""
        return self._stream.next()

    def __call__(self, h: Tensor) -> Tensor:
        return self.next_draws() @ gram_sqrt(h)


class ActivatedProduct:
    """W_l F(c H) from a product H -> W_l H: activation first, for DJB21 App. F (before Eq. (19)).

    The non-linear chain Q_{l+1} = BN(W_l F(Q_l)) of the App. F code normalizes rows to unit
    norm, so Q_l = sqrt(d) H_l with H_l the output of ``ops.bn_rms_scaled``; with
    ``scale = sqrt(d)``, ``Step("bn_rms_scaled")`` and this product run that chain in the scale of
    H (M = Q^T Q / d = H^T H). The scale matters: F sees entries of size O(1 / sqrt(n)). With
    ``GaussianGramProduct`` it stays exact in law: the rows of W F(Q) are N(0, F(Q)^T F(Q))
    (our derivation, as for the linear chain; see the module docstring).

    Args:
        product: ``ExplicitProduct`` or ``GaussianGramProduct`` (any H -> W_l H).
        activation: a name in ``ops.ACTIVATIONS``.
        scale: c, the factor applied to H before the activation.
    """

    def __init__(self, product: Callable[[Tensor], Tensor], activation: str, scale: float = 1.0):
        if not scale > 0:
            raise ValueError(f"scale must be > 0, got {scale}")
        self.product, self.scale = product, float(scale)
        self._f = ops.activation(activation)

    def __call__(self, h: Tensor) -> Tensor:
        return self.product(self._f(self.scale * h))

    def state_dict(self) -> dict:
        """The wrapped product's state (stateless products have none: no checkpoints)."""
        return self.product.state_dict()

    def load_state_dict(self, state: Mapping) -> None:
        self.product.load_state_dict(state)


@dataclass(frozen=True)
class Step:
    """One layer H -> phi(norm(H + gamma W H)); gamma = inf means phi(norm(W H)).

    Attributes:
        normalization: a name in ``ops.NORMALIZATIONS`` or ``"none"`` (vanilla: rescale each run
            by a positive scalar to unit mean square, which leaves every scale-invariant metric
            unchanged; allowed only with positively homogeneous activations; an all-zero
            state, a dead ReLU net, stays zero).
        activation: a name in ``ops.ACTIVATIONS``.
        gamma: residual strength, Dan+20 Eq. (1); ``math.inf`` for no skip connection. A tuple
            of k values runs k chains at once: the run dimension is k equal groups, group i with
            gamma[i] (the layout of ``ExplicitProduct`` with k experiment ids); each group's
            arithmetic is exactly that of a step with its float gamma.
    """

    normalization: str = "bn_rms"
    activation: str = "linear"
    gamma: float | tuple[float, ...] = math.inf
    _norm: Callable | None = field(default=None, init=False, repr=False, compare=False)
    _act: Callable | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_act", ops.activation(self.activation))
        if self.normalization != "none":
            object.__setattr__(self, "_norm", ops.normalization(self.normalization))
        elif self.activation not in ("linear", "relu"):
            raise ValueError(
                "an unnormalized (vanilla) chain is rescaled each layer, which is exact only for "
                f"positively homogeneous activations (linear, relu), got {self.activation!r}"
            )
        gammas = self.gamma if isinstance(self.gamma, tuple) else (self.gamma,)
        if not gammas or not all(g > 0 for g in gammas):
            raise ValueError(f"gamma must be > 0 (math.inf for no skip), got {self.gamma}")

    def _residual(self, h: Tensor, wh: Tensor) -> Tensor:
        """h + gamma wh per group of runs (wh where gamma = inf), elementwise as for a float.

        Group by group on slices of the run dimension: gamma wh then + h, the two roundings of
        ``h + gamma * wh`` with a float gamma, and a copy of wh for gamma = inf.
        """
        k = len(self.gamma)
        if h.shape[0] % k:
            raise ValueError(f"{h.shape[0]} runs do not split into {k} gamma groups")
        size = h.shape[0] // k
        pre = torch.empty_like(wh)
        for i, gamma in enumerate(self.gamma):
            part, out = slice(i * size, (i + 1) * size), pre[i * size : (i + 1) * size]
            if math.isinf(gamma):
                out.copy_(wh[part])
            else:
                torch.mul(wh[part], gamma, out=out).add_(h[part])
        return pre

    def __call__(self, h: Tensor, product: Callable[[Tensor], Tensor]) -> Tensor:
        wh = product(h)
        if isinstance(self.gamma, tuple):
            pre = self._residual(h, wh)
        else:
            pre = wh if math.isinf(self.gamma) else h + self.gamma * wh
        if self._norm is not None:
            return self._act(self._norm(pre))
        out = self._act(pre)
        mean_square = out.square().mean(dim=(-2, -1), keepdim=True)
        # a dead ReLU net (all zeros) stays zero: rank 0, not NaN
        return out * torch.where(mean_square > 0, mean_square.rsqrt(), 1.0)


def record_layers(
    depth: int, burn_in: int = 0, stride: int = 1, include_input: bool = False
) -> list[int]:
    """Layers at which observers run: burn_in, burn_in + stride, ... <= depth (0 = the input).

    Raises:
        ValueError: naming the argument, for depth < 1, burn_in < 0 or > depth, stride < 1.
    """
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    if not 0 <= burn_in <= depth:
        raise ValueError(f"burn_in must be in [0, depth={depth}], got {burn_in}")
    if stride < 1:
        raise ValueError(f"stride must be >= 1, got {stride}")
    start = burn_in if burn_in > 0 or include_input else stride
    layers = list(range(start, depth + 1, stride))
    if include_input and 0 not in layers:
        layers.insert(0, 0)
    return layers


@dataclass
class Trace:
    """Recorded metrics of a simulated chain.

    Attributes:
        layers: recorded layer indices, shape (L,); 0 is the input H_0.
        runs: run indices, length R.
        values: metric name -> tensor of shape (R, L) on the CPU.
    """

    layers: Tensor
    runs: list[int]
    values: dict[str, Tensor]


def progress(
    total: int, desc: str, every_s: float = 30.0, unit: str = "layers", start: int = 0
) -> Iterator[int]:
    """range(start, total) with a progress bar on a terminal, else a log line every 10% or
    ``every_s`` (``start`` > 0: resumed work)."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        yield from tqdm(range(start, total), desc=desc, mininterval=1.0, initial=start, total=total)
        return
    began = last = time.monotonic()
    tenth = max(1, total // 10)
    for i in range(start, total):
        yield i
        now = time.monotonic()
        if (i + 1) % tenth == 0 or now - last >= every_s:
            last = now
            eta = (now - began) / (i + 1 - start) * (total - i - 1)
            log.info(
                "%s: %d/%d %s, %.1fs elapsed, eta %.1fs",
                desc, i + 1, total, unit, now - began, eta,
            )  # fmt: skip


def _describe(fn: Callable) -> str:
    """A name of an observer that is the same in every process (no object addresses)."""
    if isinstance(fn, partial):
        return f"{_describe(fn.func)}{fn.args!r}{sorted(fn.keywords.items())!r}"
    name = getattr(fn, "__qualname__", type(fn).__qualname__)
    return f"{getattr(fn, '__module__', type(fn).__module__)}.{name}"


def _digest(tensors: Iterable[Tensor]) -> str:
    """sha256 of the tensors' bytes (shapes and dtypes are in the identity beside it)."""
    digest = hashlib.sha256()
    for t in tensors:
        digest.update(t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy())
    return digest.hexdigest()


class _ChainCheckpoint:
    """``simulate``'s state saved through ``base.checkpoints`` every ``every_s`` seconds.

    The state is everything the rest of the chain depends on: H_l, the values recorded so far,
    the layer index and the product's random streams (``state_dict``). The file is named by a
    hash of the chain's identity (input bytes, streams' starting states, step, observers, depth,
    recorded layers, runs), so only the very same chain resumes from it: two calls with one
    identity are one computation. Inactive unless ``active``, and outside ``resumable``; the
    product needs ``state_dict`` and ``load_state_dict``, and so does an observer with state of
    its own (its state is saved beside the chain's). A chain that saved once saves its last
    state too, so a job of several chains skips the finished ones when rerun.
    """

    def __init__(self, h0, step, product, depth, layers, runs, observers, every_s, active):
        self.path = None
        if not active or checkpoints.path_for("chain") is None:
            return
        start = product.state_dict()
        self.identity = {
            "input": [list(h0.shape), str(h0.dtype), _digest([h0])],
            "streams": _digest(start["generators"]) + f"/{start['next']}",
            "product": type(product).__qualname__,
            "step": repr(step),
            "observers": {name: _describe(fn) for name, fn in sorted(observers.items())},
            "depth": int(depth),
            "layers": [int(x) for x in layers],
            "runs": [int(r) for r in runs],
        }
        text = json.dumps(self.identity, sort_keys=True).encode()
        self.path = checkpoints.path_for(f"chain-{hashlib.sha256(text).hexdigest()[:20]}")
        self.stateful = {k: fn for k, fn in observers.items() if hasattr(fn, "state_dict")}
        self.every_s, self.last, self.saved = every_s, time.monotonic(), None

    def resume(self, product) -> dict | None:
        """The saved state of this chain with its streams restored, or None (start afresh)."""
        state = None if self.path is None else checkpoints.load(self.path, self.identity)
        if state is not None:
            product.load_state_dict(state["product"])
            for name, fn in self.stateful.items():
                fn.load_state_dict(state["observers"][name])
            self.saved = state["epoch"]
        return state

    def maybe_save(
        self, layer: int, h: Tensor, values: Mapping[str, Tensor], product, last: bool
    ) -> None:
        """Save after ``layer`` if ``every_s`` seconds passed since the last save (or start), or
        at the ``last`` layer of a chain that has a checkpoint (a rerun then skips it whole)."""
        if self.path is None:
            return
        due = time.monotonic() - self.last >= self.every_s
        if not (due or (last and self.saved is not None and self.saved < layer)):
            return
        state = {
            "identity": self.identity,
            "epoch": layer,
            "h": h.cpu(),
            "values": {k: v.cpu() for k, v in values.items()},
            "product": product.state_dict(),
            "observers": {name: fn.state_dict() for name, fn in self.stateful.items()},
        }
        checkpoints.save(self.path, state)
        self.last, self.saved = time.monotonic(), layer


GRAPH_LAYERS = True
"""On CUDA, ``simulate`` runs the layers of an ``ExplicitProduct`` chain between two recorded
layers, within one block of draws, as one captured CUDA graph (``_LayerGraphs``)."""

MAX_GRAPHS = 64
"""Captured spans kept per chain (each holds its own memory); further spans run eagerly."""


def _cuda_graph(layers: Callable[[], Tensor]) -> Callable[[], Tensor]:
    """``layers`` captured once as a CUDA graph (after a warm-up on a side stream, which sets
    up cuBLAS outside the capture); the returned call replays it and gives its static output."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        layers()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = layers()

    def replay() -> Tensor:
        graph.replay()
        return out

    return replay


class _LayerGraphs:
    """k layers of ``step`` in one launch: the layers on the draws ``buffer[:, j .. j+k-1]`` of
    an ``ExplicitProduct``'s block, captured once per (j, k) by ``capture`` (``_cuda_graph``).

    A captured layer is the eager one kernel for kernel: W_l H is ``buffer[:, j] @ H`` as in
    ``ExplicitProduct``, and the block buffer is refilled in place between blocks, outside the
    graphs, so the stream contract (CPU generators) is unchanged. Only the launches go: about ten
    per layer (product, residual, BN) become one per span. ``span`` never crosses a recorded
    layer or a block end, so observers and checkpoints see the same states as layer by layer.
    """

    def __init__(self, step, product, h, layers, capture=_cuda_graph):
        self.step, self.stream, self.capture = step, product._stream, capture
        self.records = list(layers)
        self.static_in = torch.empty_like(h)
        self.graphs: dict[tuple[int, int], Callable[[], Tensor]] = {}

    def span(self, done: int, depth: int) -> int:
        """Layers the next launch advances after ``done`` layers (to a record or block end)."""
        position = 0 if self.stream._next == self.stream.block else self.stream._next
        k = min(self.stream.block - position, depth - done)
        after = bisect.bisect_right(self.records, done)
        return min(k, self.records[after] - done) if after < len(self.records) else k

    def _layers(self, j: int, k: int) -> Tensor:
        h = self.static_in
        for t in range(k):
            h = self.step(h, partial(torch.matmul, self.stream._buffer[:, j + t]))
        return h

    def advance(self, h: Tensor, k: int) -> Tensor:
        """H after k more layers (``span``); the stream moves on k layers."""
        if self.stream._next == self.stream.block:
            self.stream._refill()
        j = self.stream._next
        if (j, k) not in self.graphs and len(self.graphs) < MAX_GRAPHS:
            self.graphs[(j, k)] = self.capture(partial(self._layers, j, k))
        self.static_in.copy_(h)
        out = self.graphs[(j, k)]() if (j, k) in self.graphs else self._layers(j, k)
        self.stream._next += k
        return out


def _layer_graphs(step, product, h: Tensor, layers: Sequence[int]) -> _LayerGraphs | None:
    """``_LayerGraphs`` for an ``ExplicitProduct`` chain on CUDA, else None (layer by layer)."""
    if GRAPH_LAYERS and h.device.type == "cuda" and isinstance(product, ExplicitProduct):
        return _LayerGraphs(step, product, h, layers)
    return None


def _advance(h, start, depth, step, product, layers, observe, save, desc) -> None:
    """Layers start+1 .. depth of ``simulate``: one at a time, or spans of them on CUDA."""
    graphs = _layer_graphs(step, product, h, layers)
    ticks, i = progress(depth, desc, start=start), start
    while i < depth:
        k = 1 if graphs is None else graphs.span(i, depth)
        h = step(h, product) if k == 1 else graphs.advance(h, k)
        for _ in range(k):
            next(ticks)
        i += k
        observe(h, i)
        save(i, h, last=i == depth)
    next(ticks, None)  # the progress line of the last layer


@torch.no_grad()
def simulate(
    h0: Tensor,
    step: Step,
    product: Callable[[Tensor], Tensor],
    depth: int,
    observers: Mapping[str, Callable[[Tensor], Tensor]],
    layers: Sequence[int] | None = None,
    runs: Sequence[int] | None = None,
    desc: str = "chain",
    resumable: bool = False,
    checkpoint_every_s: float | None = None,
) -> Trace:
    """Run ``depth`` layers of ``step`` on all runs at once, recording ``observers`` at ``layers``.

    With ``resumable``, inside ``base.checkpoints.resumable`` (the simulation rule's jobs),
    the chain saves its state every ``checkpoint_every_s`` seconds and a rerun resumes from it,
    ending in the same bytes as an uninterrupted run (``_ChainCheckpoint``).

    Args:
        h0: input batch, shape (R, d, n), or (d, n) shared by all runs (then ``runs`` is needed).
        step: the layer map, e.g. ``Step("bn_rms", "relu")``.
        product: draws W_l and returns W_l H (``ExplicitProduct`` or ``GaussianGramProduct``)
            for the same runs.
        depth: number of layers, >= 1.
        observers: name -> f(h) with h of shape (R, d, n), returning shape (R,), or a mapping
            of names to shape-(R,) tensors (several metrics from one decomposition); the
            mapping's names are used as they are.
        layers: layer indices to record (default: every layer 1..depth); 0 records the input.
        runs: run indices (default ``range(R)``), stored in the trace.
        desc: label for progress lines.
        resumable: checkpoint the chain; only for observers without state of their own, or
            whose state travels through ``state_dict``/``load_state_dict`` (one that keeps
            other state across layers would miss the layers before a resume).
        checkpoint_every_s: seconds of work between checkpoints (None: ``CHECKPOINT_EVERY_S``).
    Returns:
        ``Trace`` with values of shape (R, len(layers)), in h0's dtype, on the CPU.
    """
    layers = record_layers(depth) if layers is None else sorted(set(layers))
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    if layers and not 0 <= layers[0] <= layers[-1] <= depth:
        raise ValueError(f"recorded layers must lie in [0, {depth}], got {layers[0]}..{layers[-1]}")
    if h0.dim() == 2:
        if runs is None:
            raise ValueError("a shared (d, n) input needs the list of runs")
        h0 = h0.expand(len(runs), *h0.shape)
    runs = list(range(h0.shape[0])) if runs is None else list(runs)
    if len(runs) != h0.shape[0]:
        raise ValueError(f"h0 has {h0.shape[0]} runs but {len(runs)} run indices were given")
    values: dict[str, Tensor] = {}
    slot = {layer: i for i, layer in enumerate(layers)}

    def store_value(name: str, value: Tensor, layer: int) -> None:
        if name not in values:
            values[name] = torch.empty(len(runs), len(layers), dtype=h0.dtype, device=h0.device)
        values[name][:, slot[layer]] = value

    def observe(h: Tensor, layer: int) -> None:
        if layer in slot:
            for name, fn in observers.items():
                out = fn(h)
                if isinstance(out, Mapping):
                    for key, value in out.items():
                        store_value(key, value, layer)
                else:
                    store_value(name, out, layer)

    every_s = CHECKPOINT_EVERY_S if checkpoint_every_s is None else checkpoint_every_s
    saver = _ChainCheckpoint(h0, step, product, depth, layers, runs, observers, every_s, resumable)
    state = saver.resume(product)
    if state is None:
        h, start = h0.clone(), 0
        observe(h, 0)
    else:
        h, start = state["h"].to(h0.device), state["epoch"]
        values.update({k: v.to(h0.device) for k, v in state["values"].items()})
    save = partial(saver.maybe_save, values=values, product=product)
    _advance(h, start, depth, step, product, layers, observe, save, desc)
    return Trace(torch.tensor(layers), runs, {k: v.cpu() for k, v in values.items()})


def trajectory(
    h0: Tensor,
    step: Step,
    product: Callable[[Tensor], Tensor],
    depth: int,
    metric: Callable[[Tensor], Tensor],
    runs: Sequence[int],
    include_input: bool = True,
    desc: str = "chain",
) -> Tensor:
    """One metric at every layer (0..depth with the input, else 1..depth): shape (R, layers).

    A shorthand for ``simulate`` with a single observer and no thinning, for short chains.
    """
    layers = range(0 if include_input else 1, depth + 1)
    trace = simulate(h0, step, product, depth, {"m": metric}, layers, runs, desc)
    return trace.values["m"]
