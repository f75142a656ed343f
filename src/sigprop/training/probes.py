"""Probes of a network's last hidden representation on a fixed batch, during training.

Dan+20 Figs. 1, 5, 6: the numerical rank (footnote 2) and the lower bound on rank r(H)
(Eq. (4)) of H_L; the seeds' H is (d, N), the transpose of torch's (N, d) activations.
"""

from __future__ import annotations

import torch
from torch import Tensor

from .. import metrics

__all__ = ["PROBES", "last_hidden_probes"]

PROBES = {
    "rank": metrics.numerical_rank,
    "r_lower_bound": metrics.rank_lower_bound,
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
