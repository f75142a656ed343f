"""Shared fixtures: dtype tolerances in one table, devices (CUDA skipped when absent), and the
quick DAG started in the background when the session begins."""

import socket

import pytest
import torch
from workflow_copy import BackgroundRun, copy_workflow

QUICK_RUN = "quick_run"
"""The fixture of the whole quick DAG (tests/test_workflow.py), the longest setup of the suite."""

TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-12}
"""Relative tolerance for identities that hold exactly in exact arithmetic."""

DEVICES = [
    "cpu",
    pytest.param(
        "cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
    ),
]


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


def pytest_collection_modifyitems(items):
    """Tests that read the quick DAG run last (a stable sort), so that everything else runs
    while it is computed in the background (``quick_dag_in_background``)."""
    items.sort(key=lambda item: QUICK_RUN in item.fixturenames)


@pytest.fixture(scope="session", autouse=True)
def quick_dag_in_background(request, tmp_path_factory):
    """The whole quick DAG, started with the session when a selected test reads it: on two
    cores the rest of the suite (mostly one thread) runs beside it instead of after it, and
    ``quick_run`` waits for it. None when no selected test reads it."""
    if not any(QUICK_RUN in item.fixturenames for item in request.session.items):
        yield None
        return
    run = BackgroundRun(copy_workflow(tmp_path_factory.mktemp("quick")), "all")
    yield run
    run.stop()
