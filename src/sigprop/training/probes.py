"""Probes of a network's last hidden representation on a fixed batch, during training.

Dan+20 Figs. 1, 5, 6: the numerical rank (footnote 2) and the lower bound on rank r(H)
(Eq. (4)) of H_L; DJB21 Figs. 3, 4: the orthogonality gap V(H_L) (Eq. (2)); the seeds' H is
(d, N), the transpose of torch's (N, d) activations.
Dan+20 Fig. 10, Prop. 19: the alignment of the per-sample gradients of the classification
layer W_{L+1} (Eq. (95)-(97)), which needs the read-out and the labels as well.
Thesis Figs. 6.6, C.3, C.4 (app. C.6): per-layer probes of every Linear layer, the isometry gap
of its weights and the Frobenius norm of the loss gradient on the probe batch (``LAYER_PROBES``).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.func import grad, vmap

from ..engine import gram_isometry, metrics

__all__ = [
    "GRADIENT_PROBES",
    "LAYER_PROBES",
    "linear_weight_names",
    "weight_isometry_gaps",
    "PROBES",
    "gradient_alignment",
    "last_hidden_probes",
    "readout_gradients",
]

PROBES = {
    "rank": metrics.numerical_rank,
    "r_lower_bound": metrics.rank_lower_bound,
    "orthogonality_gap": metrics.orthogonality_gap,
}
"""Probe name -> function of H (..., d, N)."""


def last_hidden_probes(activations: Tensor, names=tuple(PROBES)) -> dict[str, Tensor]:
    """Each probe of H_L = ``activations``^T; activations (R, N, d) -> {name: (R,)}.

    A run whose H_L is not finite (it diverged) gets NaN for every probe: its rank is undefined,
    neither full nor collapsed, and the other runs are probed as usual."""
    h = activations.detach().mT
    finite = torch.isfinite(h).flatten(1).all(-1)
    safe = torch.where(finite.view(-1, 1, 1), h, torch.zeros((), dtype=h.dtype, device=h.device))
    nan = torch.tensor(float("nan"), dtype=h.dtype, device=h.device)
    return {name: torch.where(finite, PROBES[name](safe), nan) for name in names}


GRADIENT_PROBES = ("gradient_alignment",)
"""Probes of the read-out's per-sample gradients (``gradient_alignment``)."""


def readout_gradients(weight: Tensor, bias: Tensor, h: Tensor, y: Tensor) -> Tensor:
    """Per-sample gradients of the cross-entropy L_i w.r.t. the classification layer W_{L+1}
    (``weight`` (C, d), ``bias`` (C,)) at features h (N, d) and labels y (N,), by
    ``torch.func``: (N, C, d); row k of sample i is (grad l_i)_k h_i (Dan+20 Eq. (97))."""

    def loss(w: Tensor, hi: Tensor, yi: Tensor) -> Tensor:
        return F.cross_entropy((hi @ w.mT + bias).unsqueeze(0), yi.unsqueeze(0))

    return vmap(grad(loss), in_dims=(None, 0, 0))(weight, h, y)


def gradient_alignment(weight: Tensor, bias: Tensor, h: Tensor, y: Tensor) -> Tensor:
    """Dan+20 Fig. 10's "gradient alignment" (the seed gives no formula; ours): for each neuron
    k of the classification layer, the mean |cos| between the per-sample gradients of row k
    over distinct pairs of samples (``metrics.mean_abs_cosine``), averaged over k. Prop. 19:
    exactly 1 when H_L has rank one. NaN if h is not finite (a diverged run)."""
    grads = readout_gradients(weight, bias, h, y)  # (N, C, d)
    return metrics.mean_abs_cosine(grads.permute(1, 2, 0)).mean()


LAYER_PROBES = ("weight_isometry_gap", "gradient_norm")
"""Per-layer probes of every ``nn.Linear`` (module order), each (R, layers) per log point:
``weight_isometry_gap`` (``gram_isometry.weight_isometry_gap`` of W_l, Thesis Figs. 6.6a, C.3) and
``gradient_norm`` (||dLoss/dW_l||_F on the probe batch, Figs. 6.6b, C.4)."""


def linear_weight_names(model: nn.Module) -> list[str]:
    """Parameter names of the weights of ``model``'s ``nn.Linear`` layers, in module order
    (W_0 .. W_L of an MLP: the input projection first, the read-out last)."""
    return [f"{name}.weight" for name, m in model.named_modules() if isinstance(m, nn.Linear)]


def weight_isometry_gaps(weights: list[Tensor]) -> Tensor:
    """``gram_isometry.weight_isometry_gap`` of each stacked weight (R, out, in), in float64:
    (R, layers). A run whose weight is not finite (it diverged) gets NaN there."""
    out = []
    for w in weights:
        w = w.detach().double()
        finite = torch.isfinite(w).flatten(1).all(-1)
        eye = torch.eye(*w.shape[1:], dtype=w.dtype, device=w.device)
        safe = torch.where(finite.view(-1, 1, 1), w, eye)
        gap = gram_isometry.weight_isometry_gap(safe)
        out.append(torch.where(finite, gap, torch.full_like(gap, float("nan"))))
    return torch.stack(out, dim=-1)
