"""The BN MLP of Thesis ch. 6 at initialization, batched over independent runs.

Thesis Eq. (6.3) with the activation shaping of Eq. (6.11), in sigprop's layout (samples are
columns, leading dimension = run):

    X_0 = x (D x n),   H_l = W_l X_l + b_l,   X_{l+1} = act(alpha_l * BN(H_l)),   l = 0..L-1,
    logits = W_L X_L + b_L (C x n),   loss = cross-entropy, mean over the n samples.

Layers are numbered as in the authors' code: ``fc_0`` is the D -> d input
projection, ``fc_1 .. fc_{L-1}`` are the d x d hidden layers and ``fc_L`` the d -> C read-out;
"the gradient of the first layer" of Figs. 6.2, 6.3, 6.5 and C.9 is that of ``fc_1`` (Fig. C.10:
``fc_0``). The gain is alpha_l = gain * (l + 1)^(-gain_exponent), so ``fc_0``'s block has
alpha_0 = gain (Eq. (6.11)). BN is one of ``ops``'s normalizations (``NORMS``), applied per row
(neuron) across the n samples.

Weights: Haar orthogonal (semi-orthogonal rows or columns for the rectangular ends, as
``torch.nn.init.orthogonal_`` with gain 1) or ``xavier_normal_`` N(0, 2 / (fan_in + fan_out)).
Run r's weights come from its own generator ``seeding.generator(experiment_id, r, "weights")``
layer after layer, so a run is reproducible alone; the QR factorizations are batched over runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor

from ... import data, isometry, ops, seeding

__all__ = [
    "INITS",
    "NORMS",
    "Architecture",
    "GradientProfile",
    "Parameters",
    "forward",
    "gaussian_weights",
    "gradient_profile",
    "haar_from_gaussian",
    "haar_weights",
    "init_parameters",
    "input_batch",
    "representation_gap",
]

NORMS: dict[str, Callable[[Tensor], Tensor]] = {
    "bn_unit": ops.bn_unit,
    "bn_rms": ops.bn_rms,
    "bn_centered": ops.bn_centered,
    "batch_norm_torch": ops.batch_norm_torch,
}
"""The BN variants of the ch. 6 figures (Thesis Sec. 6.3): theory BN = Eq. (6.4) with factor
1 (``bn_unit``), theory BN x sqrt(n) (``bn_rms``), mean-reduced BN x sqrt(n) (``bn_centered``) and
PyTorch ``BatchNorm1d`` in training mode at initialization (``batch_norm_torch``)."""

INITS = ("orthogonal", "gaussian")
"""Weight laws: Haar (semi-)orthogonal, or xavier_normal (Fig. 6.3's "Normal")."""


@dataclass(frozen=True)
class Architecture:
    """One network of Eq. (6.3)/(6.11): depth L (BN layers; L + 1 linear layers), width d.

    Attributes:
        depth: L >= 1.
        width: d, also the number of rows of every BN.
        norm: a key of ``NORMS``.
        activation: a key of ``ops.ACTIVATIONS`` (``linear`` = identity, ``tanh``, ``sin``).
        init: ``orthogonal`` or ``gaussian``.
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
        if self.norm not in NORMS:
            raise ValueError(f"norm must be one of {sorted(NORMS)}, got {self.norm!r}")
        if self.init not in INITS:
            raise ValueError(f"init must be one of {list(INITS)}, got {self.init!r}")
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


def _draws(
    gens: Sequence[torch.Generator], shape: tuple[int, ...], dtype: torch.dtype, device
) -> Tensor:
    """One standard Gaussian block per run, each from its own generator, stacked."""
    return torch.stack([torch.randn(shape, generator=g, dtype=dtype, device=device) for g in gens])


def haar_from_gaussian(g: Tensor) -> Tensor:
    """Q of the QR factorization of a (batch of) tall Gaussian matrix g (..., rows >= cols), with
    the signs of diag(R) moved into Q: Haar on the Stiefel manifold, as ``nn.init.orthogonal_``.

    Without the sign fix Q is not Haar (LAPACK's R has a sign convention). Shape unchanged.
    """
    q, r = torch.linalg.qr(g)
    return q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)


def haar_weights(
    gens: Sequence[torch.Generator], rows: int, cols: int, dtype: torch.dtype, device
) -> Tensor:
    """Haar (semi-)orthogonal (rows x cols) matrices, one per generator: Q of the QR of a Gaussian
    with the signs of diag(R) fixed, as ``torch.nn.init.orthogonal_``.

    rows <= cols gives orthonormal rows, rows >= cols orthonormal columns; shape (runs, rows, cols).
    """
    tall = rows >= cols
    q = haar_from_gaussian(_draws(gens, (rows, cols) if tall else (cols, rows), dtype, device))
    return q if tall else q.mT


def gaussian_weights(
    gens: Sequence[torch.Generator], rows: int, cols: int, dtype: torch.dtype, device
) -> Tensor:
    """``xavier_normal_`` with gain 1: i.i.d. N(0, 2 / (rows + cols)), shape (runs, rows, cols)."""
    return _draws(gens, (rows, cols), dtype, device) * math.sqrt(2.0 / (rows + cols))


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
    gens = seeding.generators(experiment_id, list(runs), "weights", device)
    draw = haar_weights if arch.init == "orthogonal" else gaussian_weights
    sizes = [d_in] + [arch.width] * arch.depth + [d_out]
    weights = [
        draw(gens, out, inp, dtype, device) for inp, out in zip(sizes[:-1], sizes[1:], strict=True)
    ]
    biases = None
    if arch.bias:
        bgens = seeding.generators(experiment_id, list(runs), "biases", device)
        biases = []
        for inp, out in zip(sizes[:-1], sizes[1:], strict=True):
            u = torch.stack(
                [torch.rand((out, 1), generator=g, dtype=dtype, device=device) for g in bgens]
            )
            biases.append((2 * u - 1) / math.sqrt(inp))
    return Parameters(weights, biases)


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

    ``isometry.isometry_gap(isometry.gram(h))``; inf for a rank-deficient h (e.g. after mean
    reduction, Thesis Eq. (6.4)). Shape (..., d, n) -> (...).
    """
    return isometry.isometry_gap(isometry.gram(h))


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
    bad = [k for k in gap_layers if not 0 <= k <= arch.depth]
    if bad:
        raise ValueError(f"gap_layers {bad} outside 0..{arch.depth}")
    norm, gains, wanted = NORMS[arch.norm], arch.gains(), set(gap_layers)
    gaps: dict[int, Tensor] = {}
    h = x
    for layer, w in enumerate(params.weights):
        h = w @ h
        if params.biases is not None:
            h = h + params.biases[layer]
        if layer in wanted:
            with torch.no_grad():
                gaps[layer] = representation_gap(h)
        if layer < arch.depth:
            alpha = gains[layer]
            h = norm(h)
            h = arch.act(h * alpha if alpha != 1.0 else h)
    return h, gaps


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

    Args:
        arch: the network.
        x: the batch, shape (D, n) with samples as columns.
        labels: int64 class indices, shape (n,).
        experiment_id, runs: the weights' ``seeding`` address.
        n_classes: C, the read-out's width.
        dtype, device: compute precision and device.
        gap_layers: see ``forward``.
    """
    if x.dim() != 2 or labels.shape != (x.shape[1],):
        raise ValueError(
            f"x must be (D, n) and labels (n,), got {tuple(x.shape)}, {tuple(labels.shape)}"
        )
    device = torch.device(device)
    x = x.to(device, dtype)
    labels = labels.to(device)
    params = init_parameters(arch, x.shape[0], n_classes, experiment_id, runs, dtype, device)
    for w in params.weights:
        w.requires_grad_(True)
    logits, gaps = forward(params, x, arch, gap_layers)
    target = labels.expand(len(runs), -1)
    loss = F.cross_entropy(logits, target, reduction="none").mean(-1)
    grads = torch.autograd.grad(loss.sum(), params.weights)
    log_grad = torch.stack([torch.linalg.matrix_norm(g).log() for g in grads], dim=-1)
    return GradientProfile(log_grad.detach(), gaps, loss.detach())
