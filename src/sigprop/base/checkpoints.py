"""Resumable training: inside ``resumable(directory)``, every ``loop.train`` call saves its state
atomically after each epoch and, when the job is rerun, resumes from its last saved epoch.

A checkpoint holds everything the rest of the run depends on: the stacked parameters and
buffers (BN running statistics), the momentum buffers, the runs' minibatch generators, the step
counter and the curves logged so far. Resumed training is therefore the same computation as an
uninterrupted one, and on one machine it ends in the same bytes (``tests/test_checkpoints.py``
kills a job mid-run and compares). A checkpoint is only reused by the call it was made for: its
``identity`` (experiment id, runs, step sizes, epochs, batch size, logging, optimizer) must
match. A checkpoint that was made for other settings, or cannot be read (a file truncated by a
full disk or a node that died mid-write), is set aside beside itself (``<name>.pt.set-aside``)
with a warning, and training starts afresh: a retry never fails on its predecessor's file.

Writes are durable: the state goes to a ``.partial`` file, is flushed to the disk (fsync), and
only then renamed over the previous checkpoint (and the directory entry synced), so a job killed
at any instant, even with the node, leaves either the old or the new checkpoint whole.

The simulation rule wraps each job in ``resumable`` (``workflow.run_simulation``), with a
directory named by the job's settings and code, and removes it once the job's output is saved.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import torch

__all__ = ["SET_ASIDE", "load", "path_for", "resumable", "save", "set_aside"]

log = logging.getLogger(__name__)

SET_ASIDE = ".set-aside"
"""Suffix of a checkpoint that was set aside (unreadable, or made for other settings)."""

_DIRECTORY: ContextVar[Path | None] = ContextVar("checkpoint_directory", default=None)


@contextmanager
def resumable(directory: str | os.PathLike) -> Iterator[Path]:
    """Make every ``train`` call inside the block checkpoint into ``directory`` (created)."""
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    token = _DIRECTORY.set(path)
    try:
        yield path
    finally:
        _DIRECTORY.reset(token)


def path_for(experiment_id: str) -> Path | None:
    """The checkpoint file of the training ``experiment_id`` (None outside ``resumable``)."""
    directory = _DIRECTORY.get()
    if directory is None:
        return None
    return directory / (re.sub(r"[^A-Za-z0-9_.=-]+", "_", experiment_id) + ".pt")


def save(path: Path, state: Mapping) -> None:
    """Write ``state`` to ``path`` atomically and durably: a job killed at any point (or its
    node) leaves the previous checkpoint or this one, never a partial file under ``path``."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as f:
        torch.save(dict(state), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def load(path: Path | None, identity: Mapping) -> dict | None:
    """The checkpoint at ``path`` if it exists and was made for ``identity``; None (start
    afresh) where there is none, and where it cannot be read or was made for other settings,
    after setting it aside with a warning."""
    if path is None or not path.exists():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # truncated, corrupt or not a checkpoint: any reader's error
        set_aside(path, f"cannot be read ({type(error).__name__}: {str(error)[:200]})")
        return None
    if not isinstance(state, dict) or state.get("identity") != dict(identity):
        set_aside(path, "made for other settings")
        return None
    log.info("resuming %s after epoch %s", path.name, state.get("epoch", "?"))
    return state


def set_aside(path: Path, why: str) -> Path:
    """Rename checkpoint ``path`` to ``<name>.set-aside`` (replacing an older one) and warn."""
    target = path.with_name(path.name + SET_ASIDE)
    os.replace(path, target)
    log.warning("checkpoint %s %s: set aside as %s; starting afresh", path, why, target.name)
    return target
