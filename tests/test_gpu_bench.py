"""The GPU machine's script (``bench/gpu_session.sh``) without a GPU: it parses, keeps its steps
within 8 minutes of device time, and its Python entry points run in their CPU dry modes."""

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "gpu_session.sh"
SESSION_S = 480


def _run(*args: str, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable, **(env or {})}
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=ROOT)  # fmt: skip


def test_the_session_script_parses_and_its_caps_fit_8_minutes(tmp_path):
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    caps = dict(re.findall(r"\$\{(\w+_CAP):-(\d+)\}", SCRIPT.read_text()))
    assert set(caps) == {"ENV_CAP", "TEST_CAP", "PARITY_CAP", "AB_CAP", "TRAIN_CAP"}
    assert sum(int(v) for v in caps.values()) <= SESSION_S
    refused = _run(str(tmp_path), env={"PARITY_CAP": "130"}, timeout=30)
    assert refused.returncode == 2 and "over the 480 s of device time" in refused.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.expected_seconds(30)
def test_the_session_dry_run_runs_every_python_entry_point(tmp_path):
    """``--dry``: the engine A/B and the cut trainings at tiny sizes on the CPU, their CSVs
    dated and with the revision."""
    done = _run("--dry", str(tmp_path), env={"SIGPROP_REVISION": "abc123"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    text = (tmp_path / "gpu_environment.txt").read_text()
    assert "engine A/B (dry): exit 0" in text and "cut trainings (dry): exit 0" in text
    with (tmp_path / "gpu_training_engine.csv").open() as handle:
        engine = list(csv.DictReader(handle))
    assert [(r["norm"], r["variant"]) for r in engine] == [
        ("batch_norm", "old"), ("batch_norm", "new"), ("none", "old"), ("none", "new")
    ]  # fmt: skip
    assert {r["revision"] for r in engine} == {"abc123"} and all(r["date"] for r in engine)
    with (tmp_path / "gpu_training.csv").open() as handle:
        items = list(csv.DictReader(handle))
    assert [r["item"] for r in items] == [
        "rank_collapse/depth_training", "gradients/weight_orthogonality"
    ]  # fmt: skip
    assert {r["status"] for r in items} == {"ok"} and {r["revision"] for r in items} == {"abc123"}
    with (tmp_path / "gpu_training_stacks.csv").open() as handle:
        stacks = list(csv.DictReader(handle))
    assert len(stacks) == sum(int(r["stacks"]) for r in items)
    for s in stacks:  # the projection: set-up + paper steps x step + paper log points x point
        expected = (
            float(s["setup_s"])
            + int(s["paper_steps"]) * float(s["step_ms"]) / 1e3
            + int(s["paper_log_points"]) * float(s["log_point_s"])
        )
        assert float(s["projected_s"]) == pytest.approx(expected, rel=1e-9)
    for r in items:
        low = sum(float(s["projected_s"]) for s in stacks if s["item"] == r["item"])
        assert float(r["projected_paper_s_low"]) == pytest.approx(low, rel=1e-9)
        high = float(r["projected_paper_s_high"])
        assert high == pytest.approx(low + float(r["outside_s"]), rel=1e-9)
