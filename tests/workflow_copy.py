"""Copies of the workflow in temporary directories, and Snakemake run in them (shared by the
workflow and cluster tests)."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]

WORKFLOW_TIMEOUT_S = 3 * 3600
"""A guard against a hung run only: a loaded 2-core machine must not fail the suite by time."""


def snakemake(workdir, *args, check=True, env=None, cores="2"):
    command = [*SNAKEMAKE, *(["--cores", cores] if cores else []), *args]
    return subprocess.run(
        command,
        cwd=workdir,
        capture_output=True,
        text=True,
        check=check,
        env=env,
        timeout=WORKFLOW_TIMEOUT_S,
    )


def copy_workflow(work: Path) -> Path:
    """A copy of the workflow with its own src/ (jobs import sigprop from there first), its
    profiles and the cost table the compute rules read."""
    shutil.copy(ROOT / "Snakefile", work)
    for folder in ("workflow", "config", "envs", "src", "profiles"):
        shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (work / "bench" / "results").mkdir(parents=True)
    for table in ("paper_cost.csv", "paper_cpu_jobs.csv", "gpu_cost.csv"):
        shutil.copy(ROOT / "bench" / "results" / table, work / "bench" / "results")
    return work


class BackgroundRun:
    """Snakemake started in ``workdir`` without waiting: its output goes to files there, and its
    process group can be stopped as one (``stop``) if the session ends before it does."""

    def __init__(self, workdir: Path, *args, cores: str = "2"):
        self.workdir = workdir
        self.out, self.err = workdir / "snakemake.out", workdir / "snakemake.err"
        with self.out.open("w") as out, self.err.open("w") as err:
            self.process = subprocess.Popen(
                [*SNAKEMAKE, "--cores", cores, *args],
                cwd=workdir,
                stdout=out,
                stderr=err,
                text=True,
                start_new_session=True,
            )

    def wait(self) -> subprocess.CompletedProcess:
        """The finished run, as ``snakemake(...)`` returns it."""
        returncode = self.process.wait(timeout=WORKFLOW_TIMEOUT_S)
        return subprocess.CompletedProcess(
            self.process.args, returncode, self.out.read_text(), self.err.read_text()
        )

    def stop(self) -> None:
        """End the run and its jobs if it is still going (the session ended first)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
