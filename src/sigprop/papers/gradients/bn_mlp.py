"""The BN MLP of Thesis ch. 6 at initialization, batched over independent runs.

Thesis Eq. (6.3) with the activation shaping of Eq. (6.11), in sigprop's layout (samples are
columns, leading dimension = run):

    X_0 = x (D x n),   H_l = W_l X_l + b_l,   X_{l+1} = act(alpha_l * BN(H_l)),   l = 0..L-1,
    logits = W_L X_L + b_L (C x n),   loss = cross-entropy, mean over the n samples.

Layers are numbered as in the authors' code: ``fc_0`` is the D -> d input
projection, ``fc_1 .. fc_{L-1}`` are the d x d hidden layers and ``fc_L`` the d -> C read-out;
"the gradient of the first layer" of Figs. 6.2, 6.3, 6.5 and C.9 is that of ``fc_1`` (Fig. C.10:
``fc_0``). The gain is alpha_l = gain * (l + 1)^(-gain_exponent), so ``fc_0``'s block has
alpha_0 = gain (Eq. (6.11)). The layers are ``nets.mlp.MLP``'s on this layout: BN is one of
``nets.normalizations.BATCH_FUNCTIONS``, applied per row (neuron) across the n samples, then
``nets.mlp.shaped``'s act(alpha_l x).

Weights: ``nets.initializations.STACKED_INITS``, Haar orthogonal (semi-orthogonal rows or columns
for the rectangular ends, as ``torch.nn.init.orthogonal_`` with gain 1) or ``xavier_normal_``
N(0, 2 / (fan_in + fan_out)).
Run r's weights come from its own generator ``seeding.generator(experiment_id, r, "weights")``
layer after layer, so a run is reproducible alone; the QR factorizations are batched over runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor

from ...datasets import data
from ...engine import gram_isometry, ops, seeding
from ...nets.initializations import STACKED_INITS
from ...nets.mlp import shaped
from ...nets.normalizations import BATCH_FUNCTIONS

__all__ = [
    "CHUNK_BYTES",
    "Architecture",
    "GradientProfile",
    "Parameters",
    "forward",
    "gradient_profile",
    "graph_bytes",
    "init_parameters",
    "input_batch",
    "representation_gap",
    "run_chunks",
]


@dataclass(frozen=True)
class Architecture:
    """One network of Eq. (6.3)/(6.11): depth L (BN layers; L + 1 linear layers), width d.

    Attributes:
        depth: L >= 1.
        width: d, also the number of rows of every BN.
        norm: a key of ``nets.normalizations.BATCH_FUNCTIONS``, the BN variants of the ch. 6
            figures (Thesis Sec. 6.3): theory BN = Eq. (6.4) with factor 1 (``bn_unit``), theory
            BN x sqrt(n) (``bn_rms``), mean-reduced BN x sqrt(n) (``bn_centered``) and PyTorch
            ``BatchNorm1d`` in training mode at initialization (``batch_norm``).
        activation: a key of ``ops.ACTIVATIONS`` (``linear`` = identity, ``tanh``, ``sin``).
        init: a key of ``nets.initializations.STACKED_INITS``: ``orthogonal`` or ``gaussian``
            (xavier_normal, Fig. 6.3's "Normal").
        gain: constant factor alpha of every layer (Fig. C.1); 1 elsewhere.
        gain_exponent: gamma of the schedule alpha_l = gain (l + 1)^(-gamma) (Fig. 6.5: 0.4).
        bias: add biases drawn as PyTorch's default U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (Fig. 6.5's
            ``bias=True``); before a mean-reducing BN they cancel, so only the read-out's matters.
    """

    depth: int
    width: int
    norm: str = "bn_rms"
    activation: str = "linear"
    init: str = "orthogonal"
    gain: float = 1.0
    gain_exponent: float = 0.0
    bias: bool = False
    act: Callable[[Tensor], Tensor] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise ValueError(f"depth must be >= 1, got {self.depth}")
        if self.width < 1:
            raise ValueError(f"width must be >= 1, got {self.width}")
        if self.norm not in BATCH_FUNCTIONS:
            raise ValueError(f"norm must be one of {sorted(BATCH_FUNCTIONS)}, got {self.norm!r}")
        if self.init not in STACKED_INITS:
            raise ValueError(f"init must be one of {list(STACKED_INITS)}, got {self.init!r}")
        if not self.gain > 0:
            raise ValueError(f"gain must be > 0, got {self.gain}")
        object.__setattr__(self, "act", ops.activation(self.activation))

    def gains(self) -> list[float]:
        """alpha_l = gain (l + 1)^(-gain_exponent) for l = 0..L-1, Eq. (6.11)."""
        return [self.gain * (k + 1) ** -self.gain_exponent for k in range(self.depth)]


@dataclass
class Parameters:
    """Weights W_0..W_L, each (runs, out, in), and biases (runs, out, 1) or None."""

    weights: list[Tensor]
    biases: list[Tensor] | None


def init_parameters(
    arch: Architecture,
    d_in: int,
    d_out: int,
    experiment_id: str,
    runs: Sequence[int],
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
) -> Parameters:
    """Draw W_0 (d x D), W_1..W_{L-1} (d x d), W_L (C x d) for each run (``seeding`` streams
    ``(experiment_id, run, "weights")`` and ``"biases"``)."""
    if d_in < 1 or d_out < 1:
        raise ValueError(f"d_in and d_out must be >= 1, got {d_in}, {d_out}")
    if not runs:
        raise ValueError("runs must not be empty")
    device = torch.device(device)
    gens = seeding.generators(experiment_id, list(runs), "weights")
    bgens = seeding.generators(experiment_id, list(runs), "biases") if arch.bias else None
    weights, biases = _layer_parameters(arch, d_in, d_out, gens, bgens, 0, dtype, device)
    return Parameters(weights, biases)


def _layer_parameters(
    arch: Architecture,
    d_in: int,
    d_out: int,
    gens: Sequence[torch.Generator],
    bgens: Sequence[torch.Generator] | None,
    first: int,
    dtype: torch.dtype,
    device: torch.device,
    last: int | None = None,
) -> tuple[list[Tensor], list[Tensor] | None]:
    """W_l and b_l (None without ``bgens``) for l = first..last (default L), each drawn from the
    generators' current states: a run's streams hold its layers in order, so drawing the layers
    in pieces, in order, gives the same numbers as drawing them at once."""
    sizes = [d_in] + [arch.width] * arch.depth + [d_out]
    layers = range(first, arch.depth + 1 if last is None else last + 1)
    draw = STACKED_INITS[arch.init]
    weights = [draw(gens, sizes[k + 1], sizes[k], dtype, device) for k in layers]
    if bgens is None:
        return weights, None
    biases = []
    for k in layers:
        u = torch.stack(
            [torch.rand((sizes[k + 1], 1), generator=g, dtype=dtype).to(device) for g in bgens]
        )
        biases.append((2 * u - 1) / math.sqrt(sizes[k]))
    return weights, biases


BATCH_ID = "gradients.data"
"""``seeding`` address of the real-data batch shared by the ch. 6 figures (run 0, "batch")."""


def input_batch(
    dataset: str,
    data_root: str,
    batch_size: int,
    normalize: bool,
    download: bool = False,
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
) -> tuple[Tensor, Tensor, int]:
    """The one input batch of the at-initialization figures (Thesis Sec. 6.3): ``batch_size``
    training images drawn once (``seeding`` address ``BATCH_ID``), reused for every depth and run.

    Args: the config item ``gradients.data`` (``data.random_batch``'s arguments).
    Returns:
        x: shape (D, n), samples as columns; labels: (n,); the dataset's number of classes.
    """
    g = seeding.generator(BATCH_ID, 0, "batch")
    images, labels = data.random_batch(dataset, data_root, batch_size, g, download, normalize)
    n_classes = data.dataset_spec(dataset)[1].n_classes
    return images.T.to(device, dtype), labels.to(device), n_classes


def representation_gap(h: Tensor) -> Tensor:
    """psi of a representation, Thesis Eq. (6.5): the isometry gap of its n x n sample Gram.

    ``gram_isometry.isometry_gap(gram_isometry.gram(h))``; inf for a rank-deficient h (e.g.
    after mean reduction, Thesis Eq. (6.4)). Shape (..., d, n) -> (...).
    """
    return gram_isometry.isometry_gap(gram_isometry.gram(h))


def forward(
    params: Parameters,
    x: Tensor,
    arch: Architecture,
    gap_layers: Sequence[int] = (),
) -> tuple[Tensor, dict[int, Tensor]]:
    """Logits of Eq. (6.3)/(6.11) and psi of the ``fc_l`` outputs H_l for l in ``gap_layers``.

    Args:
        params: from ``init_parameters`` (R runs).
        x: the input batch X_0, shape (D, n) shared by all runs, or (R, D, n).
        arch: the architecture the parameters were drawn for.
        gap_layers: indices l in 0..L of the linear layers whose output's psi is recorded
            (computed without gradient).
    Returns:
        logits, shape (R, C, n); {l: psi(H_l), shape (R,)}.
    """
    if len(params.weights) != arch.depth + 1:
        raise ValueError(f"{len(params.weights)} weights for depth {arch.depth}")
    _check_gap_layers(arch, gap_layers)
    gaps: dict[int, Tensor] = {}
    h = _layers(x, params, arch, 0, set(gap_layers), representation_gap, gaps)
    return h, gaps


def _check_gap_layers(arch: Architecture, gap_layers: Sequence[int]) -> None:
    bad = [k for k in gap_layers if not 0 <= k <= arch.depth]
    if bad:
        raise ValueError(f"gap_layers {bad} outside 0..{arch.depth}")


def _block(h: Tensor, layer: int, arch: Architecture) -> Tensor:
    """X_{l+1} = act(alpha_l BN(H_l)), l = ``layer``: ``nets.mlp.MLP``'s norm and shaped
    activation on the seeds' layout."""
    return shaped(arch.act, BATCH_FUNCTIONS[arch.norm](h), arch.gains()[layer])


def _layers(
    h: Tensor,
    params: Parameters,
    arch: Architecture,
    first: int,
    wanted: set[int],
    measure: Callable[[Tensor], Tensor],
    gaps: dict[int, Tensor],
) -> Tensor:
    """Layers l = first..L from X_first (``params`` holds W_first..W_L): H_l = W_l X_l + b_l,
    ``gaps[l] = measure(H_l)`` (without gradient) for l in ``wanted``, X_{l+1} = ``_block``."""
    for layer, w in enumerate(params.weights, first):
        h = w @ h
        if params.biases is not None:
            h = h + params.biases[layer - first]
        if layer in wanted:
            with torch.no_grad():
                gaps[layer] = measure(h)
        if layer < arch.depth:
            h = _block(h, layer, arch)
    return h


@dataclass
class GradientProfile:
    """One backward pass per run at initialization.

    Attributes:
        log_grad: natural log of ||dLoss / dW_l||_F, shape (R, L + 1), column l = ``fc_l``.
        gaps: {l: psi(H_l)} for the requested layers, each (R,).
        loss: the cross-entropy per run, (R,).
    """

    log_grad: Tensor
    gaps: dict[int, Tensor]
    loss: Tensor


CHUNK_BYTES: dict[str, int] = {"cpu": 2**29}
"""Per device type, the most bytes of autograd state (``graph_bytes``) that one batched forward
and backward of ``gradient_profile`` may hold; more runs go through in chunks. On the CPU a
multi-GB graph of ~1 MB tensors slows every op of the pass down (measured at width = batch = 100,
10 runs: the backward at depth 1000 took 8x its depth-200 time, run by run 5x; forcing glibc to
mmap every block made it linear again but slower, so it is the host allocator, not the
arithmetic). Device types not listed (CUDA's caching allocator) are not chunked."""

_CHUNK_ALIGN = 128
"""Bytes: every chunk but the last holds a number of runs whose per-run blocks (each chunked
weight, activation and logit slice) span a multiple of this, so that each run's blocks keep their
64-byte address alignment (MKL's QR and products give other bits on other alignments: measured)
and their position within the 16-element vector blocks of elementwise ops (sin, tanh)."""


def graph_bytes(arch: Architecture, d_in: int, n: int, d_out: int, dtype: torch.dtype) -> int:
    """An upper estimate of one run's autograd state in ``gradient_profile``: per linear layer
    its weight and gradient and four (width x n) activations (the product's input, the pre-BN
    output and the BN/activation intermediates saved for the backward)."""
    d = arch.width
    per_layer = [d * d_in] + [d * d] * (arch.depth - 1) + [d_out * d]
    return _itemsize(dtype) * (2 * sum(per_layer) + 4 * (arch.depth + 1) * d * n)


def _itemsize(dtype: torch.dtype) -> int:
    return torch.empty((), dtype=dtype).element_size()


def run_chunks(
    runs: Sequence[int],
    arch: Architecture,
    d_in: int,
    n: int,
    d_out: int,
    dtype: torch.dtype,
    device: torch.device,
) -> list[list[int]]:
    """``runs`` in consecutive chunks whose ``graph_bytes`` stay within the device type's
    ``CHUNK_BYTES`` where they can: each chunk but the last has a multiple of the smallest run
    count whose per-run blocks span a multiple of ``_CHUNK_ALIGN`` bytes (at least that many
    runs); one chunk where the device type has no budget."""
    runs = list(runs)
    budget = CHUNK_BYTES.get(device.type)
    if budget is None or not runs:
        return [runs]
    d = arch.width
    step = 1
    for numel in (d * d, d_out * d, d * n, d_out * n):  # W_0 is drawn for all runs at once
        block = numel * _itemsize(dtype)
        step = math.lcm(step, _CHUNK_ALIGN // math.gcd(block, _CHUNK_ALIGN))
    size = budget // graph_bytes(arch, d_in, n, d_out, dtype) // step * step
    size = max(step, size)
    return [runs[i : i + size] for i in range(0, len(runs), size)]


_PARAMETER_CACHE: dict[tuple, tuple] = {}
"""The parameters of ``gradient_profile``'s last network, keyed by what determines them: the
seeding address, the chunks, the layer sizes, the init, bias, dtype and device (not the norm,
activation or gains). Sweeps over activations and gain schedules at one depth (Figs. 6.5, C.1,
C.2) reuse one draw, the same numbers as drawing again (QR and Gaussian draws were a third of
their time). One entry, and only networks within ``CACHE_BYTES``: larger ones are drawn chunk by
chunk as they are used, so that memory stays that of one chunk's graph."""

CACHE_BYTES = 2**28
"""The most bytes of parameters (all runs) that ``_PARAMETER_CACHE`` keeps."""


def _profile_parameters(
    arch: Architecture,
    d_in: int,
    d_out: int,
    experiment_id: str,
    chunks: list[list[int]],
    dtype: torch.dtype,
    device: torch.device,
) -> tuple[tuple[list[Tensor], list[Tensor] | None], Iterable[tuple]]:
    """fc_0's parameters for all runs, and fc_1..fc_L's per chunk of runs, in ``gradient_profile``'s
    order of drawing (every run's W_0 and b_0 first, then chunk by chunk): cached when small
    (``_PARAMETER_CACHE``), else the chunks' parameters are drawn as the iterator is read."""
    key = (experiment_id, tuple(map(tuple, chunks)), arch.depth, arch.width, arch.init)
    key += (arch.bias, d_in, d_out, dtype, device)
    if key in _PARAMETER_CACHE:
        return _PARAMETER_CACHE[key]
    _PARAMETER_CACHE.clear()  # before drawing: never two networks in memory
    runs = [r for chunk in chunks for r in chunk]
    gens = seeding.generators(experiment_id, runs, "weights")
    bgens = seeding.generators(experiment_id, runs, "biases") if arch.bias else None
    first = _layer_parameters(arch, d_in, d_out, gens, bgens, 0, dtype, device, last=0)

    def per_chunk():
        start = 0
        for chunk in chunks:
            part = slice(start, start + len(chunk))
            start += len(chunk)
            yield _layer_parameters(
                arch, d_in, d_out, gens[part], bgens and bgens[part], 1, dtype, device
            )

    sizes = [d_in] + [arch.width] * arch.depth + [d_out]
    numel = sum(a * (b + 1) for a, b in zip(sizes[1:], sizes[:-1], strict=True))
    if len(runs) * numel * _itemsize(dtype) > CACHE_BYTES:
        return first, per_chunk()
    _PARAMETER_CACHE[key] = (first, list(per_chunk()))
    return _PARAMETER_CACHE[key]


def gradient_profile(
    arch: Architecture,
    x: Tensor,
    labels: Tensor,
    experiment_id: str,
    runs: Sequence[int],
    n_classes: int = 10,
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
    gap_layers: Sequence[int] = (),
) -> GradientProfile:
    """log ||grad_{W_l} L||_F for every layer of freshly drawn networks, one per run.

    The loss of run r is ``F.cross_entropy`` (mean over the n samples) of its logits; the runs'
    losses are summed before the single backward pass, which leaves each run's gradients equal
    to those of its own loss. The gradients are those of the authors' ``get_measurements`` in
    training mode (the authors' code), computed in ``dtype`` (float64 by default:
    float32 overflows for sin/tanh near depth 600-1000).

    Layers 1..L go through in chunks of consecutive runs (``run_chunks``), one batched forward
    and backward each, so that the autograd graph stays within ``CHUNK_BYTES`` and the cost is
    linear in depth. Every run draws from its own generators, layer after layer, and its
    arithmetic does not involve the other runs, except where it is batched in a way whose bits
    depend on the batch, and those steps see all runs at once as in one pass: fc_0's products
    with the shared x (H_0 = W_0 X_0 and, in the backward, G_0 X_0^T) and the per-run results'
    last steps (the logs of the gradient norms, psi from the Gram matrices, the loss from the
    logits; ``_first_layer``, ``_profile_result``). Chunks keep each run's blocks at their
    alignment (``_CHUNK_ALIGN``). On one thread (the DAG's) the result is then bit for bit that
    of one pass over all runs (tested against the unchunked pass at every configured setting);
    on several threads torch splits an op between threads at points that depend on its size,
    with or without chunks.

    Args:
        arch: the network.
        x: the batch, shape (D, n) with samples as columns.
        labels: int64 class indices, shape (n,).
        experiment_id, runs: the weights' ``seeding`` address.
        n_classes: C, the read-out's width.
        dtype, device: compute precision and device.
        gap_layers: see ``forward``.
    """
    x, labels, device = _profile_inputs(arch, x, labels, runs, n_classes, dtype, device, gap_layers)
    d_in, n = x.shape
    wanted = set(gap_layers)
    chunks = run_chunks(runs, arch, d_in, n, n_classes, dtype, device)
    (w0, b0), chunk_parameters = _profile_parameters(
        arch, d_in, n_classes, experiment_id, chunks, dtype, device
    )
    w0, h0, grams = _first_layer(w0, b0, x, wanted)
    norms: list[list[Tensor]] = [[] for _ in range(arch.depth + 1)]
    g0, logits = _chunk_passes(h0, chunks, chunk_parameters, arch, labels, wanted, norms, grams)
    (grad_w0,) = torch.autograd.grad(h0, w0, grad_outputs=torch.cat(g0))
    norms[0].append(torch.linalg.matrix_norm(grad_w0))
    return _profile_result(norms, grams, logits, labels)


def _profile_inputs(
    arch: Architecture,
    x: Tensor,
    labels: Tensor,
    runs: Sequence[int],
    n_classes: int,
    dtype: torch.dtype,
    device: str | torch.device,
    gap_layers: Sequence[int],
) -> tuple[Tensor, Tensor, torch.device]:
    """``gradient_profile``'s batch on its device (x in ``dtype``) and the device, after a
    ValueError for a mis-shaped batch, a gap layer outside 0..L, no runs or an empty layer."""
    if x.dim() != 2 or labels.shape != (x.shape[1],):
        raise ValueError(
            f"x must be (D, n) and labels (n,), got {tuple(x.shape)}, {tuple(labels.shape)}"
        )
    device = torch.device(device)
    x = x.to(device, dtype)
    labels = labels.to(device)
    _check_gap_layers(arch, gap_layers)
    if not runs:
        raise ValueError("runs must not be empty")
    d_in = x.shape[0]
    if d_in < 1 or n_classes < 1:
        raise ValueError(f"d_in and d_out must be >= 1, got {d_in}, {n_classes}")
    return x, labels, device


def _first_layer(
    w0: Tensor, b0: Tensor | None, x: Tensor, wanted: set[int]
) -> tuple[Tensor, Tensor, dict[int, list[Tensor]]]:
    """fc_0 on all runs at once: W_0 (now requiring its gradient), H_0 = W_0 X_0 + b_0 and
    {0: [Gram of H_0]} if layer 0 is ``wanted`` (else {}).

    Its products with the shared x (H_0 = W_0 X_0 and, in the backward, G_0 X_0^T) have other
    bits on other run counts (measured at width 4), so H_0 and dLoss/dW_0 come from one autograd
    graph over all runs, as in one pass: the chunks start from their slices of H_0 and return
    G_0 = dLoss/dH_0, fed back through that graph (``gradient_profile``).
    """
    w0 = w0[0].requires_grad_(True)
    h0 = w0 @ x if b0 is None else w0 @ x + b0[0]
    if 0 in wanted:
        with torch.no_grad():
            grams = {0: [gram_isometry.gram(h0)]}
    else:
        grams = {}
    return w0, h0, grams


def _chunk_passes(
    h0: Tensor,
    chunks: list[list[int]],
    chunk_parameters: Iterable[tuple],
    arch: Architecture,
    labels: Tensor,
    wanted: set[int],
    norms: list[list[Tensor]],
    grams: dict[int, list[Tensor]],
) -> tuple[list[Tensor], list[Tensor]]:
    """Layers 1..L chunk by chunk (``_chunk_pass``) from the chunks' slices of H_0: appends
    ||dLoss/dW_l||_F (l = 1..L) to ``norms[l]`` and the Gram of H_l (l ``wanted``) to
    ``grams[l]``; returns each chunk's G_0 = dLoss/dH_0 and detached logits."""
    g0, logits = [], []
    start = 0
    for chunk, (weights, biases) in zip(chunks, chunk_parameters, strict=True):
        part = slice(start, start + len(chunk))
        start += len(chunk)
        grad_h0, grads, gaps, out = _chunk_pass(h0[part], weights, biases, arch, labels, wanted)
        g0.append(grad_h0)
        for layer, g in enumerate(grads, 1):
            norms[layer].append(torch.linalg.matrix_norm(g))
        for layer, gram in gaps.items():
            grams.setdefault(layer, []).append(gram)
        logits.append(out)
        del weights, biases, grads  # a chunk drawn on the fly is freed here
    return g0, logits


def _chunk_pass(
    h0_part: Tensor,
    weights: list[Tensor],
    biases: list[Tensor] | None,
    arch: Architecture,
    labels: Tensor,
    wanted: set[int],
) -> tuple[Tensor, list[Tensor], dict[int, Tensor], Tensor]:
    """One chunk's forward from its (detached) slice of H_0 through X_1 = ``_block``(H_0) and
    layers 1..L, and one backward of its runs' summed cross-entropy (mean over the n samples).

    Returns:
        G_0 = dLoss/dH_0 of the slice, [dLoss/dW_l for l = 1..L], {l: Gram of H_l} for the
        ``wanted`` layers, and the logits (detached).
    """
    for w in weights:
        w.requires_grad_(True)
    h0_part = h0_part.detach().requires_grad_(True)
    gaps = {}
    out = _layers(
        _block(h0_part, 0, arch),
        Parameters(weights, biases),
        arch,
        1,
        wanted,
        gram_isometry.gram,
        gaps,
    )
    target = labels.expand(len(out), -1)
    loss = F.cross_entropy(out, target, reduction="none").mean(-1)
    grad_h0, *grads = torch.autograd.grad(loss.sum(), [h0_part, *weights])
    return grad_h0, grads, gaps, out.detach()


def _profile_result(
    norms: list[list[Tensor]],
    grams: dict[int, list[Tensor]],
    logits: list[Tensor],
    labels: Tensor,
) -> GradientProfile:
    """The per-run results' last steps on all runs at once: the logs of the gradient norms,
    psi (Thesis Eq. (6.5)) from the Gram matrices and the loss from the logits."""
    log_grad = torch.stack([torch.cat(norm).log() for norm in norms], dim=-1)
    gaps = {layer: gram_isometry.isometry_gap(torch.cat(grams[layer])) for layer in sorted(grams)}
    logits = torch.cat(logits)
    loss = F.cross_entropy(logits, labels.expand(len(logits), -1), reduction="none").mean(-1)
    return GradientProfile(log_grad, gaps, loss)
