"""Input batches H_0 as the seeds specify them, shape (runs, d, n) unless noted.

Seed sections: Dan+20 Fig. 2 / Fig. 3a (Gaussian inputs, d = N); DJB21 Fig. 1 (a nearly collinear
and an orthogonal pair); DJB21 Fig. 2 (a nearly rank-one diagonal start, authors' code).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from torch import Tensor

from .seeding import generator

__all__ = [
    "gaussian_inputs", "given_input", "given_inputs", "near_collinear_pair", "near_rank_one",
    "orthogonal_pair",
]  # fmt: skip


def _check_shape(d: int, n: int) -> None:
    if d < 1:
        raise ValueError(f"width d must be >= 1, got {d}")
    if n < 1:
        raise ValueError(f"batch size n must be >= 1, got {n}")


def gaussian_inputs(
    experiment_id: str,
    runs: list[int] | range,
    d: int,
    n: int,
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
) -> Tensor:
    """I.i.d. N(0, 1) inputs X in R^{d x n} per run, from the run's ``"input"`` stream."""
    _check_shape(d, n)
    draws = [
        torch.randn(d, n, generator=generator(experiment_id, r, "input")).to(device) for r in runs
    ]
    return torch.stack(draws).to(dtype)


def near_rank_one(
    d: int, n: int, small: float = 1e-6, dtype: torch.dtype = torch.float64, device="cpu"
) -> Tensor:
    """DJB21 Fig. 2 start (authors' code): H_0 = 0 except H_0[i, i] = small (i < n), H_0[0, 0] = 1.

    Thesis Fig. 2.2 caption: "a diagonal H_0 with one relatively large diagonal value", so that
    V(H_0) is close to its maximum sqrt((n - 1) / n). Requires d >= n. Shape (d, n).
    """
    _check_shape(d, n)
    if d < n:
        raise ValueError(f"near_rank_one needs d >= n, got d={d}, n={n}")
    h = torch.zeros(d, n, dtype=dtype, device=device)
    h[torch.arange(n), torch.arange(n)] = small
    h[0, 0] = 1.0
    return h


def near_collinear_pair(d: int, epsilon: float, dtype=torch.float64, device="cpu") -> Tensor:
    """DJB21 Fig. 1 BN input (authors' code): h_1 = e_1, h_2 = (1 - eps) e_1 + eps e_2, (d, 2)."""
    _check_shape(d, 2)
    if d < 2:
        raise ValueError(f"near_collinear_pair needs d >= 2, got {d}")
    h = torch.zeros(d, 2, dtype=dtype, device=device)
    h[0, 0] = 1.0
    h[0, 1], h[1, 1] = 1.0 - epsilon, epsilon
    return h


def orthogonal_pair(d: int, dtype=torch.float64, device="cpu") -> Tensor:
    """DJB21 Fig. 1 vanilla input (authors' code): h_1 = e_1, h_2 = e_2 (cosine 0), (d, 2)."""
    _check_shape(d, 2)
    if d < 2:
        raise ValueError(f"orthogonal_pair needs d >= 2, got {d}")
    h = torch.zeros(d, 2, dtype=dtype, device=device)
    h[0, 0] = h[1, 1] = 1.0
    return h


def given_input(
    value: Tensor, name: str, n_runs: int, d: int, n: int, dtype: torch.dtype, device
) -> Tensor:
    """A user's input batch in place of a simulation's seeded draw: checked to be (n_runs, d, n)
    or (d, n) (shared by all runs), then cast to ``dtype`` on ``device``; a ValueError naming
    the argument ``name`` otherwise."""
    full, shared = (n_runs, d, n), (d, n)
    shape = tuple(value.shape) if isinstance(value, Tensor) else None
    if shape not in (full, shared):
        got = shape if shape is not None else type(value).__name__
        raise ValueError(
            f"{name} must be a tensor of shape {full} (runs, d, n) or {shared} (d, n), got {got}"
        )
    return value.to(device, dtype)


def given_inputs(
    value: Tensor | Mapping[int, Tensor],
    name: str,
    widths: Sequence[int],
    n_runs: int,
    n: int | None,
    dtype: torch.dtype,
    device,
) -> dict[int, Tensor]:
    """Width d -> ``given_input`` of d for a simulation over several ``widths``, batch size ``n``
    (None: n = d). ``value`` is a mapping that must cover exactly ``widths`` (its entries named
    ``<name>[<d>]``), or one tensor for every width (so its shape check fails unless the widths
    are all equal)."""
    if isinstance(value, Mapping):
        if set(value) != set(widths):
            raise ValueError(
                f"{name} must map every width {list(widths)} to a tensor, got {list(value)}"
            )
        named = {d: (f"{name}[{d}]", value[d]) for d in widths}
    else:
        named = {d: (name, value) for d in widths}
    return {
        d: given_input(v, label, n_runs, d, d if n is None else n, dtype, device)
        for d, (label, v) in named.items()
    }
