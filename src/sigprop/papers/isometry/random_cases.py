"""Random cases of the Thesis ch. 4 checks: sizes, Haar orthogonal matrices, condition numbers.

All ch. 4 checks run in float64 (``DTYPE``); round-off is measured in units of ``EPS``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

__all__ = ["DTYPE", "EPS", "check_range", "condition_number", "haar_orthogonal", "sizes"]

DTYPE = torch.float64
"""All checks run in float64."""

EPS = torch.finfo(DTYPE).eps


def check_range(n_range: Sequence[int], lo: int = 2) -> tuple[int, int]:
    """``[n_min, n_max]`` with ``lo <= n_min <= n_max``, else a ValueError."""
    n_min, n_max = (int(v) for v in n_range)
    if not lo <= n_min <= n_max:
        raise ValueError(
            f"n_range must be [n_min, n_max] with {lo} <= n_min <= n_max, got {n_range}"
        )
    return n_min, n_max


def sizes(g: torch.Generator, count: int, n_range: Sequence[int]) -> Tensor:
    """``count`` sizes n uniform in ``n_range`` (inclusive)."""
    n_min, n_max = check_range(n_range)
    if count < 1:
        raise ValueError(f"n_cases must be >= 1, got {count}")
    return torch.randint(n_min, n_max + 1, (count,), generator=g)


def haar_orthogonal(g: torch.Generator, c: int, n: int, device) -> Tensor:
    """c Haar-distributed orthogonal n x n matrices (QR of a Gaussian, signs fixed)."""
    q, r = torch.linalg.qr(torch.randn(c, n, n, generator=g, dtype=DTYPE).to(device))
    return q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))[..., None, :]


def condition_number(m: Tensor) -> Tensor:
    """lambda_max / lambda_min of symmetric PSD matrices (batched)."""
    lam = torch.linalg.eigvalsh(m)
    return lam[..., -1] / lam[..., 0]
