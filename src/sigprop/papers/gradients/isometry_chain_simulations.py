"""Simulation of Thesis Fig. 6.1 (Thm. 6.1): isometry gap of the BN chain with Haar weights."""

from __future__ import annotations

import torch

from ...base.store import Labelled
from ...engine import seeding
from ...engine.devices import resolve_device
from . import isometry_decay

__all__ = ["isometry_chain"]


def isometry_chain(
    widths: list[int],
    depth: int,
    n_runs: int,
    input_fraction: float,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """psi(X_l), l = 0..depth, of X_{l+1} = BN(W_l X_l) (Thesis Eq. (6.3)), W_l Haar, for d = n.

    Fig. 6.1 protocol (authors' "Isometry gap" notebook): identity
    activation, theory BN (Eq. (6.4), ``ops.bn_unit``), float64, input X_0 = (1 - f) I + f u v^T
    (``isometry_decay.near_identity_input``), drawn once per width (stream
    ``(experiment_id.d<d>, 0, "input")``) and shared by the runs; the weights of run r come from
    ``(experiment_id.d<d>, r, "weights")``.

    Returns:
        ``psi`` over dims (width, run, layer).
    """
    device = resolve_device(device)
    runs = list(range(n_runs))
    gaps = []
    for d in widths:
        stream = f"{experiment_id}.d{d}"
        x0 = isometry_decay.near_identity_input(
            d, input_fraction, seeding.generator(stream, 0, "input"), torch.float64, device
        )
        gaps.append(isometry_decay.bn_haar_chain(x0, depth, stream, runs))
    return Labelled.over(
        {"width": widths, "run": runs, "layer": range(depth + 1)},
        values={"psi": torch.stack(gaps).cpu()},
        seeds={
            "experiment_ids": [f"{experiment_id}.d{d}" for d in widths],
            "runs": runs,
            "streams": ["input (run 0)", "weights"],
        },
    )
