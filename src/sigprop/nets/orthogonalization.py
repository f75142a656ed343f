"""Iterative orthogonalization and the other orthogonalizing transforms of DJB21 (Thesis Sec. 2.4,
App. A.4-A.5), applied to initialized networks.

- ``orthogonalizing_weight`` / ``iterative_orthogonalization``: DJB21 Eq. (6) (Thesis Eq. (2.6)),
  in the variant of the authors' MLP code (``"code"``, their ``improved_init``) or of the paper
  (``"paper"``, Eq. (6) with our fix of the text after it, which calls a slice of V orthogonal).
- ``orthogonalizing_conv_weight`` / ``iterative_conv_orthogonalization``: the same for the
  square convolutions of a conv net, DJB21 App. G, Eq. (21), as the authors' conv code.
- ``orthogonal_weights``: the orthogonal-weights baseline of Thesis App. A.5 (i).
- ``whitening``: the whitening remark after DJB21 Thm. 1 (M^{-1} in place of diag(M)^{-1} in BN).

The weights they start from are drawn by ``nets.initializations`` (DJB21's code: ``xavier_relu``).
Layouts: the matrix functions use the papers' layout h of shape (..., d, n) (columns are samples);
the model functions take batches as the model consumes them, shape (n, features) (rows are
samples, the transpose). Everything works on CPU and CUDA, in the tensors' dtype.
"""

from __future__ import annotations

import logging
import math

import torch
from torch import Tensor, nn

from .initializations import linear_layers

log = logging.getLogger(__name__)

__all__ = [
    "VARIANTS",
    "hidden_representations",
    "iterative_conv_orthogonalization",
    "iterative_orthogonalization",
    "orthogonal_weights",
    "orthogonalizing_conv_weight",
    "orthogonalizing_weight",
    "whitening",
]

VARIANTS = ("code", "paper", "paper_sliced")
"""Iterative orthogonalization: the authors' MLP code (exponent -1), DJB21 Eq. (6) (-1/2) with an
orthogonal Q, or Eq. (6) as printed with the non-orthogonal sliced V' (kept as a control)."""


def _rank_mask(sigma: Tensor, d: int, n: int) -> Tensor:
    """sigma_i > sigma_max max(d, n) eps: the rank rule of ``torch.linalg.matrix_rank``.

    Below it a singular value is round-off and its inverse is not determined by the data.

    Raises:
        ValueError: for H = 0 (no direction at all).
    """
    if not bool((sigma[..., 0] > 0).all()):
        raise ValueError("H is zero (e.g. every ReLU unit dead on the batch): nothing to invert")
    return sigma > sigma[..., :1] * max(d, n) * torch.finfo(sigma.dtype).eps


def _polar(a: Tensor) -> Tensor:
    """The orthogonal polar factor P of a square A = P S (nearest orthogonal matrix), batched."""
    u, _, vh = torch.linalg.svd(a)
    return u @ vh


