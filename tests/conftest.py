"""Shared fixtures: dtype tolerances in one table, devices (CUDA skipped when absent)."""

import pytest
import torch

TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-12}
"""Relative tolerance for identities that hold exactly in exact arithmetic."""

DEVICES = [
    "cpu",
    pytest.param(
        "cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
    ),
]


@pytest.fixture(params=[torch.float32, torch.float64], ids=["float32", "float64"])
def dtype(request):
    return request.param


@pytest.fixture
def rtol(dtype):
    return TOLERANCE[dtype]


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)


@pytest.fixture
def gen():
    """A fixed CPU generator, so every test draws the same matrices."""
    g = torch.Generator()
    g.manual_seed(1234)
    return g
