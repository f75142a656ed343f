"""SGD over many runs at once: the runs' networks stacked into one batched network.

``torch.func.stack_module_state`` stacks the parameters and buffers (BN running statistics) of
R networks of one architecture, and ``vmap(functional_call)`` runs them side by side, each on
its own minibatch: the outputs equal those of the R networks run one by one (tested). An MLP's
forward runs as batched products instead (``nets.mlp.stacked_mlp``: the same values, fewer and
larger kernels), and on a CPU some networks run run by run (``RunStack(per_run=True)``). The loss
is the sum of the runs' losses, so each run's gradient is its own, and the SGD step is
elementwise, so a per-run learning rate trains each run as ``torch.optim.SGD`` would alone: one
grid point of a learning-rate search is one more run of the stack.

Every run draws its minibatch order from its own stream (``seeding``, stream "batches").

One step definition serves every device (``_Steps``): the data stays on the device, the minibatch
is gathered there, and nothing in a step waits for the host (losses, non-finite runs and clipping
counts accumulate in device tensors, read at log points). On CUDA the step is captured once as a
CUDA graph and replayed (``Engine``, ``training.graphs``): one launch per step instead of hundreds.
On a CPU the arithmetic is the previous loop's, bit for bit (tests/test_training_engine.py).
"""

from __future__ import annotations

import copy
import logging
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.func import functional_call, stack_module_state, vmap

from ..base import checkpoints
from ..engine import seeding
from ..engine.chains import progress
from ..nets.mlp import stacked_layer, stacked_mlp, stacked_mlp_supports
from .graphs import WARMUP, CapturedStep
from .probes import (
    GRADIENT_PROBES,
    LAYER_PROBES,
    PROBES,
    gradient_alignment,
    last_hidden_probes,
    linear_weight_names,
    weight_isometry_gaps,
)

__all__ = [
    "EAGER",
    "Curves",
    "Engine",
    "RunStack",
    "TrainData",
    "adaptive_gradient_clip",
    "log_points",
    "measured",
    "sgd_step",
    "train",
]

log = logging.getLogger(__name__)


