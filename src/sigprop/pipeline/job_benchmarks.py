"""Where a run's time went: Snakemake's ``benchmark:`` files and the jobs' logs, as one table.

Every rule writes ``benchmarks/<folder>/<job>.tsv`` (Snakemake's wall seconds ``s``, ``cpu_time``,
``max_rss`` in MB) and logs ``<folder>/<job>.log`` under ``logs/``, where the job writes the
seconds from its process start to its first computation (``sigprop.pipeline.jobs.log_startup``):
the interpreter, the imports and Snakemake's script preamble. ``collect`` joins them, one row per
job; ``summarize`` gives the run's wall time (first job start to last job end), the sum of job
times, the start-up share, the peak memory and the slowest jobs. The Snakefile's ``onsuccess``
writes ``results/benchmarks.csv`` for the jobs of the run that just ended; ``sigprop benchmarks``
prints the summary.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from .jobs import STARTUP_MARK

__all__ = ["collect", "describe", "previous_seconds", "summarize", "write"]

_STARTUP = re.compile(re.escape(STARTUP_MARK) + r" ([0-9.]+) s")


def _startup_seconds(log: Path) -> float:
    """The last start-up mark in a job's log (NaN: the job logs none, e.g. a shell rule)."""
    if not log.exists():
        return math.nan
    found = _STARTUP.findall(log.read_text(errors="replace"))
    return float(found[-1]) if found else math.nan


def previous_seconds(tsv: str | Path) -> float:
    """A job's wall seconds in its last run (its benchmark file), 0.0 if it never ran here.

    The Snakefile's compute rules take it as their ``priority``: of the jobs ready to start, the
    longest goes first, so that a long simulation does not start last and run alone at the end
    (longest-processing-time-first scheduling; on 2 cores it kept one core idle 15 s of 210).
    """
    try:
        return float(pd.read_csv(tsv, sep="\t")["s"].iloc[-1])
    except (OSError, KeyError, IndexError, ValueError, pd.errors.ParserError):
        return 0.0


def collect(
    benchmarks: str | Path = "benchmarks", logs: str | Path = "logs", since: float | None = None
) -> pd.DataFrame:
    """One row per job: job, rule, s, cpu_s, startup_s, max_rss_mb, start, end (epoch seconds).

    ``since``: keep only jobs that ended at or after ``since`` (the jobs of one run).
    A job's end is its benchmark file's modification time and its start that less ``s``.
    """
    rows = []
    benchmarks, logs = Path(benchmarks), Path(logs)
    for tsv in sorted(benchmarks.rglob("*.tsv")):
        end = tsv.stat().st_mtime
        if since is not None and end < since:
            continue
        record = pd.read_csv(tsv, sep="\t").iloc[-1]
        job = tsv.relative_to(benchmarks).with_suffix("")
        rows.append(
            {
                "job": str(job),
                "rule": job.name.split("_", 1)[0],
                "s": float(record["s"]),
                "cpu_s": float(record["cpu_time"]),
                "startup_s": _startup_seconds(logs / job.with_suffix(".log")),
                "max_rss_mb": float(record["max_rss"]),
                "start": end - float(record["s"]),
                "end": end,
            }
        )
    columns = ["job", "rule", "s", "cpu_s", "startup_s", "max_rss_mb", "start", "end"]
    return pd.DataFrame(rows, columns=columns)


def summarize(jobs: pd.DataFrame, slowest: int = 10) -> dict:
    """The run's wall time, job-time sum, start-up sum and share, peak memory, slowest jobs.

    Start-up times are summed over the jobs that log one (``jobs_with_startup`` says how many).
    """
    if jobs.empty:
        raise ValueError("no benchmark files: run the workflow first")
    timed = jobs["startup_s"].notna()
    startup = float(jobs.loc[timed, "startup_s"].sum())
    total = float(jobs["s"].sum())
    peak = jobs.loc[jobs["max_rss_mb"].idxmax()]
    return {
        "jobs": len(jobs),
        "wall_s": float(jobs["end"].max() - jobs["start"].min()),
        "job_s": total,
        "startup_s": startup,
        "jobs_with_startup": int(timed.sum()),
        "startup_share": startup / float(jobs.loc[timed, "s"].sum()) if timed.any() else math.nan,
        "peak_rss_mb": float(peak["max_rss_mb"]),
        "peak_rss_job": peak["job"],
        "slowest": jobs.nlargest(slowest, "s")[["job", "s", "startup_s", "max_rss_mb"]],
        "by_rule": jobs.groupby("rule")[["s", "startup_s"]].agg(["count", "sum", "median"]),
    }


def describe(summary: dict) -> str:
    """The summary as text for a terminal or a log."""
    lines = [
        f"{summary['jobs']} jobs; wall {summary['wall_s']:.1f} s (first start to last end); "
        f"job time {summary['job_s']:.1f} s",
        f"start-up before first computation: {summary['startup_s']:.1f} s over "
        f"{summary['jobs_with_startup']} jobs ({summary['startup_share']:.0%} of their time)",
        f"peak memory {summary['peak_rss_mb']:.0f} MB ({summary['peak_rss_job']})",
        "slowest jobs:",
        summary["slowest"].to_string(index=False, float_format=lambda x: f"{x:.1f}"),
        "by rule (count, sum, median seconds):",
        summary["by_rule"].to_string(float_format=lambda x: f"{x:.1f}"),
    ]
    return "\n".join(lines)


def write(
    path: str | Path = "results/benchmarks.csv",
    benchmarks: str | Path = "benchmarks",
    logs: str | Path = "logs",
    since: float | None = None,
) -> pd.DataFrame:
    """Collect the jobs (of the run since ``since``) and write them to ``path`` as CSV."""
    from ..base.store import atomic_path

    jobs = collect(benchmarks, logs, since)
    with atomic_path(path) as tmp:
        jobs.to_csv(tmp, index=False)
    return jobs
