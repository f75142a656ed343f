"""Paper-scale cost of the training simulations of Dan+20 Figs. 5, 7, 10, 13 (conv nets) and DJB21
Figs. 3, 4, 7, A.1 (MLPs and conv nets): counted FLOPs, the quick run's measured seconds, and
projections (not measurements) at paper scale.

Per simulation, at ``config/config.yaml`` (quick) and ``config/paper.yaml`` merged over it:

1. FLOPs per image of one training step (forward + backward) and of one evaluation (forward),
   counted by ``torch.utils.flop_counter.FlopCounterMode`` on the configured network (width
   multiplier, image size, channels; convolutions and matrix products, the rest uncounted).
2. The work: networks x step sizes x runs x SGD steps x batch for training; log points x
   (eval_size + test_size + probe_size) forward passes for evaluation.
3. Quick: the measured seconds of the DAG's job (``benchmarks/<family>/simulate_<sim>.tsv``,
   one thread, including start-up), hence the CPU's achieved FLOP rate on this workload.
4. Paper projections: CPU at that achieved rate (one core, same efficiency), and one H100 at two
   assumed sustained rates, 30 TFLOP/s (FP32 without TF32) and 150 TFLOP/s (TF32 or bf16 mixed
   precision with channels_last, about a third of the dense tensor-core peak). Assumptions, not
   measurements: no GPU was available when this was written; replace them with measured
   times (``snakemake --configfile config/paper.yaml results/<family>/<sim>.safetensors``).

Writes ``bench/results/training_cost.csv`` and prints a Markdown table.

Usage:  python bench/training_cost.py
"""

from __future__ import annotations

import csv
from pathlib import Path

import torch
import yaml
from torch.utils.flop_counter import FlopCounterMode

from sigprop.base.config import merge_configs
from sigprop.datasets.data import dataset_spec
from sigprop.nets import convnets
from sigprop.nets.mlp import MLP

ROOT = Path(__file__).resolve().parent.parent
SIMULATIONS = (
    ("rank_collapse", "breaking_bn_vgg"),
    ("rank_collapse", "breaking_bn_resnet"),
    ("rank_collapse", "gradient_alignment_vgg"),
    ("orthogonality", "depth_orthogonality"),
    ("orthogonality", "deep_convnets"),
)
TRAIN_SIZES = {"fashion_mnist": 60000, "mnist": 60000, "cifar10": 50000, "cifar100": 50000}
NATIVE = {"fashion_mnist": (1, 28), "mnist": (1, 28), "cifar10": (3, 32), "cifar100": (3, 32)}
GPU_RATES = {"gpu_h_fp32_30T": 30e12, "gpu_h_amp_150T": 150e12}


def _network(setup: dict, norm: str, depth: int | None):
    channels, native = NATIVE[setup["dataset"]]
    n_classes = dataset_spec(setup["dataset"])[1].n_classes
    if setup.get("architecture", "mlp") == "mlp":
        net = MLP(channels * native * native, setup["width"], depth, n_classes, norm)
        return net, torch.randn(2, channels * native * native)
    size = max(native, setup["image_size"])
    net = convnets.build(
        setup["architecture"], depth, norm=norm, in_channels=channels, n_classes=n_classes,
        width_multiplier=setup["width_multiplier"],
    )  # fmt: skip
    return net, torch.randn(2, channels, size, size)


def _flops(setup: dict, norm: str, depth: int | None) -> tuple[float, float]:
    """(training, evaluation) FLOPs per image of the setup's network with ``norm``."""
    net, x = _network(setup, norm, depth)
    with FlopCounterMode(display=False) as train_count:
        net(x).sum().backward()
    with torch.no_grad(), FlopCounterMode(display=False) as eval_count:
        net.eval()(x)
    return train_count.get_total_flops() / 2, eval_count.get_total_flops() / 2


def work(setup: dict) -> dict:
    """FLOPs of one simulation's training and evaluation."""
    n_train = setup["train_size"] or TRAIN_SIZES[setup["dataset"]]
    steps = setup["epochs"] * (n_train // setup["batch_size"])
    log_points = 1 + setup["epochs"] + (steps // setup["log_every"] if setup["log_every"] else 0)
    evaluated = setup["eval_size"] + (setup["test_size"] or 10000) + setup["probe_size"]
    members = len(setup["lrs"]) * setup["n_runs"]
    total_train = total_eval = 0.0
    for spec in setup["networks"].values():
        for depth in setup.get("depths") or [None]:
            per_train, per_eval = _flops(setup, spec["norm"], depth)
            total_train += members * steps * setup["batch_size"] * per_train
            total_eval += members * log_points * evaluated * per_eval
    return {"steps": steps, "train_flops": total_train, "eval_flops": total_eval}


def quick_seconds(family: str, name: str) -> float:
    path = ROOT / "benchmarks" / family / f"simulate_{name}.tsv"
    if not path.exists():
        return float("nan")
    with open(path) as handle:
        return float(next(csv.DictReader(handle, delimiter="\t"))["s"])


def main() -> None:
    quick_config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    paper_config = merge_configs(
        quick_config, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    )
    rows = []
    for family, name in SIMULATIONS:
        quick = work(quick_config[family][name])
        paper = work(paper_config[family][name])
        seconds = quick_seconds(family, name)
        quick_flops = quick["train_flops"] + quick["eval_flops"]
        paper_flops = paper["train_flops"] + paper["eval_flops"]
        rate = quick_flops / seconds
        row = {
            "simulation": f"{family}/{name}",
            "quick_gflop": quick_flops / 1e9,
            "quick_s": seconds,
            "cpu_gflop_per_s": rate / 1e9,
            "paper_steps": paper["steps"],
            "paper_pflop": paper_flops / 1e15,
            "work_ratio": paper_flops / quick_flops,
            "cpu_h_projected": paper_flops / rate / 3600,
        }
        row |= {key: paper_flops / r / 3600 for key, r in GPU_RATES.items()}
        rows.append(row)
    out = ROOT / "bench" / "results" / "training_cost.csv"
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print("| " + " | ".join(rows[0]) + " |")
    print("|" + "---|" * len(rows[0]))
    for row in rows:
        print("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v)
                                for v in row.values()) + " |")  # fmt: skip


if __name__ == "__main__":
    main()
