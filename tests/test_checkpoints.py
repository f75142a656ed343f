"""Resumable training (base.checkpoints): a job killed mid-run and rerun ends in the same
bytes as one that was never interrupted."""

import os
from pathlib import Path

import pytest
import torch
from interruptions import kill_child_when

from sigprop.base import checkpoints
from sigprop.training.loop import RunStack

ROOT = Path(__file__).resolve().parents[1]
EPOCHS = 4

SETUP = """
import torch
from sigprop.training.loop import RunStack, TrainData, train
from sigprop.nets.mlp import MLP


def data():
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(256, 12, generator=g), torch.randint(0, 3, (256,), generator=g)
    return TrainData(x, y, x[:64], y[:64], x[:32], probe_y=y[:32])


def run(epochs):
    torch.manual_seed(1)
    stack = RunStack([MLP(12, 16, 3, 3, norm="batch_norm") for _ in range(3)])
    curves = train(stack, data(), torch.tensor([0.05, 0.1, 0.2]), epochs, 32, "test.resume",
                   [0, 1, 2], log_every=3, momentum=0.9)
    return stack, curves
"""

CHILD = (
    SETUP
    + """
import sys, time
from sigprop.base import checkpoints

torch.set_num_threads(1)
plain_save = checkpoints.save


def slow_save(path, state):  # time for the parent to kill the job after a checkpoint
    plain_save(path, state)
    time.sleep(2.0)


checkpoints.save = slow_save
with checkpoints.resumable(sys.argv[1]):
    run(int(sys.argv[2]))
"""
)


def _run(epochs):
    namespace = {}
    exec(SETUP, namespace)  # the child's exact code, in this process
    return namespace["run"](epochs)


def _snapshot(stack: RunStack, curves) -> dict[str, torch.Tensor]:
    return {**stack.params, **stack.buffers, **curves.tensors()}


def _equal(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k].detach(), b[k].detach()) for k in a)


def test_a_killed_training_resumes_to_the_same_bytes(tmp_path):
    uninterrupted = _snapshot(*_run(EPOCHS))
    directory = tmp_path / "checkpoints"
    checkpoint = directory / "test.resume.pt"

    def at_epoch_2() -> bool:
        return checkpoint.exists() and torch.load(checkpoint, weights_only=True)["epoch"] == 2

    kill_child_when(CHILD, [str(directory), str(EPOCHS)], at_epoch_2)
    assert torch.load(checkpoint, weights_only=True)["epoch"] == 2
    with checkpoints.resumable(directory):
        resumed = _snapshot(*_run(EPOCHS))
    assert _equal(resumed, uninterrupted)


def test_a_checkpoint_of_other_settings_is_ignored(tmp_path, monkeypatch):
    """A 1-epoch checkpoint is not resumed by a 2-epoch training (another identity): that one
    takes all its 2 x 8 steps from the start (a resume would take 8)."""
    import sigprop.training.loop as loop

    with checkpoints.resumable(tmp_path):
        _run(1)
        assert torch.load(tmp_path / "test.resume.pt", weights_only=True)["epoch"] == 1
        steps, step = [], loop.sgd_step
        monkeypatch.setattr(loop, "sgd_step", lambda *a, **k: steps.append(1) or step(*a, **k))
        longer = _snapshot(*_run(2))
    assert len(steps) == 2 * 256 // 32
    monkeypatch.undo()
    assert _equal(longer, _snapshot(*_run(2)))


def test_a_checkpoint_of_other_settings_is_set_aside(tmp_path, caplog):
    with checkpoints.resumable(tmp_path):
        _run(1)
        with caplog.at_level("WARNING", logger="sigprop.base.checkpoints"):
            _run(2)
    assert (tmp_path / f"test.resume.pt{checkpoints.SET_ASIDE}").exists()
    assert torch.load(tmp_path / "test.resume.pt", weights_only=True)["epoch"] == 2
    assert "made for other settings" in caplog.text


