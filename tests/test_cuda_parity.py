"""Same code on CPU and CUDA: every synthetic item of the tiny config, run with ``device=cuda``,
reaches the verdicts of a ``device=cpu`` run, each measured value inside the CPU run's interval
(the criterion the golden file applies between two CPUs, ``cli.compare_golden``): every random
number is drawn on the CPU (``sigprop.engine.seeding``), so the two runs differ by rounding only.

Skipped without CUDA; a GPU machine runs it (``bench/gpu_session.sh``). Real-data items are left
out of the workflow run: the GPU machines have no dataset and no network. Training is compared
below the workflow instead: Dan+20's and DJB21's training simulations on generated files
(``sigprop.datasets.generated_datasets``) on both devices, the CUDA run with its steps replayed from
CUDA graphs (``training.loop.Engine``), its curves within the training claims' margins of the CPU's.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import torch
from workflow_copy import ROOT, SNAKEMAKE, WORKFLOW_TIMEOUT_S, copy_workflow

from sigprop.cli import compare_golden, compare_ledgers, compute_items
from sigprop.datasets import generated_datasets
from sigprop.papers import load_registry
from sigprop.verdicts import claims

TINY = ROOT / ".test" / "config" / "config.yaml"

ROUNDING_SENSITIVE = {
    "mean_field.lemma_b1_b2.lemma3_3_control": "a Monte Carlo mean through the Gram map; on an "
    "H100 it moved 0.019 (about one SE) and its interval came to straddle the bound",
    "mean_field.mixing.decay": "the decay of a mixing chain: rounding grows along it, and the "
    "H100 value fell 0.02 outside the CPU interval (the intervals overlap)",
    "orthogonality.w2_depth.gelbrich_below_coupling": "a difference of two W2 estimates at "
    "depth, recorded without an interval: -0.0030 on the CPU, -0.0037 on an H100",
}
"""Claims whose tiny-config numbers move beyond their intervals under CUDA's rounding (first
H100 run, bench/README.md "GPU"): for them the two devices must only not contradict each other
(no claim holds on one and fails on the other)."""


def synthetic_targets() -> list[str]:
    """Claims files of the judged items none of whose compute items reads a dataset."""
    registry = load_registry()
    targets = []
    for family, item in registry.judged():
        computed = [
            registry.read_of(*key.split("/")) for key in compute_items(registry, family, item)
        ]
        if not any(getattr(read, "datasets", ()) for _, read in computed):
            targets.append(f"results/claims/{family}/{item.name}.json")
    return targets


def test_synthetic_targets_leave_out_exactly_the_real_data_items():
    targets = synthetic_targets()
    assert "results/claims/orthogonality/fig2b.json" in targets
    assert "results/claims/rank_collapse/lemma4.json" in targets
    assert "results/claims/rank_collapse/fig1.json" not in targets  # trains on Fashion-MNIST


@pytest.mark.workflow
@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
def test_cuda_run_reaches_the_cpu_verdicts(tmp_path):
    targets = synthetic_targets()
    cores = str(max(1, (os.cpu_count() or 2) // 2))
    runs = {}
    for device in ("cpu", "cuda"):  # the two runs at once, each on half the cores
        work = tmp_path / device
        work.mkdir()
        copy_workflow(work)
        shutil.copy(TINY, work / "tiny.yaml")
        command = [
            *SNAKEMAKE, "--cores", cores, *targets, "--keep-going",
            "--configfile", "tiny.yaml", "--config", f"device={device}",
        ]  # fmt: skip
        log = (work / "snakemake.log").open("w")
        runs[device] = subprocess.Popen(command, cwd=work, stdout=log, stderr=log)
    for device, run in runs.items():
        run.wait(timeout=WORKFLOW_TIMEOUT_S)
        log = (tmp_path / device / "snakemake.log").read_text()
        assert run.returncode == 0, f"{device}:\n{log[-4000:]}"
    cpu, cuda = (claims.ledger([tmp_path / d / t for t in targets]) for d in ("cpu", "cuda"))
    keep = os.environ.get("SIGPROP_PARITY_OUT")  # a GPU run keeps the comparison
    if keep:
        compare_ledgers(cuda, cpu).to_csv(Path(keep) / "cuda_parity.csv", index=False)
    problems = [p for p in compare_golden(cuda, cpu) if p.split(":")[0] not in ROUNDING_SENSITIVE]
    both = compare_ledgers(cuda, cpu).set_index("id")
    for claim in ROUNDING_SENSITIVE:
        verdicts = set(both.loc[claim, ["verdict_a", "verdict_b"]])
        if verdicts == {"holds", "fails"}:
            problems.append(f"{claim}: holds on one device, fails on the other")
    assert not problems, f"{len(problems)} differences, CUDA vs CPU:\n" + "\n".join(problems)


def test_rounding_sensitive_claims_are_claims():
    golden = pd.read_csv(ROOT / ".test" / "golden" / "quick_claims.csv")
    assert set(ROUNDING_SENSITIVE) <= set(golden["id"])


CURVE_MARGIN = 0.02
"""Largest accuracy difference (CUDA vs CPU) allowed on a training curve: below the margins the
training claims decide by (0.05: Dan+20 Fig. 1 ``chance_margin``, Thesis Figs. 6.4, C.5-C.8
``margin``), so rounding alone cannot move a verdict."""


def _training_runs(device: str, root) -> dict[str, torch.Tensor]:
    """Dan+20 (BN, vanilla, rank pre-trained) and DJB21 (orthogonalized, clipped) trainings at
    tiny sizes on generated data, every curve."""
    from sigprop.papers.orthogonality import training_simulations as djb21
    from sigprop.training.experiment import network_training

    common = dict(data_root=str(root), train_size=512, test_size=128, probe_size=64,
                  eval_size=128, batch_size=64, epochs=2, n_runs=2, device=device)  # fmt: skip
    pre = {"variant": "layer_wise", "optimizer": "adam", "lr": 0.01, "batch_size": 64, "steps": 2}
    dan = network_training(
        depths=[2, 6], width=32, lrs=[0.03, 0.1], log_every=3, pretraining=pre,
        networks={"BN": {"norm": "batch_norm"}, "vanilla": {"norm": "none"},
                  "pre": {"norm": "none", "pretrain_iterations": 2, "same_init_as": "vanilla"}},
        experiment_id="parity.dan", **common,
    )  # fmt: skip
    with generated_datasets.unchecked_cifar():
        djb = djb21.depth_orthogonality(
            dataset="cifar10", depths=[4], width=32, lrs=[0.01], bias=False, init="xavier_relu",
            init_batch_size=96, probes=["orthogonality_gap"], **common,
            networks={"Xavier": {"norm": "none"}, "AGC": {"norm": "none", "agc": 0.01},
                      "it": {"norm": "none", "orthogonalize": "code", "same_init_as": "Xavier"}},
        )  # fmt: skip
    out = {f"dan {k}": v for k, v in dan.values.items()}
    return out | {f"djb21 {k}": v for k, v in djb.values.items()}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
def test_cuda_training_simulations_reach_the_cpu_curves(tmp_path):
    """The training simulations on CUDA (graph replay) and on the CPU: losses within 1e-3
    relative, accuracies within ``CURVE_MARGIN``, the clipping shares within two of an epoch's
    40 (step, weight) pairs (a gradient at the threshold may be clipped on one device only)."""
    generated_datasets.write("fashion_mnist", tmp_path, 600, 200)
    generated_datasets.write("cifar10", tmp_path, 600, 200)
    cpu, cuda = (_training_runs(device, tmp_path) for device in ("cpu", "cuda"))
    assert cpu.keys() == cuda.keys()
    for key, value in cpu.items():
        other = cuda[key]
        if "accuracy" in key or "clip_share" in key:
            margin = 2 / 40 if "clip_share" in key else CURVE_MARGIN
            assert (other - value).nan_to_num().abs().max() <= margin, key
        elif "loss" in key:
            assert torch.allclose(other, value, rtol=1e-3, atol=1e-5, equal_nan=True), key
