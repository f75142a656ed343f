"""``devices.resolve_device``: names and ``torch.device`` objects, and clear errors;
``devices.heap_allocations``: glibc's mmap switched off inside the block, on again after."""

import ctypes
import ctypes.util

import pytest
import torch

from sigprop.engine.devices import heap_allocations, resolve_device


@pytest.mark.parametrize("name", ["cpu", torch.device("cpu")])
def test_cpu_by_name_or_device(name):
    assert resolve_device(name) == torch.device("cpu")


def test_auto_picks_cuda_only_when_present():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected


@pytest.mark.parametrize("name", ["gpu", "mps", torch.device("meta")])
def test_unknown_devices_are_named_in_the_error(name):
    with pytest.raises(ValueError, match="device must be"):
        resolve_device(name)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
@pytest.mark.parametrize("name", ["cuda", "cuda:0", torch.device("cuda")])
def test_cuda_without_cuda_is_an_error(name):
    with pytest.raises(ValueError, match="is_available"):
        resolve_device(name)


class _MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (malloc.h): ``hblks`` counts the blocks mapped by mmap."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost",
    )]  # fmt: skip


def _mapped_blocks_while_holding_a_large_block() -> int:
    """How many more blocks glibc holds by mmap while a block larger than its largest mmap
    threshold (32 MiB) and than every free byte of its heap is alive (so that no free chunk can
    serve it: an earlier test may have left large ones behind)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    before, n_bytes = info.hblks, info.fordblks + 64 * 2**20
    block = torch.empty(n_bytes, dtype=torch.uint8)  # untouched: no page is faulted in
    during = libc.mallinfo2().hblks
    del block
    return during - before


@pytest.mark.skipif(
    not hasattr(ctypes.CDLL(ctypes.util.find_library("c")), "mallinfo2"), reason="not glibc 2.33+"
)
def test_heap_allocations_serve_large_blocks_from_the_heap_then_restore_the_defaults():
    assert _mapped_blocks_while_holding_a_large_block() == 1
    with heap_allocations():
        assert _mapped_blocks_while_holding_a_large_block() == 0
    assert _mapped_blocks_while_holding_a_large_block() == 1
