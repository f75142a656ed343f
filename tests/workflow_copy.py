"""Copies of the workflow in temporary directories, and Snakemake run in them (shared by the
workflow and cluster tests)."""

import shutil
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
    """A copy of the workflow with its own src/ (jobs import sigprop from there first; the cost
    table the compute rules read ships in it) and its profiles."""
    shutil.copy(ROOT / "Snakefile", work)
    for folder in ("workflow", "config", "envs", "src", "profiles"):
        shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return work


def job_counts(dry_run: str) -> dict[str, int]:
    """Rule -> job count from the 'Job stats' table of a dry run; the compute jobs run on the
    submitting machine (``simulate_tiny``, ``measure_tiny``) count with their rule."""
    table = dry_run.split("Job stats:")[1].split("\ntotal")[0]
    counts: dict[str, int] = {}
    for line in table.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1].isdigit():
            rule = fields[0].removesuffix("_tiny")
            counts[rule] = counts.get(rule, 0) + int(fields[1])
    return counts
