"""Device and dtype selection: CUDA when present, CPU otherwise, the same code on both."""

from __future__ import annotations

import torch

__all__ = ["DTYPES", "resolve_device", "resolve_dtype"]

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def resolve_device(name: str | torch.device = "auto") -> torch.device:
    """``"auto"`` picks CUDA when available, else CPU; ``"cpu"``/``"cuda"`` (or ``"cuda:1"``, or a
    ``torch.device`` of either type) force one.

    Raises:
        ValueError: for an unknown name, or CUDA on a machine without CUDA.
    """
    if isinstance(name, str) and name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        device = None
    if device is None or device.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {name!r}")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' requested but torch.cuda.is_available() is False")
    return device


def resolve_dtype(name: str) -> torch.dtype:
    """``"float32"`` or ``"float64"`` to the torch dtype, else a ValueError naming the choices."""
    try:
        return DTYPES[name]
    except KeyError:
        raise ValueError(f"dtype must be one of {sorted(DTYPES)}, got {name!r}") from None
