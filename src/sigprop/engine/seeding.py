"""Random streams addressed by (experiment id, run index, stream name).

Every random number sigprop draws comes from a ``torch.Generator`` seeded by ``derive_seed``, so
any single run of any experiment can be recomputed alone, with or without the other runs of its
batch. The library never touches the global RNG (no ``torch.manual_seed``).

Generators live on the CPU, whatever the compute device: draws are made there and moved to the
device (``Draws``, or ``.to(device)`` at the draw), so a CUDA run uses the very numbers of the CPU
run and the two differ only by rounding, as two CPUs do (tests/test_cuda_parity.py). CUDA's own
generator (Philox) would make a GPU run an independent sample: its claims could not be compared
with the CPU ledger within their intervals. The price on a GPU is the CPU's draw rate and one
host-to-device copy per draw.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # derive_seed is torch-free; tables that only name streams use it
    import torch

__all__ = ["Draws", "derive_seed", "generator", "generators"]


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


def generator(experiment_id: str, run: int, stream: str = "") -> torch.Generator:
    """A CPU generator seeded with ``derive_seed(experiment_id, run, stream)``."""
    import torch

    g = torch.Generator()
    g.manual_seed(derive_seed(experiment_id, run, stream))
    return g


def generators(
    experiment_id: str,
    runs: list[int] | range,
    stream: str = "",
) -> list[torch.Generator]:
    """One generator per run index, see ``generator``."""
    return [generator(experiment_id, r, stream) for r in runs]


class Draws:
    """Draws of one dtype from a CPU generator, delivered on a compute device (the same numbers
    on every device)."""

    def __init__(self, g: torch.Generator, dtype: torch.dtype, device: str | torch.device):
        self.g, self.dtype, self.device = g, dtype, device

    def randn(self, *size: int) -> torch.Tensor:
        """N(0, 1) entries of shape ``size``."""
        import torch

        return torch.randn(*size, generator=self.g, dtype=self.dtype).to(self.device)

    def rand(self, *size: int) -> torch.Tensor:
        """U[0, 1) entries of shape ``size``."""
        import torch

        return torch.rand(*size, generator=self.g, dtype=self.dtype).to(self.device)