def orthogonalizing_weight(h: Tensor, variant: str = "code") -> Tensor:
    """The weight W_l of iterative orthogonalization from H_l = U Sigma V^T, DJB21 Eq. (6).

    ``"code"`` (``improved_init`` of the authors' public code): W = V' Sigma^{-1} U^T
    with V' the first d rows of V (``u[0:d, 0:d]`` in the code's transposed layout), so that
    W H = V' V^T up to scale. Needs n >= d (Sigma is d x d and invertible).

    ``"paper"`` (Eq. (6) as printed, V' made orthogonal, our fix): W = Q Sigma^{-1/2} U^T, so
    W H = Q Sigma^{1/2} V^T. The paper's "orthogonal V' obtained by slicing V" is not orthogonal
    in general (a d x d slice of an n x d matrix with orthonormal columns); we take Q = the
    orthogonal polar factor of that slice (the nearest orthogonal matrix) when n >= d, and
    Q = [V; 0] in R^{d x n} (orthonormal columns) when n < d. Then the normalized squared
    spectrum of W H is sigma_i / sum_j sigma_j (App. E, Thesis App. A.4).

    ``"paper_sliced"``: Eq. (6) as printed, Q = V' the first d rows of V (not orthogonal when
    n > d), our control showing that App. E needs an orthogonal Q (App. E assumes V' orthogonal).

    Both are scaled to ||W H||_F = 1: the code divides by ||layer(H)||_F, the paper by
    ||Sigma^{1/2}||_F, which is the same number for the paper's W.

    Note: if H is rank deficient (a ReLU unit dead on the whole batch gives a zero row), the
    inverse powers of Sigma are taken as pseudo-inverses: singular values below the rank rule
    of ``torch.linalg.matrix_rank`` (sigma_max max(d, n) eps) are dropped, so W H = V'_r V_r^T
    on the numerical rank r. The authors' code would divide by a round-off singular value.

    Args:
        h: H_l, shape (..., d, n), columns are the n samples; rank min(d, n).
        variant: one of ``VARIANTS``.
    Returns:
        W_l, shape (..., d, d), in h's dtype and device.
    Raises:
        ValueError: unknown variant; n < d for the code variant; H = 0.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    d, n = h.shape[-2:]
    if variant == "code" and n < d:
        raise ValueError(
            f"the code variant W = V' Sigma^{{-1}} U^T needs a d x d invertible Sigma, i.e. a "
            f"batch of n >= d samples; got n={n} < d={d} (the authors use n = 3 d)"
        )
    u, sigma, vh = torch.linalg.svd(h, full_matrices=False)  # u (d, k), vh (k, n), k = min(d, n)
    kept = _rank_mask(sigma, d, n)
    safe = torch.where(kept, sigma, torch.ones_like(sigma))
    v = vh.mT  # (n, k)
    if variant == "code":
        w = v[..., :d, :] * torch.where(kept, safe.reciprocal(), 0.0)[..., None, :] @ u.mT
    else:
        if n >= d:
            q = v[..., :d, :] if variant == "paper_sliced" else _polar(v[..., :d, :])
        else:
            q = torch.cat([v, v.new_zeros(*v.shape[:-2], d - n, n)], dim=-2)
        w = q * torch.where(kept, safe.rsqrt(), 0.0)[..., None, :] @ u.mT
    return w / torch.linalg.matrix_norm(w @ h)[..., None, None]


@torch.no_grad()
def iterative_orthogonalization(
    model: nn.Sequential, batch: Tensor, variant: str = "code"
) -> nn.Sequential:
    """Iterative orthogonalization of a Sequential MLP in place, DJB21 Sec. 5.2 and Eq. (6).

    The authors' ``improved_init`` (their public code; DJB21 does not print it): forward
    ``batch`` layer by layer; the input layer and the output layer keep their (Xavier) weights;
    every Linear layer in between gets W_l = ``orthogonalizing_weight(H_l, variant)`` from its
    own input H_l (the representation after the previous layers, already re-initialized), and
    the forward pass continues with the new weight. The code uses n = 3 width samples.

    Args:
        model: ``nn.Sequential`` whose hidden Linear layers are square and bias-free
            (e.g. ``nets.djb21.relu_mlp``), with weights already initialized.
        batch: the initialization batch, shape (n, d_in), rows are samples (torch layout).
        variant: one of ``VARIANTS`` (see ``orthogonalizing_weight``).
    Returns:
        the model.
    Raises:
        ValueError: unknown variant; a hidden layer that is not square or has a bias; n < width
            for the code variant; a representation that is all zero.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    layers = linear_layers(model)
    hidden = layers[1:-1]
    for layer in hidden:
        if layer.in_features != layer.out_features or layer.bias is not None:
            raise ValueError(
                "iterative orthogonalization needs square bias-free hidden layers, got "
                f"{layer} (the code's MLP: Linear(width -> width, bias=False))"
            )
    if variant == "code" and hidden and batch.shape[0] < hidden[0].in_features:
        raise ValueError(
            f"the code variant needs an initialization batch of n >= width samples; got "
            f"n={batch.shape[0]} < width={hidden[0].in_features} (the authors use n = 3 width)"
        )
    targets = {id(layer) for layer in hidden}
    x = batch.to(device=layers[0].weight.device, dtype=layers[0].weight.dtype)
    for index, module in enumerate(model):
        if id(module) in targets:
            dead = int((x == 0).all(dim=0).sum())
            if dead:
                log.info(
                    "module %d: %d units are zero on the whole batch (pseudo-inverse)", index, dead
                )
            w = orthogonalizing_weight(x.mT, variant)
            module.weight.copy_(w)
        x = module(x)
    return model


