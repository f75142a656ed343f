"""Shared fixtures: dtype tolerances in one table, devices (CUDA skipped when absent); the one
quick run of the whole DAG (``quick_run``) and the ``quick_dag`` mark on every test that reads
it (``make test`` runs those last, alone on the machine, and the rest first on parallel
workers); the one-node SLURM of the cluster tests (``one_node``) and their ``cluster`` mark
(``make test`` runs them in a process of their own beside the parallel workers: one cluster a
machine)."""

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
import torch
from workflow_copy import ROOT, copy_workflow, snakemake

TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-12}
"""Relative tolerance for identities that hold exactly in exact arithmetic."""

DEVICES = [
    "cpu",
    pytest.param(
        "cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
    ),
]


def pytest_collection_modifyitems(items):
    """Mark the tests that need the finished quick DAG (the ``quick_run`` fixture) ``quick_dag``;
    run the tests marked ``expected_seconds`` first, longest first (the rest keep their order):
    pytest-xdist hands tests out in this order, so a minute-long test never starts last on one
    worker while the other idles."""
    for item in items:
        if "quick_run" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.quick_dag)
        if "one_node" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.cluster)
    items.sort(key=lambda item: -_expected_seconds(item))


def _expected_seconds(item) -> float:
    mark = item.get_closest_marker("expected_seconds")
    return mark.args[0] if mark else 0.0


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


ONE_NODE = ROOT / "tests" / "slurm" / "one_node.sh"

SLURM_SITE = (
    "--profile", "profiles/slurm",
    # site settings as overrides, as a user's would be: this node has no GPU (the profile's
    # device=cuda back to the default, auto: no GPU requested, each job on what it finds, so
    # the params equal a local run's and a local rerun has nothing to do), its partition is
    # "local", SLURM accounting is off, and status checks start early
    "--config", "device=auto",
    "--default-resources", "slurm_partition=local",
    "--slurm-init-seconds-before-status-checks", "2",
    "--slurm-no-account", "--jobs", "8",
)  # fmt: skip
"""The command-line arguments of a run through ``profiles/slurm`` on the one-node SLURM."""

QUICK_DAG_EXECUTOR = os.environ.get("SIGPROP_QUICK_DAG", "local")
"""``local`` (default): the quick DAG with the local executor; ``slurm``: through the one-node
SLURM (``SLURM_SITE``), a rehearsal of the whole cluster path (about half again the local time
on two cores: each submitted job waits for the executor's next status check)."""

SLURM_TESTS = os.environ.get("SIGPROP_SLURM", "auto")
"""``auto`` (default): the cluster tests skip, saying why, where no one-node SLURM can start;
``require`` (CI, ``.ci/run``): that is a failure."""


def _one_node_slurm(directory: Path) -> tuple[dict | None, str]:
    """Start a one-node SLURM in ``directory``: (the environment that reaches it, "") or
    (None, why it cannot start here)."""
    if shutil.which("sbatch") is None and shutil.which("apt-get") is None:
        return None, "no SLURM and no apt-get to install it"
    if os.geteuid() != 0 and shutil.which("sudo") is None:
        return None, "the one-node SLURM needs root (or sudo) to start its daemons"
    start = subprocess.run(
        [str(ONE_NODE), "start", str(directory)], capture_output=True, text=True, timeout=600
    )
    if start.returncode != 0:  # e.g. exit 3: another cluster's config; apt or sudo -n refused
        subprocess.run([str(ONE_NODE), "stop", str(directory)], timeout=120)
        why = (start.stderr.strip() or start.stdout.strip())[-500:]
        return None, f"tests/slurm/one_node.sh start: exit {start.returncode}: {why}"
    return {**os.environ, "SLURM_CONF": str(directory / "slurm.conf")}, ""


def submitted_jobs(log: str) -> dict:
    """The compute jobs of a Snakemake log on a cluster: ``submitted``, [rule folder, job
    folder] per job submitted (``rule_simulate``, ``orthogonality_gap_chain``); ``local``, the
    [rule, family_item] of each tiny compute job run on the submitting machine
    (``simulate_tiny``, ``measure_tiny``)."""
    submitted, local, rule = [], [], None
    for line in log.splitlines():
        if line.startswith("localrule ") and line.rstrip().endswith("_tiny:"):
            rule = line.split()[1].rstrip(":")
        elif line.startswith("    wildcards: family=") and rule is not None:
            wildcards = dict(part.strip().split("=") for part in line.split(":", 1)[1].split(","))
            local.append([rule, f"{wildcards['family']}_{wildcards['item']}"])
            rule = None
        elif "submitted with SLURM jobid" in line:
            submitted.append(line.split("slurm_logs/")[1].split("/")[:2])
    return {"submitted": submitted, "local": local}


@pytest.fixture(scope="session")
def one_node(tmp_path_factory):
    """The environment of a one-node SLURM started once for this test process
    (``tests/slurm/one_node.sh``) and stopped after its last test; skipped, saying why, where
    none can start (``SIGPROP_SLURM=require`` makes that a failure)."""
    directory = tmp_path_factory.mktemp("slurm")
    env, reason = _one_node_slurm(directory)
    if env is None:
        assert SLURM_TESTS != "require", f"SIGPROP_SLURM=require: {reason}"
        pytest.skip(reason)
    yield env
    subprocess.run([str(ONE_NODE), "stop", str(directory)], timeout=120)


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory):
    """The whole quick DAG (default config), run once in a copy of the workflow: with the local
    executor, or through ``profiles/slurm`` with site overrides (``SLURM_SITE``) on a one-node
    SLURM that this fixture starts and stops (``SIGPROP_QUICK_DAG=slurm``). ``quick_run.json``
    in the copy records which, and the compute jobs submitted and run locally."""
    work = copy_workflow(tmp_path_factory.mktemp("quick"))
    env = None
    directory = tmp_path_factory.mktemp("slurm")
    if QUICK_DAG_EXECUTOR == "slurm":
        env, reason = _one_node_slurm(directory)
        assert env, f"SIGPROP_QUICK_DAG=slurm: {reason}"
    try:
        if env is None:
            run = snakemake(work, "all", check=False)
        else:
            run = snakemake(work, "all", *SLURM_SITE, cores=None, env=env, check=False)
    finally:
        if env is not None:
            subprocess.run([str(ONE_NODE), "stop", str(directory)], timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    record = {"executor": "local" if env is None else "slurm", **submitted_jobs(run.stderr)}
    (work / "quick_run.json").write_text(json.dumps(record, indent=1))
    return work
