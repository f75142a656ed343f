"""Where a compute job runs and what it asks a cluster for: device, GPUs, runtime, memory.

Read by the Snakefile for the ``simulate`` and ``measure`` rules, from the item's registry
entry, the config's ``device`` and the paper-scale cost table shipped in this package
(``cost_table.csv``, read by ``cost_table``; ``bench/cost_table.py`` merges it from the measured
tables under ``bench/results/``, and ``bench/paper_cost.py`` rewrites it): projected paper-scale
seconds on one CPU core and on an H100, flags such as "launch-bound: slower on the GPU than on
one core", and the measurements named below.

- **Device.** ``device: cpu`` runs everything on the CPU. ``cuda`` runs every job on CUDA,
  except the items slower on the GPU than on one CPU core, which stay on the CPU (and ask for
  no GPU): measured so on an H100 (``bench/results/gpu_cost.csv``, ``cpu_over_gpu`` < 1), or,
  where nothing was measured, so marked by the cost table's model. ``auto`` lets each job take
  CUDA where its node has it (with the same exception) and asks for no GPU.
- **GPUs.** One exactly when the job will run on CUDA.
- **Runtime** (minutes, SLURM's ``--time``): the projection for the job's device times
  ``RUNTIME_MARGIN`` plus ``RUNTIME_OVERHEAD_MIN``, at least ``MIN_RUNTIME_MIN``; the item's
  declared ``runtime`` where the table projects nothing. Real-data trainings on CUDA take the
  projection of ``bench/results/gpu_training.csv`` (cut runs at paper shapes on an H200) where
  it has one; training checkpoints every epoch, so a job that hits its limit resumes when rerun.
- **Tiny jobs** (projected under ``TINY_SECONDS`` on one CPU core at the run's scale): on the
  CPU, asking for their projection plus ``TINY_OVERHEAD_MIN``; the workflow runs them on the
  main process's machine (rules ``simulate_tiny``, ``measure_tiny``), never submitted: a
  cluster job starts Snakemake twice (the job and its step) and parses the workflow each time,
  seconds of CPU that a tiny job's own work does not reach.
- **Time limit** (``max_runtime``, minutes: the partition's maximum time, a site setting): a
  job whose runtime would exceed it asks for exactly the maximum and needs ``attempts`` > 1:
  SLURM stops it at the limit, Snakemake resubmits it (the compute rules' ``retries`` cover the
  longest job, ``retries_for``), and it continues from its checkpoint until done.
- **Parts** of a split simulation (``registry.Split``, config ``split_simulations``): each is
  placed as its item with every projected time scaled by the part's ``share`` (an upper bound
  of its fraction of the item's work), its memory as the item's.
- **Memory**: the item's declared ``mem_mb``, raised to ``MEMORY_MARGIN`` times the peak that a
  paper-scale run measured where one did (``bench/results/paper_cpu_jobs.csv``: CPU seconds and
  peak resident memory per job of the first paper-scale ledger); a measured CPU time also
  replaces the projection for the runtime on the CPU, and a measured H100 time the model's
  on the GPU.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

__all__ = [
    "COST_TABLE", "MAX_TIME_LIMIT_ATTEMPTS", "TINY_SECONDS",
    "Placement", "cost_table", "gpu_seconds", "number", "placement", "retries_for",
]  # fmt: skip

COST_TABLE = "cost_table.csv"
"""The cost table, a data file of this package: ``item`` (``family/item``) and the columns
``quick_s``, ``cpu_paper_s``, ``paper_gpu_s``, ``flags``, ``status`` of
``bench/results/paper_cost.csv``; ``cpu_s``, ``max_rss_mb`` of ``paper_cpu_jobs.csv`` (measured
paper-scale jobs); ``gpu_s``, ``cpu_over_gpu`` of ``gpu_cost.csv`` (measured H100 projections,
``bench/gpu_cost.py``), or for real-data trainings ``gpu_s`` of ``gpu_training.csv`` (the paper
run projected from cut runs at paper shapes on an H200, ``bench/gpu_training.py``: per stack of
runs and step sizes, the time outside training counted once; the upper projection)."""

MEMORY_MARGIN = 1.5

CPU_FASTER = "slower on the GPU than on one core"
"""The cost table's flag for an item that should stay on the CPU."""

RUNTIME_MARGIN = 3.0
RUNTIME_OVERHEAD_MIN = 5
MIN_RUNTIME_MIN = 10

TINY_SECONDS = 60.0
"""A job projected under this many seconds on one CPU core is tiny: it runs on the CPU (no GPU
request: a GPU's start-up alone costs seconds) and is not submitted to a cluster."""

TINY_OVERHEAD_MIN = 2
"""Minutes added to a tiny job's runtime for its start-up (imports)."""

MAX_TIME_LIMIT_ATTEMPTS = 20
"""The most attempts a job is given to finish across time limits (``retries_for``): a job
projected to need more asks for a longer partition (``max_runtime``) or a GPU instead."""


@dataclass(frozen=True)
class Placement:
    """One job's device (``cpu``, ``cuda`` or ``auto``) and cluster resources; ``attempts``:
    how many time limits of ``runtime`` minutes its projected work spans (1 without a cap);
    ``tiny``: projected under ``TINY_SECONDS`` on one core (run where the workflow runs)."""

    device: str
    gpus: int
    runtime: int
    mem_mb: int
    attempts: int = 1
    tiny: bool = False