class RunStack:
    """R networks of one architecture (``MLP``) as one batched network, parameters on dim 0.

    Args:
        models: the initialized networks, one per run (copied, not shared).
        per_run: run each run through its own module (``_per_run``) instead of ``vmap``,
            unless the stacked products apply (they are faster than both).
        stacked_products: an ``MLP``'s logits, H_L and hidden blocks as batched products
            (``nets.mlp.stacked_mlp``) where it supports the blocks, instead of ``vmap``.
    """

    def __init__(
        self, models: Sequence[nn.Module], per_run: bool = False, stacked_products: bool = True
    ):
        if not models:
            raise ValueError("need at least one model")
        self.params, self.buffers = stack_module_state(list(models))
        self.base = copy.deepcopy(models[0]).to("meta")
        self.size = len(models)
        self._training: bool | None = None  # the mode base's modules are in (None: mixed)
        self.stacked_products = stacked_products and stacked_mlp_supports(self.base)
        per_run = per_run and not self.stacked_products
        self.members = [self._member(model, r) for r, model in enumerate(models)] if per_run else []

    def _member(self, model: nn.Module, run: int) -> nn.Module:
        """A copy of ``model`` whose parameters and buffers are views of run ``run``'s slices of
        the stack: an SGD step on the stack moves it, its BN updates the stack's statistics."""
        member = copy.deepcopy(model)
        for name, _ in list(member.named_parameters()):
            owner, _, leaf = name.rpartition(".")
            view = nn.Parameter(self.params[name].detach()[run])
            member.get_submodule(owner)._parameters[leaf] = view
        for name, _ in list(member.named_buffers()):
            owner, _, leaf = name.rpartition(".")
            member.get_submodule(owner)._buffers[leaf] = self.buffers[name][run]
        return member

    def collect_grads(self) -> None:
        """Per-run path: move the members' gradients onto the stacked parameters (one
        (R, ...) gradient each), where ``sgd_step`` reads them. The vmap path has them there."""
        if not self.members:
            return
        named = [dict(m.named_parameters()) for m in self.members]
        for name, stacked in self.params.items():
            grads = [params[name].grad for params in named]
            if any(g is None for g in grads):
                continue
            stacked.grad = torch.stack(grads)
            for params in named:
                params[name].grad = None

    def outputs(
        self,
        x: Tensor,
        training: bool,
        output: str = "logits",
        buffers: dict | None = None,
        params: dict | None = None,
    ) -> Tensor:
        """Every run's network on its own x[r], (R, B, ...) -> (R, ...) (``MLP.forward``'s
        ``output``). In training mode BN normalizes with each run's batch statistics and updates
        the running statistics in ``buffers`` (default: the stack's own), in eval mode it uses
        them. ``params`` replaces the stack's parameters (e.g. a float64 copy)."""
        if self._training is not training:  # train() visits every module: only on a change
            self.base.train(training)
            self._training = training

        def one(p, b, xr):  # no network here ties weights: skip torch's search for ties
            return functional_call(self.base, (p, b), (xr,), {"output": output}, tie_weights=False)

        if self.members and buffers is None and params is None:
            return self._per_run(x, training, output)
        buffers = self.buffers if buffers is None else buffers
        params = self.params if params is None else params
        if self.stacked_products and output in ("logits", "last_hidden"):
            return stacked_mlp(self.base, params, buffers, x, training, output)
        return vmap(one, randomness="error")(params, buffers, x)

    def _per_run(self, x: Tensor, training: bool, output: str) -> Tensor:
        """``outputs`` run by run through the members (``per_run``): the same functions, each
        run's own kernels (faster than vmap's batched ones for BN ResNets and the shaped MLPs on
        one CPU thread, bench/README "Training")."""
        outs = []
        for r, member in enumerate(self.members):
            if member.training is not training:
                member.train(training)
            outs.append(member(x[r], output=output))
        return torch.stack(outs)

    def logits(self, x: Tensor, training: bool) -> Tensor:
        """(R, B, ...) inputs -> (R, B, C) logits."""
        return self.outputs(x, training)

    def hidden(self, x: Tensor, output: str = "last_hidden") -> Tensor:
        """H_L per run, (R, B, width) (or every H_l with ``output="all_hidden"``), with batch
        statistics as at training time, leaving the running statistics untouched (the per-run
        path updates them and puts them back)."""
        if self.members:
            kept = {k: v.clone() for k, v in self.buffers.items()}
            out = self._per_run(x, True, output)
            with torch.no_grad():
                for k, v in self.buffers.items():
                    v.copy_(kept[k])
            return out
        buffers = {k: v.clone() for k, v in self.buffers.items()}
        return self.outputs(x, True, output, buffers)

    def blocks(self, x: Tensor, start: int, stop: int) -> Tensor:
        """H_stop from H_start for every run, (R, B, ...) -> (R, B, width): hidden blocks
        start+1..stop (``MLP.blocks``) with batch statistics as at training time, leaving the
        running statistics untouched. Gradients reach only those blocks' parameters."""
        part = self.base.blocks(start, stop).train(True)
        self._training = None  # those blocks are now in training mode, the rest as they were
        params = {n: self.params["hidden." + n] for n, _ in part.named_parameters()}
        buffers = {n: self.buffers["hidden." + n].clone() for n, _ in part.named_buffers()}
        if self.stacked_products:
            for name, module in part.named_children():
                x = stacked_layer(module, f"{name}.", params, buffers, x, True)
            return x

        def one(p, b, xr):
            return functional_call(part, (p, b), (xr,), tie_weights=False)

        return vmap(one, randomness="error")(params, buffers, x)

    def block_parameters(self, block: int) -> list[Tensor]:
        """The stacked parameters of hidden block ``block`` (1-based, as H_block)."""
        part = self.base.blocks(block - 1, block)
        return [self.params["hidden." + n] for n, _ in part.named_parameters()]

    def unstack(self, run: int, like: nn.Module) -> nn.Module:
        """Run ``run``'s network as a plain module: a copy of ``like`` holding its state."""
        model = copy.deepcopy(like)
        tensors = {**self.params, **self.buffers}
        model.load_state_dict({k: v[run].detach().clone() for k, v in tensors.items()})
        return model


AGC_WEIGHT_FLOOR = 1e-2
"""||W||_F^* = max(||W||_F, 1e-2), Thesis Eq. (A.21)."""


