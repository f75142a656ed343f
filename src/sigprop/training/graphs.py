"""A fixed-shape step captured once as a CUDA graph and replayed (``torch.cuda.CUDAGraph``).

On a GPU a small network's SGD step is launch-bound: hundreds of tiny kernels, each launched from
Python. Replaying a captured graph launches them all in one call. A step qualifies when every
tensor it reads or writes keeps its address from call to call (parameters, buffers, momentum and
a static minibatch-index tensor updated in place) and it never waits for the host (no ``.item()``,
no branch on a tensor's value); ``train``'s step is written so (``training.loop``).

``CapturedStep(fn)``: the first ``warmup`` calls run ``fn`` eagerly on a side stream (the lazy
initializations of cuBLAS and autograd happen there, as ``torch.cuda.graphs`` requires), the next
one captures it (capture runs no kernel) and replays it, every later call replays. If capture
fails (an op that synchronizes, or one that cannot be captured), the failure is logged, the
caller's ``reset`` undoes what the aborted capture left (gradients allocated in the graph's pool),
and every call from then on runs ``fn`` eagerly: the same arithmetic, launched op by op.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import torch

__all__ = ["WARMUP", "CapturedStep"]

log = logging.getLogger(__name__)

WARMUP = 2
"""Eager calls before the capture (torch's examples warm up for a few iterations)."""


class CapturedStep:
    """``fn`` (no arguments, reading only tensors of fixed address) replayed from a CUDA graph.

    Attributes:
        mode: ``"warm-up"``, then ``"replay"``, or ``"eager (capture failed: ...)"``.
        eager_calls: calls that ran eagerly (the warm-up, the fallback).
    """

    def __init__(self, fn: Callable[[], None], reset: Callable[[], None], warmup: int = WARMUP):
        self.fn, self.reset, self.warmup = fn, reset, warmup
        self.graph: torch.cuda.CUDAGraph | None = None
        self.mode = "warm-up"
        self.eager_calls = 0

    def __call__(self) -> None:
        if self.graph is not None:
            self.graph.replay()
        elif self.mode != "warm-up":
            self.fn()
            self.eager_calls += 1
        elif self.eager_calls < self.warmup:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                self.fn()
            torch.cuda.current_stream().wait_stream(side)
            self.eager_calls += 1
        else:
            self._capture()

    def _capture(self) -> None:
        """Capture ``fn`` and replay it once; on failure run it eagerly and stay eager."""
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph, capture_error_mode="thread_local"):
                self.fn()
        except RuntimeError as error:  # CUDA's and torch's refusals; a timeout still propagates
            self.mode = f"eager (capture failed: {type(error).__name__}: {str(error)[:200]})"
            log.warning("CUDA graph capture failed, the step runs eagerly: %s", error)
            self.reset()
            self.fn()
            self.eager_calls += 1
            return
        self.graph, self.mode = graph, "replay"
        graph.replay()