@pytest.mark.parametrize("damage", ["truncated", "empty", "not a checkpoint"])
def test_an_unreadable_checkpoint_is_set_aside_and_training_starts_afresh(tmp_path, caplog, damage):
    """A checkpoint cut short (a full disk, a node lost mid-write without the atomic rename)
    must not fail the job and every retry: it is set aside, with a warning, and the training
    runs from the start to the bytes of an uninterrupted run."""
    with checkpoints.resumable(tmp_path):
        _run(1)
    path = tmp_path / "test.resume.pt"
    data = path.read_bytes()
    damaged = {"truncated": data[: len(data) // 2], "empty": b"", "not a checkpoint": b"x" * 99}
    path.write_bytes(damaged[damage])
    with checkpoints.resumable(tmp_path), caplog.at_level("WARNING"):
        resumed = _snapshot(*_run(EPOCHS))
    assert _equal(resumed, _snapshot(*_run(EPOCHS)))
    assert "cannot be read" in caplog.text
    assert (tmp_path / f"test.resume.pt{checkpoints.SET_ASIDE}").read_bytes() == damaged[damage]


def test_a_save_is_flushed_to_disk_before_the_rename(tmp_path, monkeypatch):
    """fsync of the file, then the rename, then fsync of the folder: a crash of the node
    leaves a whole checkpoint (the old or the new one)."""
    events = []
    fsync, replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: events.append("fsync") or fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: events.append("replace") or replace(a, b))
    checkpoints.save(tmp_path / "x.pt", {"epoch": 1})
    assert events == ["fsync", "replace", "fsync"]
    assert torch.load(tmp_path / "x.pt", weights_only=True) == {"epoch": 1}
    assert not list(tmp_path.glob("*.partial"))


def test_a_finished_checkpoint_returns_the_trained_state_without_training(tmp_path, monkeypatch):
    with checkpoints.resumable(tmp_path):
        first = _snapshot(*_run(2))
        monkeypatch.setattr("sigprop.training.loop.sgd_step", _no_step)
        again = _snapshot(*_run(2))
    assert _equal(first, again)


def _no_step(*args, **kwargs):
    raise AssertionError("a finished training must not step again")


def test_outside_resumable_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert checkpoints.path_for("x") is None
    _run(1)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["a/b c", "rank_collapse.fig1.BN w/o centering.L50"])
def test_checkpoint_names_are_plain_file_names(tmp_path, name):
    with checkpoints.resumable(tmp_path):
        path = checkpoints.path_for(name)
    assert path.parent == tmp_path and "/" not in path.name and " " not in path.name


def test_a_simulation_job_keeps_its_finished_checkpoint_until_the_workflow_removes_it(tmp_path):
    """A job stopped (at its time limit) after saving its tensors loses them (Snakemake deletes
    a failed job's outputs) but not its finished checkpoint: the rerun takes it without
    training. The workflow's end removes the checkpoints of every simulation whose tensors
    exist, and only those."""
    from sigprop.base.store import Labelled
    from sigprop.pipeline.jobs import checkpoint_root, remove_finished_checkpoints, run_simulation

    def experiment(device):
        stack, curves = _run(1)
        return Labelled(dims=["point"], coords={"point": list(range(len(curves.step)))},
                        values={"loss": curves.tensors()["train_loss"][0]}, seeds={})  # fmt: skip

    out = tmp_path / "family" / "sim.safetensors"
    out.parent.mkdir()
    run_simulation(experiment, {}, "cpu", str(out))
    first = out.read_bytes()
    assert [p.name for p in checkpoint_root(out).rglob("*.pt")] == ["test.resume.pt"]
    out.unlink()  # the failed job's outputs, deleted
    import sigprop.training.loop as loop

    step, loop.sgd_step = loop.sgd_step, _no_step
    try:
        run_simulation(experiment, {}, "cpu", str(out))
    finally:
        loop.sgd_step = step
    assert out.read_bytes() == first
    other = tmp_path / "family" / "unfinished.checkpoints"
    other.mkdir()
    measured = tmp_path / "family" / "theorem.checkpoints"  # a measure's, its table written
    measured.mkdir()
    (tmp_path / "family" / "theorem.csv").write_text("a\n1\n")
    assert remove_finished_checkpoints(tmp_path) == [checkpoint_root(out), measured]
    assert not checkpoint_root(out).exists() and not measured.exists() and other.exists()