def _clipped(weight: Tensor, grad: Tensor, clip: float) -> tuple[Tensor, Tensor]:
    """``adaptive_gradient_clip``'s gradient and the (R,) bool of the runs it rescaled (the test
    of Eq. (A.21), ||G||_F / ||W||_F^* >= clip)."""
    dims = tuple(range(1, grad.dim()))
    w_norm = torch.linalg.vector_norm(weight, dim=dims).clamp_min(AGC_WEIGHT_FLOOR)
    g_norm = torch.linalg.vector_norm(grad, dim=dims)
    hit = g_norm / w_norm >= clip
    scale = torch.where(hit, clip * w_norm / g_norm, torch.ones_like(g_norm))
    return grad * scale.view(-1, *([1] * len(dims))), hit


@torch.no_grad()
def adaptive_gradient_clip(weight: Tensor, grad: Tensor, clip: float) -> Tensor:
    """Adaptive gradient clipping, Thesis App. A.5 (ii), Eq. (A.21) (Brock et al. 2021, per
    layer): G <- clip ||W||_F^* / ||G||_F G where ||G||_F / ||W||_F^* >= clip, else G, with
    ||W||_F^* = max(||W||_F, 1e-2). Batched over runs: weight and grad (R, ...), one norm per
    run. Returns the clipped gradient (a new tensor)."""
    return _clipped(weight, grad, clip)[0]


@torch.no_grad()
def sgd_step(
    params: dict[str, Tensor],
    lrs: Tensor,
    momentum: float,
    state: dict,
    clip: float = 0.0,
    clipped: Tensor | None = None,
) -> None:
    """p <- p - lr_r * v with v <- momentum v + grad (``torch.optim.SGD``'s rule, dampening 0,
    no weight decay), lr_r the learning rate of run r; grads are consumed and cleared.
    Parameters without a gradient (outside the objective) are left alone. ``clip`` > 0: the
    gradient of every weight matrix (a Linear's or conv's ``weight``, dim > 2 with the run dim)
    is first clipped by ``adaptive_gradient_clip`` (biases are not), and ``clipped`` (R,), if
    given, counts per run the weight gradients it rescaled (on the device: no host sync)."""
    for name, p in params.items():
        grad = p.grad
        if grad is None:  # not in the objective (the read-out in rank pre-training)
            continue
        if clip and name.endswith("weight") and p.dim() > 2:
            grad, hit = _clipped(p, grad, clip)
            if clipped is not None:
                clipped.add_(hit)
        if momentum:
            buf = state.get(name)
            grad = (
                state.setdefault(name, grad.clone())
                if buf is None
                else buf.mul_(momentum).add_(grad)
            )
        p.sub_(lrs.view(-1, *([1] * (p.dim() - 1))) * grad)
        p.grad = None


@dataclass
class TrainData:
    """Training and test sets on the device: images (N, ...) float, labels (N,) int64."""

    train_x: Tensor
    train_y: Tensor
    test_x: Tensor
    test_y: Tensor
    probe_x: Tensor
    """The fixed probe batch (B, ...) shared by every run (Dan+20 Fig. 6: r(H_L) on a batch)."""
    eval_size: int = 0
    """Training-set samples evaluated at each log point (0: all)."""
    probe_y: Tensor | None = None
    """Labels of the probe batch (the gradient probes need them)."""


@dataclass
class Curves:
    """What ``train`` logs, one row per run and one column per log point.

    ``step`` holds the iteration of each log point (0 = at initialization), ``epoch`` its epoch
    (fractional between epoch ends); metrics: ``train_loss``, ``train_accuracy``, ``test_loss``,
    ``test_accuracy`` and each probe of the last hidden layer on the probe batch.
    """

    step: list[int] = field(default_factory=list)
    epoch: list[float] = field(default_factory=list)
    values: dict[str, list[Tensor]] = field(default_factory=dict)
    seconds: float = 0.0
    timing: dict = field(default_factory=dict)
    """Where ``train``'s wall time went (``_Timer``): ``engine`` (how the steps ran), ``steps``,
    ``setup_steps`` (the first steps: warm-up and capture, first calls), ``setup_s``,
    ``step_s`` (the other steps), ``log_points``, ``log_s`` (log points and checkpoints),
    ``nonfinite_runs`` (runs whose minibatch loss was ever NaN or infinite). Not checkpointed."""

    def add(self, step: int, epoch: float, row: dict[str, Tensor]) -> None:
        self.step.append(step)
        self.epoch.append(epoch)
        for k, v in row.items():
            self.values.setdefault(k, []).append(v.detach().double().cpu())

    def tensors(self) -> dict[str, Tensor]:
        """metric -> (R, T) float64; a per-layer probe (R, layers, T)."""
        return {k: torch.stack(v, dim=-1) for k, v in self.values.items()}


