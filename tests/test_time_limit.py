"""A job longer than its cluster's time limit (issue 39) on the real one-node SLURM
(``tests/slurm/one_node.sh``): SLURM stops it at the limit, Snakemake resubmits it through
``profiles/slurm``, it continues from its checkpoint, and it ends in the bytes of a run that
was never interrupted.

The job is a training of the project's engine (``training.loop.train`` inside
``jobs.run_simulation``, which makes it resumable) whose epochs are stretched by a sleep after
each checkpoint, so its work (``EPOCHS`` x ``PAUSE_S``) outlasts the one-minute limit however
late SLURM enforces it (its check runs every 30 s, then ``KillWait``); its resources and retries
come from ``job_resources.placement`` and ``retries_for`` with ``max_runtime`` = 1, as the
compute rules' do. Skipped where no one-node SLURM can start; ``SIGPROP_SLURM=require`` (CI)
makes that a failure.
"""

import re
import subprocess
import textwrap

import pytest
from workflow_copy import ROOT

EPOCHS, PAUSE_S = 22, 5.0
"""110 s of work: past a one-minute limit that SLURM enforces up to 32 s late, so the first
attempt is always stopped; the rest takes one or two more attempts (the retries allow 13)."""

EXPERIMENT = """
import torch

from sigprop.nets.mlp import MLP
from sigprop.base.store import Labelled
from sigprop.training.loop import RunStack, TrainData, train


def experiment(device):
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(128, 8, generator=g), torch.randint(0, 3, (128,), generator=g)
    torch.manual_seed(1)
    stack = RunStack([MLP(8, 12, 3, 3, norm="batch_norm") for _ in range(2)])
    data = TrainData(x, y, x[:32], y[:32], x[:16], probe_y=y[:16])
    curves = train(stack, data, torch.tensor([0.05, 0.1]), EPOCHS, 32, "test.time_limit", [0, 1],
                   momentum=0.9)
    tensors = curves.tensors()
    return Labelled(dims=["run", "point"],
                    coords={"run": [0, 1], "point": list(range(len(curves.step)))},
                    values={"loss": tensors["train_loss"], "accuracy": tensors["test_accuracy"]},
                    seeds={})
"""

SNAKEFILE = """
import sys

sys.path.insert(0, "{src}")
from sigprop.pipeline.job_resources import placement, retries_for

# projected at 3 minutes on one core; the partition allows one
WHERE = placement("test/slow", "cpu", 10, 1000, {{"test/slow": {{"cpu_paper_s": "180"}}}},
                  max_runtime=1)
RETRIES, _ = retries_for({{"test/slow": WHERE}}, retries=0)


rule train:
    output: "trained.safetensors"
    resources: runtime=WHERE.runtime, mem_mb=WHERE.mem_mb
    retries: RETRIES
    script: "train.py"
"""

SCRIPT = """
import logging
import time

from sigprop.pipeline.jobs import run_simulation
from sigprop.base import checkpoints

EPOCHS, PAUSE_S = {epochs}, {pause}
{experiment}
save = checkpoints.save


def slow_save(path, state):  # an epoch that takes PAUSE_S
    save(path, state)
    time.sleep(PAUSE_S)


logging.basicConfig(level=logging.INFO)  # "resuming ..." into the SLURM job's log
checkpoints.save = slow_save
run_simulation(experiment, {{}}, "cpu", snakemake.output[0], code="test")
"""


@pytest.mark.workflow
@pytest.mark.expected_seconds(180)
def test_a_job_past_its_time_limit_resumes_on_its_retry_to_the_same_bytes(one_node, tmp_path):
    from sigprop.base.store import load
    from sigprop.pipeline.jobs import run_simulation

    work = tmp_path / "work"
    work.mkdir()
    (work / "Snakefile").write_text(SNAKEFILE.format(src=ROOT / "src"))
    script = SCRIPT.format(epochs=EPOCHS, pause=PAUSE_S, experiment=EXPERIMENT)
    (work / "train.py").write_text(script)
    run = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "snakemake") if (ROOT / ".venv").exists() else "snakemake",
         "--profile", str(ROOT / "profiles" / "slurm"), "--default-resources",
         "slurm_partition=local", "--slurm-no-account",
         "--slurm-init-seconds-before-status-checks", "2", "--slurm-keep-successful-logs"],
        cwd=work, env=one_node, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    submitted = re.findall(r"submitted with SLURM jobid (\d+) \(log: ([^)]+)\)", run.stderr)
    assert len(submitted) >= 2, run.stderr[-3000:]
    first_log = open(submitted[0][1]).read()
    assert "DUE TO TIME LIMIT" in first_log, first_log[-2000:]
    resumed_log = open(submitted[1][1]).read()
    assert "resuming test.time_limit" in resumed_log, resumed_log[-2000:]

    namespace = {"EPOCHS": EPOCHS}
    exec(textwrap.dedent(EXPERIMENT), namespace)
    reference = tmp_path / "reference.safetensors"
    run_simulation(namespace["experiment"], {}, "cpu", str(reference), code="test")
    resumed, uninterrupted = load(work / "trained.safetensors"), load(reference)
    assert resumed["coords"] == uninterrupted["coords"]
    for name, values in uninterrupted["values"].items():  # the tensors' bytes (the provenance
        assert resumed["values"][name].tobytes() == values.tobytes(), name  # names the script)