def _conv_patches(x: Tensor, conv: nn.Conv2d) -> Tensor:
    """unfold(H) of DJB21 Eq. (21) in the papers' layout: (C k k, N P), one column per sample
    and position (the patches the convolution multiplies)."""
    patches = nn.functional.unfold(
        x, conv.kernel_size, dilation=conv.dilation, padding=conv.padding, stride=conv.stride
    )  # (N, C k k, P)
    return patches.permute(1, 0, 2).reshape(patches.shape[1], -1)


def orthogonalizing_conv_weight(x: Tensor, conv: nn.Conv2d) -> Tensor:
    """The weight of a convolution with c = ``conv.out_channels`` filters from its input x,
    DJB21 App. G: Eq. (6) on the unfolded input H' = unfold(H) = U Sigma V^T (Eq. (21)), as the
    authors' conv code (``novel_initialization``; the paper gives the formula only):
    W = V'_c Sigma_c^{-1/2} U_c^T with U_c, Sigma_c the top c singular directions and values
    and V'_c the first c rows of V's first c columns (a slice, as in the paper), reshaped to the
    convolution's (c, C, k, k) and scaled to ||conv(x)||_F = 1 (bias 0). Singular values below
    ``torch.linalg.matrix_rank``'s tolerance are dropped (pseudo-inverse), as in
    ``orthogonalizing_weight``.

    Args:
        x: the convolution's input (N, C, H, W). conv: a bias-free or zero-bias Conv2d with
            c <= min(C k k, N P).
    """
    h = _conv_patches(x, conv)
    d, n = h.shape
    c = conv.out_channels
    if c > min(d, n):
        raise ValueError(f"{conv}: {c} filters exceed the rank min({d}, {n}) of its patches")
    u_c, sigma, vh_c = _leading_singular(h, c)
    kept = _rank_mask(sigma.to(h.dtype), d, n)[:c]
    inverse_root = torch.where(kept, torch.where(kept, sigma[:c], 1.0).rsqrt(), 0.0)
    w = (vh_c.mT * inverse_root[None, :] @ u_c.mT).to(h.dtype).reshape(conv.weight.shape)
    out = nn.functional.conv2d(x, w, None, conv.stride, conv.padding, conv.dilation)
    return w / torch.linalg.vector_norm(out)


def _leading_singular(h: Tensor, c: int) -> tuple[Tensor, Tensor, Tensor]:
    """U_c, Sigma and the leading c x c block of V_c^T of H = U Sigma V^T (d x n), as much of the
    SVD as ``orthogonalizing_conv_weight`` reads; signs of a singular pair are arbitrary (W
    does not see them). A wide float32 H (d <= n, the unfolded input of a convolution) goes
    through the eigendecomposition of H H^T = U Sigma^2 U^T in float64 and V_c^T = Sigma_c^-1
    U_c^T H: faster than the thin SVD, which forms all d x n of V^T (DJB21 Fig. 7's quick
    simulation 61 -> 34 s, bench/README "Engine"), and more accurate
    (float32 products are exact in float64, so Sigma is off by ~1e-16 sigma_max^2 / sigma, below
    the float32 SVD's ~1e-7 sigma_max). Otherwise the thin SVD. Results in float64 then."""
    d, n = h.shape
    if h.dtype != torch.float32 or d > n:
        u, sigma, vh = torch.linalg.svd(h.double(), full_matrices=False)
        return u[:, :c], sigma, vh[:c, :c]
    wide = h.double()
    eigenvalues, u = torch.linalg.eigh(wide @ wide.mT)  # ascending
    sigma = eigenvalues.flip(-1).clamp_min(0.0).sqrt()
    u_c = u.flip(-1)[:, :c]
    safe = torch.where(sigma[:c] > 0, sigma[:c], 1.0)
    return u_c, sigma, (u_c.mT @ wide[:, :c]) / safe[:, None]