EVAL_CHUNK = 128
"""Samples per forward pass of an evaluation: small enough that a conv net's activations stay in
cache (one CPU thread, 512 samples: ResNet-50 x 1/16 2.7x faster than one pass, VGG-19 x 1/16
1.6x, the depth-32 MLP 1.1x; bench/README "Training"). Each sample's logits do not depend
on the chunk in eval mode (tested)."""

EVAL_CHUNK_CUDA = 2048
"""Samples per evaluation pass of a stacked MLP on CUDA (``Engine``): its activations are small
(R x 2048 x width) and each pass's kernels are launched from Python, so fewer passes are faster;
conv nets keep ``EVAL_CHUNK``."""

GRAPHS_ENV = "SIGPROP_CUDA_GRAPHS"
"""Set to 0 to train on CUDA without graphs by default (``Engine.graphs`` None)."""


@dataclass(frozen=True)
class Engine:
    """How ``train`` launches its work; the arithmetic is the same either way.

    Attributes:
        graphs: capture the SGD step once as a CUDA graph and replay it (``training.graphs``);
            None: on a CUDA device, unless the environment sets ``SIGPROP_CUDA_GRAPHS=0``.
            True needs CUDA. A step that cannot be captured falls back to eager launches.
        eval_chunk: samples per forward pass of an evaluation; None: ``EVAL_CHUNK_CUDA`` for a
            stacked MLP on CUDA, else ``EVAL_CHUNK``.
    """

    graphs: bool | None = None
    eval_chunk: int | None = None

    def resolved(self, stack: RunStack, device: torch.device) -> tuple[bool, int]:
        """(graphs, eval_chunk) for ``stack`` on ``device``."""
        cuda = device.type == "cuda"
        graphs = self.graphs
        if graphs is None:
            graphs = cuda and os.environ.get(GRAPHS_ENV, "1") != "0"
        elif graphs and not cuda:
            raise ValueError(f"CUDA graphs need a CUDA device, not {device}")
        if self.eval_chunk is not None:
            return graphs, self.eval_chunk
        return graphs, EVAL_CHUNK_CUDA if cuda and stack.stacked_products else EVAL_CHUNK


EAGER = Engine(graphs=False, eval_chunk=EVAL_CHUNK)
"""The engine before CUDA graphs: every kernel of a step launched from Python, evaluations in
chunks of ``EVAL_CHUNK`` (``bench/training_engine.py``'s baseline on CUDA; on a CPU it is the
default engine)."""


def _evaluate(
    stack: RunStack, x: Tensor, y: Tensor, chunk: int = EVAL_CHUNK
) -> tuple[Tensor, Tensor]:
    """Mean cross-entropy and accuracy per run on (x, y) shared by all runs, eval mode."""
    loss = torch.zeros(stack.size, dtype=torch.float64, device=x.device)
    correct = torch.zeros(stack.size, dtype=torch.float64, device=x.device)
    with torch.no_grad():
        for i in range(0, len(x), chunk):
            xb, yb = x[i : i + chunk], y[i : i + chunk]
            out = stack.logits(xb.expand(stack.size, *xb.shape), training=False)
            target = yb.expand(stack.size, -1)
            loss += (
                F.cross_entropy(out.flatten(0, 1), target.flatten(), reduction="none")
                .view(stack.size, -1)
                .double()
                .sum(-1)
            )
            correct += (out.argmax(-1) == target).double().sum(-1)
    return loss / len(x), correct / len(x)


