"""Shared fixtures: dtype tolerances in one table, devices (CUDA skipped when absent); the
``quick_dag`` mark on every test that reads the one quick run (``make test`` runs those last,
alone on the machine, and the rest first on parallel workers)."""

import socket

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


def pytest_collection_modifyitems(items):
    """Mark the tests that need the finished quick DAG (the ``quick_run`` fixture) ``quick_dag``."""
    for item in items:
        if "quick_run" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.quick_dag)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Fail any attempt to resolve or connect in the test process: tests never need the network
    (datasets come from local files or test fixtures)."""

    def refuse(*args, **kwargs):
        raise OSError("network access is disabled in tests")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.fixture(scope="session", autouse=True)
def one_thread():
    """Tests run single-threaded, as the rules do (``threads: 1``): small matrices are faster so,
    and parallel test workers do not oversubscribe the cores."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


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