@torch.no_grad()
def iterative_conv_orthogonalization(model: nn.Sequential, batch: Tensor) -> nn.Sequential:
    """DJB21 App. G (Fig. 7): forward ``batch`` module by module through ``model`` (a flat
    Sequential: convolutions, pooling, activations, ...); every Conv2d with as many input as
    output channels gets ``orthogonalizing_conv_weight`` from its own input (the authors' code:
    the 256 -> 256 convolutions), the others keep their weights. In place; returns ``model``."""
    x = batch.to(device=batch.device, dtype=next(model.parameters()).dtype)
    for module in model:
        if isinstance(module, nn.Conv2d) and module.in_channels == module.out_channels:
            module.weight.copy_(orthogonalizing_conv_weight(x, module))
            if module.bias is not None:
                module.bias.zero_()
        x = module(x)
    return model


@torch.no_grad()
def orthogonal_weights(model: nn.Module) -> nn.Module:
    """W_l = U diag(s) V^T -> mean(s) U V^T for every Linear layer, Thesis App. A.5 (i).

    The orthogonal-weights baseline: each weight keeps its singular vectors and the mean of its
    singular values, so all its singular values are equal (a scaled (partial) isometry; for the
    rectangular input and output layers U V^T has orthonormal rows or columns). Modifies
    ``model`` in place and returns it.
    """
    for layer in linear_layers(model):
        u, s, vh = torch.linalg.svd(layer.weight, full_matrices=False)
        layer.weight.copy_(s.mean() * (u @ vh))
    return model


@torch.no_grad()
def hidden_representations(
    model: nn.Sequential, batch: Tensor
) -> tuple[list[Tensor], list[Tensor]]:
    """Pre-activations W_l H_l and representations H_l of a Sequential MLP, papers' layout.

    Args:
        model: Linear / activation Sequential (e.g. ``nets.djb21.relu_mlp``).
        batch: shape (n, d_in), rows are samples.
    Returns:
        (pre, post): ``pre[l]`` = W_l H_l for every Linear layer l = 0..depth-1, and ``post[l]``
        = H_l, the input of Linear layer l (``post[0]`` is the batch), each of shape
        (features, n) (columns are samples).
    """
    pre, post = [], []
    x = batch
    for module in model:
        if isinstance(module, nn.Linear):
            post.append(x.mT)
            x = module(x)  # each layer once: the pre-activation is the next module's input
            pre.append(x.mT)
        else:
            x = module(x)
    return pre, post


def whitening(h: Tensor) -> Tensor:
    """Full whitening M^{-1/2} H / sqrt(k), M = H H^T, k = min(d, n): DJB21 remark after Thm. 1.

    The paper: "if we replace diag(M)^{-1} by M^{-1} in BN [Eq. (1)], all the hidden
    representations become exactly orthogonal". With H = U Sigma V^T (reduced, k = min(d, n))
    and M^{-1/2} the pseudo-inverse square root (M is singular when d > n), the result is
    U V^T / sqrt(k): unit Frobenius norm like ``ops.bn_rms_scaled``, and every nonzero singular
    value equal, so V = 0 when n <= d and V = sqrt((n - d) / (n d)), the rank floor, when n > d.

    Args:
        h: shape (..., d, n) of rank min(d, n).
    Raises:
        ValueError: rank-deficient h (M^{-1/2} undefined on the samples' span), or h = 0.
    """
    d, n = h.shape[-2:]
    u, sigma, vh = torch.linalg.svd(h, full_matrices=False)
    if not bool(_rank_mask(sigma, d, n).all()):
        raise ValueError(
            f"H (d={d}, n={n}) is rank deficient: whitening needs rank min(d, n) = {min(d, n)}"
        )
    return u @ vh / math.sqrt(min(d, n))
