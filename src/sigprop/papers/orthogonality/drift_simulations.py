"""The one-step drift Monte Carlo of DJB21 Thm. 5 (App. C; Thesis Thm. A.2) as a cached
simulation, for the ``drift`` figure: the same states, streams and numbers as ``theorem5``."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ...compute import resolve_device
from ...store import Labelled
from .drift_theorems import DTYPE, EXPERIMENT_IDS, _check_cases, drift_mc_rows

__all__ = ["COLUMNS", "drift_mc"]

COLUMNS = ("n", "d", "degenerate", "vhat", "mc_mean", "mc_se", "contraction", "sum_p2", "rhs")
"""Per (case, state): the case, whether the state is near-degenerate (1) or Dirichlet (0), and
the numbers the ``drift`` figure plots."""


def drift_mc(
    cases: Sequence[Sequence[int]],
    n_states: int,
    n_degenerate: int,
    n_draws: int,
    device: str = "auto",
) -> Labelled:
    """E[V_hat(H_{l+1}) | H_l] by Monte Carlo from fixed spectra, per case (n, d) and state.

    ``drift_theorems.drift_mc_rows`` per case in ``cases`` (the config of ``theorem5``).

    Returns:
        ``COLUMNS`` over dims (case, state), float64.
    """
    dev = resolve_device(device)
    cases = _check_cases(cases, "drift_mc.cases")
    per_case = [drift_mc_rows(n, d, n_states, n_degenerate, n_draws, dev) for n, d in cases]
    values = {
        name: torch.tensor(
            [
                [
                    float(row["family"] == "near_degenerate") if name == "degenerate" else row[name]
                    for row in rows
                ]
                for rows in per_case
            ],
            dtype=DTYPE,
        )
        for name in COLUMNS
    }
    eid = EXPERIMENT_IDS["theorem5"]
    return Labelled(
        dims=["case", "state"],
        coords={"case": list(range(len(cases))), "state": list(range(n_states + n_degenerate))},
        values=values,
        seeds={
            "experiment_ids": [f"{eid}.mc.n{n}.d{d}" for n, d in cases] + [f"{eid}.mc"],
            "streams": ["weights", "dirichlet", "near_degenerate"],
        },
    )
