"""Cluster jobs of the paper scale through the SLURM profile (issue 39, item 4): a dry run.

Runs ``snakemake -n --forceall all --profile profiles/slurm --configfile config/paper.yaml`` in a
checkout (``--repo``, default this one), with ``device=cuda`` and the profile's
``max_runtime``, its real-data datasets generated in their real formats (a few images each,
``sigprop.datasets.generated_datasets``) so that the check before any job passes without a network,
and counts what would go to the cluster: cluster jobs (a group job counts once), those with a GPU,
those asking <= 10 minutes, > 24 h, the longest request, the compute jobs inside groups, and
the compute jobs that run on the submitting machine (``simulate_tiny``, ``simulate_part_tiny``,
``measure_tiny``); a part of a split simulation (``simulate_part``) counts as a compute job. A
checkout without job groups or ``max_runtime`` (an older revision) is counted as it is, which
gives the before -> after of one change in one run:

    python bench/cluster_jobs.py --repo /path/to/old/checkout --label before
    python bench/cluster_jobs.py --label after

Appends a row to ``bench/results/cluster_jobs.csv`` (with the checkout's revision and the date).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
RESULTS = HERE / "bench" / "results" / "cluster_jobs.csv"
COLUMNS = ["date", "revision", "label", "cluster_jobs", "gpu_jobs", "asking_le_10_min",
           "asking_gt_24_h", "max_runtime_asked_min", "grouped_compute_jobs", "group_jobs",
           "local_compute_jobs", "max_runtime_setting"]  # fmt: skip
DATASETS = ("mnist", "fashion_mnist", "cifar10", "cifar100")


def dry_run(repo: Path, max_runtime: int | None) -> str:
    """The dry run's log (stdout and stderr) in ``repo``, with generated datasets."""
    sys.path.insert(0, str(HERE / "src"))
    from sigprop.datasets import generated_datasets

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        for name in DATASETS:
            generated_datasets.write(name, root, n_train=20, n_test=10)
        site = Path(tmp) / "site.yaml"
        site.write_text(
            f"data: {{root: {root}, download: false, apt: false, system_sources: false}}\n"
        )
        settings = ["device=cuda"] + ([f"max_runtime={max_runtime}"] if max_runtime else [])
        command = [
            sys.executable, "-m", "snakemake", "-n", "--forceall", "all",
            "--profile", "profiles/slurm", "--configfile", "config/paper.yaml", str(site),
            "--config", *settings, "--default-resources", "slurm_partition=gpu",
        ]  # fmt: skip
        with generated_datasets.unchecked_cifar():
            run = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=900)
    if run.returncode != 0:
        raise SystemExit(f"dry run failed in {repo}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    return run.stdout + run.stderr


def count(log: str) -> dict:
    """Cluster jobs of a dry run's log: top-level compute jobs and group jobs."""
    runtimes, gpus, grouped, groups = [], 0, 0, 0
    local = len(re.findall(r"^(?:local)?rule (?:simulate|simulate_part|measure)_tiny:", log, re.M))
    blocks = re.split(r"\n(?=\[[^\]]+\][ \n])", log)
    for block in blocks:
        if "Group job" in block.split("\n", 1)[0]:
            groups += 1
            inner = re.findall(r"runtime=(\d+)", block)
            grouped += len(inner)
            runtimes.append(sum(int(r) for r in inner))  # an upper bound: layers run in series
            continue
        rule = re.search(
            r"^\s*(?:\[[^\]]+\]\s*)?rule (simulate|simulate_part|measure):", block, re.M
        )
        if rule is None:
            continue
        resources = re.search(r"resources: (.*)", block)
        runtime = re.search(r"runtime=(\d+)", resources.group(1) if resources else "")
        runtimes.append(int(runtime.group(1)) if runtime else 0)
        gpus += bool(re.search(r"\bgpu=[1-9]", resources.group(1) if resources else ""))
    return {
        "cluster_jobs": len(runtimes),
        "gpu_jobs": gpus,
        "asking_le_10_min": sum(r <= 10 for r in runtimes),
        "asking_gt_24_h": sum(r > 1440 for r in runtimes),
        "max_runtime_asked_min": max(runtimes, default=0),
        "grouped_compute_jobs": grouped,
        "group_jobs": groups,
        "local_compute_jobs": local,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=HERE)
    parser.add_argument("--label", default="")
    parser.add_argument("--max-runtime", type=int, default=1440)
    args = parser.parse_args()
    schema = (args.repo / "workflow" / "schemas" / "config.schema.yaml").read_text()
    max_runtime = args.max_runtime if "max_runtime" in schema else None
    row = count(dry_run(args.repo, max_runtime))
    revision = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=args.repo, capture_output=True, text=True
    ).stdout.strip()
    row.update(date=datetime.date.today().isoformat(), revision=revision, label=args.label,
               max_runtime_setting=max_runtime or "")  # fmt: skip
    new = not RESULTS.exists()
    with RESULTS.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        writer.writerow(row)
    print(", ".join(f"{k}={row[k]}" for k in COLUMNS))


if __name__ == "__main__":
    main()