def _log_point(
    stack: RunStack, data: TrainData, probes: Sequence[str], chunk: int = EVAL_CHUNK
) -> dict[str, Tensor]:
    n = data.eval_size or len(data.train_x)
    train_loss, train_acc = _evaluate(stack, data.train_x[:n], data.train_y[:n], chunk)
    test_loss, test_acc = _evaluate(stack, data.test_x, data.test_y, chunk)
    with torch.no_grad():
        h = stack.hidden(data.probe_x.expand(stack.size, *data.probe_x.shape)).double()
    row = {"train_loss": train_loss, "train_accuracy": train_acc}
    row |= {"test_loss": test_loss, "test_accuracy": test_acc}
    row |= last_hidden_probes(h, [p for p in probes if p in PROBES])
    if "gradient_alignment" in probes:
        row["gradient_alignment"] = _readout_alignment(stack, h, data.probe_y)
    return row | _layer_probes(stack, data, [p for p in probes if p in LAYER_PROBES])


def _layer_probes(stack: RunStack, data: TrainData, names: Sequence[str]) -> dict[str, Tensor]:
    """``probes.LAYER_PROBES`` of every Linear layer, each (R, layers): the weights' isometry
    gap, and the Frobenius norm of each run's gradient of its mean cross-entropy on the probe
    batch (training mode: batch statistics, as the authors' ``get_measurements``; the running
    statistics are left untouched, unlike theirs). Both in float64 on a copy of the weights,
    whatever the training dtype: an exploding net's gradient (e^130 at depth 1000 without gain,
    Thesis Fig. 6.5) overflows float32 but not float64. NaN for a run whose weights diverged."""
    if not names:
        return {}
    weight_names = linear_weight_names(stack.base)
    row = {}
    if "weight_isometry_gap" in names:
        row["weight_isometry_gap"] = weight_isometry_gaps([stack.params[n] for n in weight_names])
    if "gradient_norm" in names:
        params = {k: v.detach().double() for k, v in stack.params.items()}
        weights = [params[n].requires_grad_(True) for n in weight_names]
        buffers = {
            k: v.double() if v.is_floating_point() else v.clone() for k, v in stack.buffers.items()
        }
        x = data.probe_x.double().expand(stack.size, *data.probe_x.shape)
        out = stack.outputs(x, True, "logits", buffers, params)
        target = data.probe_y.expand(stack.size, -1)
        loss = F.cross_entropy(out.flatten(0, 1), target.flatten(), reduction="none")
        grads = torch.autograd.grad(loss.view(stack.size, -1).mean(-1).sum(), weights)
        row["gradient_norm"] = torch.stack([torch.linalg.matrix_norm(g) for g in grads], dim=-1)
    return row


def _readout_alignment(stack: RunStack, h: Tensor, y: Tensor) -> Tensor:
    """``probes.gradient_alignment`` per run on the probe batch, in float64 (H_L as in
    training, batch statistics); NaN for a run whose H_L or read-out is not finite."""
    weight, bias = (stack.params[f"readout.{k}"].detach().double() for k in ("weight", "bias"))
    out = torch.full((stack.size,), float("nan"), dtype=torch.float64, device=h.device)
    for r in range(stack.size):
        if all(torch.isfinite(t).all() for t in (h[r], weight[r], bias[r])):
            out[r] = gradient_alignment(weight[r], bias[r], h[r], y)
    return out


def _state(identity, epoch, step, stack, momentum, gens, curves, clip_counts=None) -> dict:
    """What ``train`` needs to go on after ``epoch`` epochs (``checkpoints``), with the
    clipping counts of the epochs done where the caller records them."""
    return {
        "identity": identity, "epoch": epoch, "step": step, "clip_counts": clip_counts,
        "params": {k: v.detach() for k, v in stack.params.items()},
        "buffers": dict(stack.buffers), "momentum": dict(momentum),
        "generators": [g.get_state() for g in gens],
        "curves": {"step": curves.step, "epoch": curves.epoch, "values": curves.values},
    }  # fmt: skip


