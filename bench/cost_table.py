"""The cost table the package ships (``src/sigprop/pipeline/cost_table.csv``), merged from
measurements.

``sigprop.pipeline.job_resources.cost_table`` reads it at run time: one row per compute item, with
the columns that placement, ``sigprop targets`` and ``sigprop decide`` read. Each comes from one of
the tables under ``bench/results/``, copied as written there:

- ``paper_cost.csv`` (``bench/paper_cost.py``): ``quick_s``, ``cpu_paper_s``, ``paper_gpu_s``
  (the H100 model), ``flags``, ``status``;
- ``paper_cpu_jobs.csv`` (the compute jobs of the first paper-scale ledger): ``cpu_s``,
  ``max_rss_mb``;
- ``gpu_cost.csv`` (``bench/gpu_cost.py``, rows ``ok`` or a slow quick warm-up only): ``gpu_s``
  (its ``gpu_paper_s``), ``cpu_over_gpu``;
- ``gpu_training.csv`` (``bench/gpu_training.py``, rows ``ok``): ``gpu_s`` (its
  ``projected_paper_s_high``, the upper projection).

``bench/paper_cost.py`` rewrites the shipped table after each run; after a new ``gpu_cost.csv``,
``gpu_training.csv`` or ``paper_cpu_jobs.csv``, ``python bench/cost_table.py`` does.
Standard library only.
"""

from __future__ import annotations

import csv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SHIPPED = ROOT / "src/sigprop/pipeline/cost_table.csv"
"""The table inside the package (declared as package data in pyproject.toml)."""

COLUMNS = [
    "item", "quick_s", "cpu_paper_s", "paper_gpu_s", "flags", "status", "cpu_s", "max_rss_mb",
    "gpu_s", "cpu_over_gpu",
]  # fmt: skip


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def merge(results: Path = RESULTS) -> dict[str, dict[str, str]]:
    """``family/item`` -> its merged row (only the columns that have a value) from the tables
    under ``results``; a later table's value replaces an earlier one's (``gpu_s``: the training
    projection over the H100 measurement)."""
    rows: dict[str, dict[str, str]] = {}
    for row in _rows(results / "paper_cost.csv"):
        rows[row["item"]] = {k: row[k] for k in COLUMNS if row.get(k)}
    for row in _rows(results / "paper_cpu_jobs.csv"):
        rows.setdefault(row["item"], {"item": row["item"]}).update(
            cpu_s=row["cpu_s"], max_rss_mb=row["max_rss_mb"]
        )
    for row in _rows(results / "gpu_cost.csv"):
        # a slow warm-up run at the quick config ("quick ...") leaves A and B valid
        if row["status"] == "ok" or row["status"].startswith("quick "):
            rows.setdefault(row["item"], {"item": row["item"]}).update(
                gpu_s=row["gpu_paper_s"], cpu_over_gpu=row["cpu_over_gpu"]
            )
    for row in _rows(results / "gpu_training.csv"):
        if row["status"] == "ok" and row.get("projected_paper_s_high"):
            rows.setdefault(row["item"], {"item": row["item"]}).update(
                gpu_s=row["projected_paper_s_high"]
            )
    return rows


def write(results: Path = RESULTS, path: Path = SHIPPED) -> Path:
    """Write the merged table of ``results`` to ``path`` (the shipped table by default)."""
    rows = merge(results)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows.values())
    return path


if __name__ == "__main__":
    print(f"cost table: {write()}")
