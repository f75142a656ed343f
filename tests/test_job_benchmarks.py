"""sigprop.pipeline.job_benchmarks: Snakemake's benchmark files and the jobs' start-up marks as one
table."""

import math
import os

import pytest

from sigprop.pipeline import job_benchmarks
from sigprop.pipeline.jobs import STARTUP_MARK

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def bench(root, job, seconds, cpu, rss, end):
    path = root / "benchmarks" / f"{job}.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{seconds}\t0:00:01\t{rss}\t0\t0\t0\t0\t0\t0\t{cpu}\n")
    os.utime(path, (end, end))
    return path


def test_collect_and_summarize(tmp_path):
    bench(tmp_path, "fam/simulate_a", 10.0, 9.5, 800.0, end=1000.0)
    bench(tmp_path, "fam/judge_a", 1.0, 0.5, 100.0, end=1002.0)
    bench(tmp_path, "fam/draw_b", 2.0, 1.0, 200.0, end=500.0)  # an earlier run
    log = tmp_path / "logs" / "fam" / "simulate_a.log"
    log.parent.mkdir(parents=True)
    log.write_text(f"x\n{STARTUP_MARK} 9.0 s\n{STARTUP_MARK} 1.5 s\n")  # the last mark counts
    jobs = job_benchmarks.collect(tmp_path / "benchmarks", tmp_path / "logs", since=900.0)
    assert sorted(jobs["job"]) == ["fam/judge_a", "fam/simulate_a"]
    row = jobs.set_index("job").loc["fam/simulate_a"]
    assert (row["rule"], row["s"], row["startup_s"], row["start"]) == ("simulate", 10.0, 1.5, 990.0)
    assert math.isnan(jobs.set_index("job").loc["fam/judge_a", "startup_s"])  # logs no mark
    summary = job_benchmarks.summarize(jobs)
    assert summary["wall_s"] == 1002.0 - 990.0 and summary["job_s"] == 11.0
    assert summary["startup_s"] == 1.5 and summary["startup_share"] == 1.5 / 10.0
    assert summary["peak_rss_job"] == "fam/simulate_a"
    assert "fam/simulate_a" in job_benchmarks.describe(summary)
    with pytest.raises(ValueError, match="no benchmark files"):
        job_benchmarks.summarize(job_benchmarks.collect(tmp_path / "none", tmp_path / "logs"))


def test_previous_seconds_is_the_last_run_or_zero(tmp_path):
    path = bench(tmp_path, "fam/simulate_a", 31.5, 30.0, 600.0, end=1.0)
    assert job_benchmarks.previous_seconds(path) == 31.5
    assert job_benchmarks.previous_seconds(tmp_path / "missing.tsv") == 0.0
    path.write_text("")  # a run interrupted while Snakemake wrote it
    assert job_benchmarks.previous_seconds(path) == 0.0