def cost_table(path: str | os.PathLike | None = None) -> dict[str, dict[str, str]]:
    """The cost table: ``family/item`` -> its row (column -> the value as written, only the
    columns that have one). ``path``: another table of the same columns; None (the default):
    the table shipped in this package (``COST_TABLE``, read through ``importlib.resources``).
    An absent ``path`` gives {}."""
    if path is None:
        text = resources.files(__package__).joinpath(COST_TABLE).read_text()
    elif Path(path).exists():
        text = Path(path).read_text()
    else:
        return {}
    return {
        row["item"]: {k: v for k, v in row.items() if v}
        for row in csv.DictReader(io.StringIO(text, newline=""))
    }


def number(row: dict[str, str] | None, column: str) -> float:
    """A non-negative number of a cost-table row (seconds, MB); NaN where absent or invalid."""
    try:
        value = float((row or {}).get(column) or "nan")
    except ValueError:
        return math.nan
    return value if value >= 0 else math.nan


def gpu_seconds(row: dict[str, str] | None) -> float:
    """Paper-scale seconds on a GPU: measured (``gpu_s``: an H100 item of ``gpu_cost.csv``, or
    the H200 projection of a training from ``gpu_training.csv``) where there is one, else the
    cost table's H100 model (``paper_gpu_s``); NaN where neither."""
    measured = number(row, "gpu_s")
    return measured if math.isfinite(measured) else number(row, "paper_gpu_s")


def placement(
    key: str,
    device: str,
    runtime: int,
    mem_mb: int,
    costs: dict[str, dict[str, str]],
    paper_scale: bool = True,
    max_runtime: int | None = None,
    share: float = 1.0,
) -> Placement:
    """The placement of item ``key`` (``family/item``) under config ``device``; ``runtime``
    (minutes) and ``mem_mb`` are the item's declared resources. The paper-scale measurements
    (``cpu_s``, ``max_rss_mb``) apply only where the item runs at paper scale. ``max_runtime``
    (minutes, the partition's maximum; None: no cap) caps the runtime asked for. ``share``:
    the job does at most this fraction of the item's work (a part of a split simulation), so
    every projected or measured time, and the declared runtime, is scaled by it."""
    if device not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be auto, cpu or cuda, got {device!r}")
    if max_runtime is not None and max_runtime < 1:
        raise ValueError(f"max_runtime must be at least 1 minute, got {max_runtime}")
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share}")
    row = _scaled(costs.get(key), share)
    runtime = runtime if share == 1 else max(1, math.ceil(runtime * share))
    ratio = number(row, "cpu_over_gpu")  # measured on an H100 beats the model's flag
    cpu_faster = ratio < 1 if math.isfinite(ratio) else CPU_FASTER in (row or {}).get("flags", "")
    cpu_seconds = _cpu_seconds(row, paper_scale)
    tiny = cpu_seconds < TINY_SECONDS
    chosen = "cpu" if device == "cpu" or cpu_faster or (tiny and device == "cuda") else device
    projected = gpu_seconds(row) if chosen == "cuda" else number(row, "cpu_paper_s")
    if paper_scale and chosen != "cuda" and math.isfinite(number(row, "cpu_s")):
        projected = number(row, "cpu_s")  # measured beats projected
    if tiny:
        runtime = math.ceil(cpu_seconds / 60 * RUNTIME_MARGIN) + TINY_OVERHEAD_MIN
    elif math.isfinite(projected):
        minutes = projected / 60 * RUNTIME_MARGIN + RUNTIME_OVERHEAD_MIN
        runtime = max(MIN_RUNTIME_MIN, math.ceil(minutes))
    peak = number(row, "max_rss_mb")
    if paper_scale and math.isfinite(peak):
        mem_mb = max(mem_mb, 500 * math.ceil(peak * MEMORY_MARGIN / 500))
    attempts = 1 if max_runtime is None else max(1, math.ceil(runtime / max_runtime))
    runtime = runtime if max_runtime is None else min(runtime, max_runtime)
    return Placement(chosen, int(chosen == "cuda"), int(runtime), int(mem_mb), attempts, tiny)


SECONDS_COLUMNS = ("quick_s", "cpu_paper_s", "paper_gpu_s", "cpu_s", "gpu_s")
"""The cost table's columns of a job's seconds (``_scaled``)."""


def _scaled(row: dict[str, str] | None, share: float) -> dict[str, str] | None:
    """A cost-table row with its seconds (``SECONDS_COLUMNS``) times ``share``."""
    if row is None or share == 1:
        return row
    scaled = {k: f"{number(row, k) * share:.6g}" for k in SECONDS_COLUMNS if k in row}
    return {**row, **{k: v for k, v in scaled.items() if v != "nan"}}


def _cpu_seconds(row: dict[str, str] | None, paper_scale: bool) -> float:
    """Projected seconds of the job on one CPU core at its scale (NaN where unknown): at paper
    scale measured (``cpu_s``) or projected (``cpu_paper_s``), at quick scale the cost table's
    timing of the quick config (``quick_s``)."""
    if not paper_scale:
        return number(row, "quick_s")
    measured = number(row, "cpu_s")
    return measured if math.isfinite(measured) else number(row, "cpu_paper_s")


def retries_for(placements: dict[str, Placement], retries: int) -> tuple[int, list[str]]:
    """The retries a compute rule needs: ``retries`` (for failures) plus the extra attempts of
    its longest job across time limits, at most ``MAX_TIME_LIMIT_ATTEMPTS`` in all; and the
    jobs (keys of ``placements``) projected to need more than that."""
    most = max((p.attempts for p in placements.values()), default=1)
    beyond = sorted(k for k, p in placements.items() if p.attempts > MAX_TIME_LIMIT_ATTEMPTS)
    return retries + min(most, MAX_TIME_LIMIT_ATTEMPTS) - 1, beyond