@torch.no_grad()
def _restore(
    saved: dict, stack: RunStack, momentum: dict, gens, curves: Curves, clip_counts=None
) -> tuple[int, int]:
    """Put a checkpoint's state back in place (the clipping counts into ``clip_counts``);
    returns (epochs done, steps done)."""
    if clip_counts is not None:
        clip_counts[:] = list(saved["clip_counts"])
    for live, kept in ((stack.params, saved["params"]), (stack.buffers, saved["buffers"])):
        for k, v in live.items():
            v.copy_(kept[k])
    momentum.update({k: v.to(stack.params[k].device) for k, v in saved["momentum"].items()})
    for g, kept in zip(gens, saved["generators"], strict=True):
        g.set_state(kept)
    curves.step, curves.epoch = list(saved["curves"]["step"]), list(saved["curves"]["epoch"])
    curves.values = {k: list(v) for k, v in saved["curves"]["values"].items()}
    return saved["epoch"], saved["step"]


def _check_probes(probes: Sequence[str], data: TrainData) -> None:
    """A ValueError for an unknown probe, or a labelled probe without the probe batch's labels."""
    known = [*PROBES, *GRADIENT_PROBES, *LAYER_PROBES]
    unknown = set(probes) - set(known)
    if unknown:
        raise ValueError(f"unknown probes {sorted(unknown)}: choose from {known}")
    needs_labels = {"gradient_alignment", "gradient_norm"} & set(probes)
    if needs_labels and data.probe_y is None:
        raise ValueError(
            f"the probes {sorted(needs_labels)} need the probe batch's labels (probe_y)"
        )


@dataclass
class _Measure:
    cut_steps: int | None
    records: list[dict]


_MEASURE: ContextVar[_Measure | None] = ContextVar("training_measure", default=None)


@contextmanager
def measured(cut_steps: int | None = None) -> Iterator[list[dict]]:
    """Record how every ``train`` call inside the block spends its time: one dict per call,
    its ``Curves.timing`` with ``desc``, ``members``, ``steps_per_epoch``, ``epochs``,
    ``log_every`` and ``seconds``. With ``cut_steps``, each call stops after that many SGD steps
    and logs its epoch-end point there, and nothing is checkpointed: a cut run at paper shapes
    (``bench/gpu_training.py`` projects the paper run from it)."""
    records: list[dict] = []
    token = _MEASURE.set(_Measure(cut_steps, records))
    try:
        yield records
    finally:
        _MEASURE.reset(token)


class _Timer:
    """Wall seconds per bucket, each ``mark`` closing an interval (the device drained first: the
    one host sync, at log points and after the first steps, never per step)."""

    def __init__(self, device: torch.device):
        self.device, self.seconds = device, {"setup_s": 0.0, "step_s": 0.0, "log_s": 0.0}
        self.last = self._now()

    def _now(self) -> float:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        return time.perf_counter()

    def mark(self, bucket: str) -> None:
        now = self._now()
        self.seconds[bucket] += now - self.last
        self.last = now


class _Steps:
    """``train``'s SGD step, one definition on every device: minibatch k of the epoch's order,
    gathered from the data where it lies (the device), every run's mean cross-entropy, backward,
    ``sgd_step``; the runs' minibatch losses summed (and clipped gradients counted) in device
    tensors, read at log points only. Nothing in it waits for the host.

    With ``graphs`` (CUDA), the step reads its minibatch indices from one fixed tensor and runs
    as a ``graphs.CapturedStep``: warm-up, capture, replay (eager if capture fails)."""

    def __init__(self, stack, data, lrs, momentum, state, clip, batch_size, graphs, count_clips):
        self.stack, self.data, self.lrs = stack, data, lrs
        self.momentum, self.state, self.clip, self.batch_size = momentum, state, clip, batch_size
        device, runs = data.train_x.device, stack.size
        self.loss_sum = torch.zeros(runs, dtype=torch.float64, device=device)
        self.clipped = torch.zeros_like(self.loss_sum) if count_clips else None
        self.index, self.captured = None, None
        if graphs:
            self.index = torch.zeros(runs, batch_size, dtype=torch.long, device=device)
            self.captured = CapturedStep(lambda: self.step(self.index), self.drop_grads)
        self.setup_steps = WARMUP + 1 if graphs else 1

    @property
    def mode(self) -> str:
        return "eager" if self.captured is None else self.captured.mode

    def __call__(self, order: Tensor, k: int) -> None:
        idx = order[:, k * self.batch_size : (k + 1) * self.batch_size]
        if self.captured is None:
            self.step(idx)
        else:
            self.index.copy_(idx)
            self.captured()

    def step(self, idx: Tensor) -> None:
        x, y, flat = self.data.train_x, self.data.train_y, idx.reshape(-1)
        out = self.stack.logits(x.index_select(0, flat).view(*idx.shape, *x.shape[1:]), True)
        loss = F.cross_entropy(out.flatten(0, 1), y.index_select(0, flat), reduction="none")
        per_run = loss.view(self.stack.size, -1).mean(-1)
        per_run.sum().backward()
        self.stack.collect_grads()
        sgd_step(self.stack.params, self.lrs, self.momentum, self.state, self.clip, self.clipped)
        self.loss_sum.add_(per_run.detach())

    def drop_grads(self) -> None:
        for p in self.stack.params.values():
            p.grad = None

    def release(self) -> None:
        """Free the captured graph's memory now (``self`` and its step form a reference cycle
        that only the garbage collector would break)."""
        if self.captured is not None:
            self.captured.graph = None
        self.captured = None


