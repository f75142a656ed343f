"""The README's "Add a figure" recipe, followed to the letter in a temporary copy of the repository:
a new simulation (one config key), a judge with one claim that can fail, and a figure drawn by the
script of its kind. It plans (``snakemake -n``), then runs at the tiny config, where the new item
has no entry (the tiny config is merged over ``config/config.yaml``), and lands its claim in the
ledger of a run that covers only it (config ``items``). The files written by hand are counted:
at most six (docs/adding-a-figure.md)."""

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from workflow_copy import ROOT, copy_workflow, job_counts, snakemake

MAX_FILES = 6
"""The hand-written files of a figure on a new simulation (README, "Add a figure")."""

CONFIG = """\
  norm_chain:           # simulation for the norm figure: |h_l|^2 / d of a Gaussian linear chain
    width: 256
  norm_fig:             # the norm figure
    min_ratio: 0.5              # the squared norm keeps at least this share at the last layer
"""

SCHEMA = """\
  norm_chain:
    type: object
    additionalProperties: false
    required: [width]
    description: simulation for the norm figure, |h_l|^2 / d through a Gaussian linear chain
    properties:
      width: {$ref: 'config.schema.yaml#/$defs/width', x-source: choice}
  norm_fig:
    type: object
    additionalProperties: false
    required: [min_ratio]
    description: the norm figure
    properties:
      min_ratio: {type: number, exclusiveMinimum: 0, description: share kept, x-source: choice}
"""

SIMULATION = '''\
"""|h_l|^2 / d through the linear chain h_(l+1) = W_l h_l / sqrt(d), W_l standard Gaussian."""

import torch

from ...base.store import Labelled
from ...engine.devices import resolve_device
from ...engine.seeding import generator

RUNS, DEPTH = 8, 10


def norm_chain(width: int, device: str = "auto", *, experiment_id: str) -> Labelled:
    """The squared norm per unit, ``ratio`` over dims (run, layer), from h_0 = 1."""
    on = resolve_device(device)
    ratios = torch.empty(RUNS, DEPTH + 1, dtype=torch.float64)
    for run in range(RUNS):
        g = generator(experiment_id, run, "weights")
        h = torch.ones(width, dtype=torch.float64, device=on)
        for layer in range(DEPTH + 1):
            ratios[run, layer] = h.square().mean().cpu()
            w = torch.randn(width, width, generator=g, dtype=torch.float64).to(on)
            h = w @ h / width**0.5
    coords = {"run": list(range(RUNS)), "layer": list(range(DEPTH + 1))}
    return Labelled(["run", "layer"], coords, {"ratio": ratios})
'''

JUDGE = '''\
"""The norm figure's claim: a Gaussian linear chain keeps the squared norm in the mean."""

from ...engine.stats import t_mean
from ...verdicts import claims


def norm_fig_claims(table, min_ratio: float) -> list:
    """|h_L|^2 / d at the last layer, Student-t over runs, at least ``min_ratio``."""
    last = table[table["layer"] == table["layer"].max()]
    return [
        claims.evaluate(
            "mean_field.norm_fig.norm_kept",
            f"the squared norm per unit at the last layer is at least {min_ratio}",
            "a new figure",
            "paper",
            t_mean(last["ratio"]),
            ">=",
            min_ratio,
        )
    ]
'''

ITEMS = """\
    Simulation("norm_chain", source="a new figure", run=lazy.norm_simulations.norm_chain),
    Figure(
        "norm_fig",
        source="a new figure",
        reads={"chain": "norm_chain"},
        params={"setup": "@chain"},
        constants={"x": "layer", "y": "ratio", "shows": "squared norm per unit vs layer"},
        script="kinds/lines.py",
        judge=norm_judges.norm_fig_claims,
        judge_args=("min_ratio",),
    ),
"""

UNIT_TEST = """\
import pandas as pd

from sigprop.papers.mean_field.norm_judges import norm_fig_claims


def test_a_collapsed_norm_fails():
    table = pd.DataFrame({"run": range(4), "layer": 10, "ratio": [0.1, 0.12, 0.09, 0.11]})
    assert norm_fig_claims(table, min_ratio=0.5)[0].verdict == "fails"
"""


def _insert_after(path: Path, line: str, text: str) -> None:
    """``text`` inserted after the first line of ``path`` that starts with ``line``."""
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, old in enumerate(lines) if old.startswith(line)) + 1
    path.write_text("".join(lines[:at]) + text + "".join(lines[at:]))


def _add_the_figure(work: Path) -> None:
    """The recipe of README.md, "Add a figure", for a figure on a new simulation."""
    _insert_after(work / "config/config.yaml", "mean_field:", CONFIG)
    _insert_after(work / "workflow/schemas/mean_field.schema.yaml", "properties:", SCHEMA)
    family = work / "src/sigprop/papers/mean_field"
    (family / "norm_simulations.py").write_text(SIMULATION)
    (family / "norm_judges.py").write_text(JUDGE)
    _insert_after(family / "items.py", "from .config_checks", "from . import norm_judges\n")
    _insert_after(family / "items.py", "ITEMS = [", ITEMS)
    (work / "tests").mkdir()
    (work / "tests/test_mean_field_norm.py").write_text(UNIT_TEST)


def _written(work: Path) -> list[str]:
    """The files of ``work`` that are new or differ from this checkout's (before any run)."""
    found = []
    for path in sorted(p for p in work.rglob("*") if p.is_file()):
        name = path.relative_to(work)
        if "__pycache__" not in name.parts and not (
            (ROOT / name).is_file() and filecmp.cmp(ROOT / name, path, shallow=False)
        ):
            found.append(name.as_posix())
    return found


@pytest.mark.workflow
@pytest.mark.expected_seconds(60)
def test_a_new_figure_is_six_files_and_lands_its_claim_in_the_ledger(tmp_path):
    work = copy_workflow(tmp_path)
    _add_the_figure(work)
    written = _written(work)
    assert len(written) <= MAX_FILES, f"{len(written)} hand-written files: {written}"
    env = {**os.environ, "PYTHONPATH": str(work / "src")}
    unit = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=work, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert unit.returncode == 0, unit.stdout[-2000:]
    shutil.copy(ROOT / ".test/config/config.yaml", work / "tiny.yaml")
    tiny = ("--configfile", "tiny.yaml", "--config", "items=[mean_field.norm_fig]")
    targets = ("figures/mean_field/norm_fig.pdf", "results/claims/mean_field/norm_fig.json")
    plan = snakemake(work, *targets, *tiny, "-n", env=env, check=False)
    assert plan.returncode == 0, plan.stdout[-3000:] + plan.stderr[-3000:]
    assert job_counts(plan.stdout) == {"simulate": 1, "draw": 1, "judge": 1}, plan.stdout
    run = snakemake(work, "all", *tiny, env=env, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    ledger = pd.read_csv(work / "results/claims.csv").set_index("id")
    claim = ledger.loc["mean_field.norm_fig.norm_kept"]
    assert claim["verdict"] in ("holds", "fails", "undecided"), (claim, written)
    assert (work / "figures/mean_field/norm_fig.pdf").stat().st_size > 0
