"""Resumable training: inside ``resumable(directory)``, every ``loop.train`` call saves its state
atomically after each epoch and, when the job is rerun, resumes from its last saved epoch.

A checkpoint holds everything the rest of the run depends on: the stacked parameters and
buffers (BN running statistics), the momentum buffers, the runs' minibatch generators, the step
counter and the curves logged so far. Resumed training is therefore the same computation as an
uninterrupted one, and on one machine it ends in the same bytes (``tests/test_checkpoints.py``
kills a job mid-run and compares). A checkpoint is only reused by the call it was made for: its
``identity`` (experiment id, runs, step sizes, epochs, batch size, logging, optimizer) must
match, else it is ignored and training starts afresh.

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

__all__ = ["load", "path_for", "resumable", "save", "suspended"]

log = logging.getLogger(__name__)

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


@contextmanager
def suspended() -> Iterator[None]:
    """No checkpoints inside the block: for training whose results include state kept outside
    ``train`` (a probe that records every step from outside the loop would lose its records)."""
    token = _DIRECTORY.set(None)
    try:
        yield
    finally:
        _DIRECTORY.reset(token)


def path_for(experiment_id: str) -> Path | None:
    """The checkpoint file of the training ``experiment_id`` (None outside ``resumable``)."""
    directory = _DIRECTORY.get()
    if directory is None:
        return None
    return directory / (re.sub(r"[^A-Za-z0-9_.=-]+", "_", experiment_id) + ".pt")


def save(path: Path, state: Mapping) -> None:
    """Write ``state`` to ``path`` atomically: a killed job leaves the previous checkpoint."""
    partial = path.with_name(path.name + ".partial")
    torch.save(dict(state), partial)
    os.replace(partial, path)


def load(path: Path | None, identity: Mapping) -> dict | None:
    """The checkpoint at ``path`` if it exists and was made for ``identity``, else None."""
    if path is None or not path.exists():
        return None
    state = torch.load(path, map_location="cpu", weights_only=True)
    if state.get("identity") != dict(identity):
        log.warning("ignoring checkpoint %s: made for other settings", path)
        return None
    log.info("resuming %s after epoch %d", path.name, state["epoch"])
    return state