def log_points(epochs: int, steps_per_epoch: int, log_every: int = 0) -> int:
    """How many points ``train`` logs in ``epochs`` epochs: at initialization, after each epoch,
    and every ``log_every`` steps where that is not an epoch's end."""
    inside = 0
    if log_every:
        for epoch in range(epochs):
            first, last = epoch * steps_per_epoch + 1, (epoch + 1) * steps_per_epoch - 1
            inside += max(0, last // log_every - (first - 1) // log_every)
    return 1 + epochs + inside


def _epoch_order(gens: Sequence[torch.Generator], n: int, device: torch.device) -> Tensor:
    """Each run's shuffle of the n training samples from its own generator (on the CPU, as
    ``seeding`` draws everything), (R, n) on the device; on CUDA through pinned memory,
    without waiting for the copy."""
    order = torch.stack([torch.randperm(n, generator=g) for g in gens])
    if device.type == "cuda":
        return order.pin_memory().to(device, non_blocking=True)
    return order.to(device)


def train(
    stack: RunStack,
    data: TrainData,
    lrs: Tensor,
    epochs: int,
    batch_size: int,
    experiment_id: str,
    runs: Sequence[int],
    log_every: int = 0,
    momentum: float = 0.0,
    probes: Sequence[str] = ("rank", "r_lower_bound"),
    desc: str = "train",
    clip: float = 0.0,
    engine: Engine | None = None,
    clip_counts: list | None = None,
) -> Curves:
    """SGD with minibatches of ``batch_size`` for ``epochs`` epochs, every run at once.

    ``probes``: names in ``probes.PROBES`` (of H_L), ``probes.GRADIENT_PROBES`` (of the
    read-out's per-sample gradients) and ``probes.LAYER_PROBES`` (per Linear layer, (R, layers)
    per log point), on the probe batch at every log point. ``clip`` > 0: adaptive gradient
    clipping with that lambda (``sgd_step``); ``clip_counts``, a list, gets per epoch the (R,)
    float64 count of weight gradients it rescaled (not checkpointed). ``engine``: how the steps
    are launched (``Engine``; default: CUDA graphs on CUDA).

    Run r (stack member r, seeding run index ``runs[r]``) shuffles the training set each epoch
    from its own generator and uses learning rate ``lrs[r]``; a last partial minibatch is
    dropped, so every step has one shape. Logs at initialization, every ``log_every``
    iterations (0: none) and after each epoch. Inside ``checkpoints.resumable`` it saves its
    state after each epoch and resumes from a saved one (the same computation, so the same
    result).
    """
    _check_train(stack, data, lrs, runs, batch_size, probes)
    n, device = len(data.train_x), data.train_x.device
    graphs, chunk = (engine or Engine()).resolved(stack, device)
    lrs = lrs.to(device, data.train_x.dtype)
    measure = _MEASURE.get()
    cut = measure.cut_steps if measure else None
    checkpoint = None if cut else checkpoints.path_for(experiment_id)
    identity = dict(experiment_id=experiment_id, runs=list(runs), lrs=lrs.tolist(), epochs=epochs,
                    batch_size=batch_size, log_every=log_every, momentum=momentum,
                    probes=list(probes), clip=clip, samples=n,
                    clip_counts=clip_counts is not None)  # fmt: skip
    gens = seeding.generators(experiment_id, list(runs), "batches")
    curves, state, start = Curves(), {}, time.monotonic()
    timer = _Timer(device)

    def log_point(step: int, epoch: float) -> None:
        timer.mark("step_s")
        curves.add(step, epoch, _log_point(stack, data, probes, chunk))
        timer.mark("log_s")

    saved = checkpoints.load(checkpoint, identity)
    if saved is None:
        first, step = 0, 0
        log_point(0, 0.0)
    else:
        first, step = _restore(saved, stack, state, gens, curves, clip_counts)
    steps = _Steps(stack, data, lrs, momentum, state, clip, batch_size, graphs,
                   clip_counts is not None)  # fmt: skip
    for p in stack.params.values():
        p.requires_grad_(True)
    taken = 0
    for epoch in progress(epochs, desc, unit="epochs", start=first):
        order = _epoch_order(gens, n, device)
        step, taken = _epoch_steps(steps, order, epoch, step, taken, cut, n // batch_size,
                                   log_every, log_point, timer)  # fmt: skip
        _end_epoch(epoch, step, log_point, steps, clip_counts, checkpoint, identity, gens, curves,
                   desc)  # fmt: skip
        timer.mark("log_s")
        if cut and taken >= cut:
            break
    _finished(curves, steps, timer, taken, time.monotonic() - start)
    if measure is not None:
        measure.records.append({"desc": desc, "members": stack.size, "epochs": epochs,
                                "steps_per_epoch": n // batch_size, "log_every": log_every,
                                "seconds": curves.seconds, **curves.timing})  # fmt: skip
    return curves


def _finished(curves: Curves, steps: _Steps, timer: _Timer, taken: int, seconds: float) -> None:
    """``curves``' seconds and timing (one read of the device tallies); the graph let go."""
    curves.seconds = seconds
    curves.timing = {"engine": steps.mode, "steps": taken, "setup_steps": steps.setup_steps,
                     "log_points": len(curves.step), **timer.seconds,
                     "nonfinite_runs": int((~torch.isfinite(steps.loss_sum)).sum())}  # fmt: skip
    steps.release()


def _check_train(stack, data, lrs, runs, batch_size, probes) -> None:
    """A ValueError for ``train``'s arguments that do not fit together."""
    _check_probes(probes, data)
    if len(runs) != stack.size or lrs.shape != (stack.size,):
        raise ValueError(f"need {stack.size} runs and lrs, got {len(runs)} and {tuple(lrs.shape)}")
    n = len(data.train_x)
    if n // batch_size < 1:
        raise ValueError(f"batch_size {batch_size} exceeds the {n} training samples")


def _epoch_steps(steps, order, epoch, step, taken, cut, per_epoch, log_every, log_point, timer):
    """One epoch's SGD steps of ``train`` with the log points within it; ``taken`` counts this
    call's steps, which stop at ``cut`` (``measured``). Returns (step, taken)."""
    for k in range(per_epoch):
        if cut and taken >= cut:
            break
        steps(order, k)
        step, taken = step + 1, taken + 1
        if taken == steps.setup_steps:
            timer.mark("setup_s")
        if log_every and step % log_every == 0 and k + 1 < per_epoch:
            log_point(step, epoch + (k + 1) / per_epoch)
    return step, taken


def _end_epoch(epoch, step, log_point, steps, clip_counts, checkpoint, identity, gens, curves,
               desc) -> None:  # fmt: skip
    """``train``'s work after each epoch: the log point, the clipping counts, the checkpoint
    and the log line (the one read of the runs' summed minibatch losses)."""
    log_point(step, epoch + 1.0)
    if clip_counts is not None:
        clip_counts.append(steps.clipped.to("cpu", copy=True))
        steps.clipped.zero_()
    if checkpoint is not None:
        kept = _state(
            identity, epoch + 1, step, steps.stack, steps.state, gens, curves, clip_counts
        )
        checkpoints.save(checkpoint, kept)
    nonfinite = int((~torch.isfinite(steps.loss_sum)).sum())
    last = curves.values["train_loss"][-1]
    log.info("%s: epoch %d, train loss %.4g (mean over runs), %d of %d runs with a non-finite "
             "minibatch loss", desc, epoch + 1, float(last.mean()), nonfinite,
             steps.stack.size)  # fmt: skip
