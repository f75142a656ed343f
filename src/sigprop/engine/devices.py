"""Device and dtype selection: CUDA when present, CPU otherwise, the same code on both; and the
host allocator's setting for runs of large CPU tensors (``heap_allocations``)."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Iterator
from contextlib import contextmanager

import torch

__all__ = ["DTYPES", "heap_allocations", "resolve_device", "resolve_dtype"]

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


_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4  # glibc's mallopt parameters (malloc.h)
_GLIBC_DEFAULTS = {_M_TRIM_THRESHOLD: 128 * 1024, _M_MMAP_MAX: 65536}


def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (it has ``mallopt`` and ``malloc_trim``), else None."""
    name = ctypes.util.find_library("c")
    library = ctypes.CDLL(name) if name else None
    if library is None or not hasattr(library, "mallopt") or not hasattr(library, "malloc_trim"):
        return None
    return library


@contextmanager
def heap_allocations() -> Iterator[None]:
    """Inside the block, glibc serves every host allocation from its heap and keeps freed memory
    there; on leaving, glibc's default values return and the heap is trimmed (its dynamic mmap
    threshold, which any ``mallopt`` of these settings switches off, stays off for the rest of
    the process: blocks over the threshold reached so far are mapped as by default). A no-op
    without glibc.

    By default glibc maps each block over 32 MiB afresh and unmaps it on free, so a full-width conv
    net on CPU page-faults its activations in again at every layer and step: a paper-shape run of
    ResNet-50 with one block per stage (``paper_smoke``) spent 60 of its 128 s in the kernel, 8 of
    74 s here; VGG19's took 53.5 s against 46.1 s (one thread, bench/README). The arithmetic is the
    same; what moves is where blocks lie, so a run whose bits depend on alignment may differ in its
    last bits, and the heap keeps its high-water mark until the block ends.
    """
    libc = _glibc()
    if libc is None:
        yield
        return
    libc.mallopt(_M_MMAP_MAX, 0)
    libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
    try:
        yield
    finally:
        for parameter, value in _GLIBC_DEFAULTS.items():
            libc.mallopt(parameter, value)
        libc.malloc_trim(0)
