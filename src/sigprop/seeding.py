"""Random streams addressed by (experiment id, run index, stream name).

Every random number sigprop draws comes from a ``torch.Generator`` seeded by ``derive_seed``, so
any single run of any experiment can be recomputed alone, with or without the other runs of its
batch. The library never touches the global RNG (no ``torch.manual_seed``). Generators live on
the compute device: a run is reproducible bit for bit on the same device type, and CPU and CUDA
runs agree in law (their generators differ).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # derive_seed is torch-free; tables that only name streams use it
    import torch

__all__ = ["derive_seed", "generator", "generators"]


def derive_seed(experiment_id: str, run: int, stream: str = "") -> int:
    """A 63-bit seed from sha256(experiment_id, run, stream); stable across platforms.

    Args:
        experiment_id: e.g. ``"orthogonality.gap_chain.d512"``.
        run: the run index, >= 0.
        stream: a name separating independent streams of one run (``"weights"``, ``"input"``).
    """
    if run < 0:
        raise ValueError(f"run must be >= 0, got {run}")
    key = f"{experiment_id}\x1f{run}\x1f{stream}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "little") >> 1


def generator(
    experiment_id: str, run: int, stream: str = "", device: str | torch.device = "cpu"
) -> torch.Generator:
    """A generator on ``device`` seeded with ``derive_seed(experiment_id, run, stream)``."""
    import torch

    g = torch.Generator(device=device)
    g.manual_seed(derive_seed(experiment_id, run, stream))
    return g


def generators(
    experiment_id: str,
    runs: list[int] | range,
    stream: str = "",
    device: str | torch.device = "cpu",
) -> list[torch.Generator]:
    """One generator per run index, see ``generator``."""
    return [generator(experiment_id, r, stream, device) for r in runs]
