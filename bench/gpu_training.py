"""Real-data simulations at paper shapes on a GPU (issue 25, items 2 and 5): does each run, how
long would the paper run take, how much memory does it need.

Every simulation that reads a dataset runs at ``config/paper.yaml`` (merged over the quick
config) on generated files in the real formats at full size (``sigprop.generated_datasets``:
CIFAR-10/100 and MNIST/Fashion-MNIST, random pixels), so its networks, widths, batch sizes and
image sizes are the seeds'. Only loops are cut:

- training simulations (a config with ``epochs``): one run, one epoch, on two cut training
  sets of A and B images; wall seconds t_A, t_B, projected as T(n) = a + b n to the paper's
  ``n_runs x (a + epochs x b N)`` (low: a, the set-up and one evaluation, once per run) and
  ``n_runs x epochs x (a + b N)`` (high: a once per epoch), N the full training set: projections
  from measured cut runs, not measurements of the paper run;
- probes at initialization (no ``epochs``): the paper config as it is, timed whole, with
  ``n_runs`` cut to 1 where it has one (``runs_cut`` says so).

Per row: the status (``ok``, ``timeout > T s`` or the error: a crash at paper shapes is a
finding), the times, and the peak GPU memory of the run. Rows are rewritten after each item.

Usage:  python bench/gpu_training.py [--out bench/results/gpu_training.csv] [--budget 300]
                                     [--timeout 60] [--device cuda] [--only family/item ...]
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpu_cost  # noqa: E402
import paper_cost  # noqa: E402
import torch  # noqa: E402
import yaml  # noqa: E402

from sigprop import generated_datasets  # noqa: E402
from sigprop.config import merge_configs  # noqa: E402
from sigprop.data import dataset_spec  # noqa: E402
from sigprop.paper_smoke import with_data_root  # noqa: E402
from sigprop.papers import load_registry  # noqa: E402
from sigprop.registry import dataset_names  # noqa: E402

ROOT = paper_cost.ROOT
COLUMNS = [
    "item", "device", "dataset", "kind", "n_A", "t_A", "n_B", "t_B", "paper_n_runs",
    "paper_epochs", "train_images", "projected_paper_s_low", "projected_paper_s_high",
    "runs_cut", "peak_mb", "status",
]  # fmt: skip


def timed(item, setup: dict, timeout: int) -> dict:
    """Wall seconds (GPU queue drained) and peak GPU memory of one run of ``item``."""
    if gpu_cost.DEVICE == "cuda":
        torch.cuda.reset_peak_memory_stats()
    with generated_datasets.unchecked_cifar():
        result = gpu_cost.wall(gpu_cost.on_device(item, setup), timeout)
    if gpu_cost.DEVICE == "cuda":
        result["peak_mb"] = torch.cuda.max_memory_allocated() / 2**20
    return result


def training_row(item, paper_setup: dict, sizes: tuple[int, int], timeout: int) -> dict:
    train_images = generated_datasets.SIZES[dataset_spec(paper_setup["dataset"])[0]][0]
    row = {"kind": "training", "paper_n_runs": paper_setup.get("n_runs", 1),
           "paper_epochs": paper_setup["epochs"], "train_images": train_images}  # fmt: skip
    smallest = max(sizes[0], paper_setup.get("init_batch_size", 0))  # the init's batch fits
    for name, n in zip(("A", "B"), (smallest, smallest + sizes[1] - sizes[0]), strict=True):
        cut = {"n_runs": 1, "epochs": 1, "train_size": n}
        run = timed(item, paper_setup | cut, timeout)
        row[f"n_{name}"], row["peak_mb"] = n, run.get("peak_mb")
        if run["status"] != "ok":
            return row | {"status": f"{name}: {run['status']}"}
        row[f"t_{name}"] = run["s"]
    return row | projection(row) | {"status": "ok"}


def projection(row: dict) -> dict:
    """The paper run's seconds from T(n) = a + b n: a once per run (low) or per epoch (high).

    No projection (NaN) when the larger cut run was not slower: its time is not linear in the
    images (a fixed cost, such as an initialization on a fixed batch, dominates both).
    """
    per_image = (row["t_B"] - row["t_A"]) / (row["n_B"] - row["n_A"])
    if per_image <= 0:
        return {"projected_paper_s_low": float("nan"), "projected_paper_s_high": float("nan")}
    fixed = row["t_A"] - per_image * row["n_A"]
    epochs = row["paper_epochs"] * per_image * row["train_images"]
    return {
        "projected_paper_s_low": row["paper_n_runs"] * (fixed + epochs),
        "projected_paper_s_high": row["paper_n_runs"] * (row["paper_epochs"] * fixed + epochs),
    }


def probe_row(item, paper_setup: dict, timeout: int) -> dict:
    cut = {"n_runs": 1} if paper_setup.get("n_runs", 1) > 1 else {}
    run = timed(item, paper_setup | cut, timeout)
    return {"kind": "probe", "t_A": run.get("s"), "runs_cut": bool(cut),
            "peak_mb": run.get("peak_mb"), "status": run["status"]}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=paper_cost.RESULTS / "gpu_training.csv")
    parser.add_argument("--budget", type=float, default=300, help="no item starts after (s)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per timed run")
    parser.add_argument("--sizes", type=int, nargs=2, default=(1280, 3840), help="A and B images")
    parser.add_argument("--device", default="cuda", help="cpu: try the harness without a GPU")
    parser.add_argument("--only", nargs="*", help="family/item keys to run (default: all)")
    args = parser.parse_args()
    gpu_cost.DEVICE = args.device
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_training: CUDA is not available")
    quick = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    paper = merge_configs(quick, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()))
    todo = [e for e in paper_cost.setups(paper, load_registry()) if getattr(e[1], "datasets", ())]
    if args.only:
        todo = [e for e in todo if f"{e[0]}/{e[1].name}" in args.only]
    todo.sort(key=lambda e: "epochs" not in e[2])  # trainings first: the paper run's bulk
    root = Path(tempfile.mkdtemp(prefix="sigprop-generated-"))
    device = torch.cuda.get_device_name() if args.device == "cuda" else "cpu (1 thread)"
    if args.device == "cuda":  # CUDA's context and libraries load here, not in the first row
        (torch.ones(64, 64, device="cuda") @ torch.ones(64, 64, device="cuda")).sum().item()
    start, rows, written = time.time(), [], set()
    for family, item, paper_setup in todo:
        if time.time() - start > args.budget:
            break
        names = dataset_names(item, paper)
        for name in set(names) - written:
            generated_datasets.write(name, root)
            written.add(name)
        setup = with_data_root(paper_setup, str(root))
        key = f"{family}/{item.name}"
        if "epochs" in setup:
            row = training_row(item, setup, tuple(args.sizes), args.timeout)
        else:
            row = probe_row(item, setup, args.timeout)
        rows.append({"item": key, "device": device, "dataset": "+".join(names), **row})
        low, high = row.get("projected_paper_s_low"), row.get("projected_paper_s_high")
        print(f"{key}: {row['status']}, t_A {row.get('t_A')}, projected {low}-{high} s, "
              f"peak {row.get('peak_mb')} MB", flush=True)  # fmt: skip
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS)
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
