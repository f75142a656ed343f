"""Stopping a job the ways a cluster does, for the resume tests: a child process killed with
SIGKILL once it has written what the test waits for, and a ``checkpoints.save`` that stops the
job right after its n-th checkpoint."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sigprop.base import checkpoints

ROOT = Path(__file__).resolve().parents[1]


class Stopped(BaseException):
    """The job stopped (not an error of the code under test: no ``except Exception`` hides it)."""


def kill_child_when(code: str, args: list[str], ready: Callable[[], bool], timeout_s=120) -> None:
    """Run ``python -c code *args`` and SIGKILL it once ``ready()`` holds; fail if it ended
    before (nothing was interrupted)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    child = subprocess.Popen([sys.executable, "-c", code, *args], env=env)
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and child.poll() is None and not ready():
            time.sleep(0.05)
        assert child.poll() is None, "the job ended before it could be killed"
        child.send_signal(signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()


def stop_after_saves(n: int) -> Callable:
    """A ``checkpoints.save`` that saves, then raises ``Stopped`` at its ``n``-th call."""
    save, calls = checkpoints.save, []

    def saving(path, state):
        save(path, state)
        calls.append(1)
        if len(calls) == n:
            raise Stopped

    return saving
