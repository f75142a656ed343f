"""Probes of a network's last hidden representation on a fixed batch, during training.

Dan+20 Figs. 1, 5, 6: the numerical rank (footnote 2) and the lower bound on rank r(H)
(Eq. (4)) of H_L; the seeds' H is (d, N), the transpose of torch's (N, d) activations.
"""

from __future__ import annotations

from torch import Tensor

from .. import metrics

__all__ = ["PROBES", "last_hidden_probes"]

PROBES = {
    "rank": metrics.numerical_rank,
    "r_lower_bound": metrics.rank_lower_bound,
}
"""Probe name -> function of H (..., d, N)."""


def last_hidden_probes(activations: Tensor, names=tuple(PROBES)) -> dict[str, Tensor]:
    """Each probe of H_L = ``activations``^T; activations (..., N, d) -> {name: (...)}."""
    h = activations.detach().mT
    return {name: PROBES[name](h) for name in names}
