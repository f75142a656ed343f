"""The command line: sigprop list, show, golden, check-config."""

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from sigprop import claims, cli
from sigprop.papers import load_registry

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A folder with the config and schema, as the repository root."""
    for folder in ("config", "workflow/schemas"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_list_names_every_item_with_its_seed_and_verdicts(checkout, capsys):
    claim = claims.evaluate("rank_collapse.fig2.x", "s", "Dan+20 Fig. 2", 1.0, "<=", 2.0)
    claims.write("results/claims/rank_collapse/fig2.json", [claim])
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    registry = load_registry()
    for family, item in registry.items():
        assert f"{family}  " in out and f" {item.name} " in out
    line = next(x for x in out.splitlines() if " fig2 " in x and x.startswith("rank_collapse"))
    assert "Dan+20 Fig. 2" in line and "1 hold, 0 fail" in line


def test_show_resolves_a_figure_path_and_prints_code_config_inputs_claims(checkout, capsys):
    assert cli.main(["show", "figures/rank_collapse/fig2.pdf"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rank_collapse.fig2  (figure)")
    assert "seed:       Dan+20 Fig. 2" in out and "judge:" in out and ".py:" in out
    assert "results/rank_collapse/depth_rank.safetensors (not built yet)" in out
    assert "claims: not run" in out
    with pytest.raises(SystemExit, match="no item writes figures/x/y.pdf"):
        cli.main(["show", "figures/x/y.pdf"])
    with pytest.raises(SystemExit, match="no item 'rank_collapse.nope'"):
        cli.main(["show", "rank_collapse.nope"])


def test_golden_compares_verdicts_exactly_and_measured_values_to_rtol(checkout, capsys):
    golden = pd.DataFrame(
        {"id": ["a.b.c", "a.b.d"], "verdict": ["pass", "fail"], "measured": [1.0, 2.0]}
    )
    assert cli.compare_golden(golden, golden) == []
    moved = golden.assign(verdict=["pass", "pass"], measured=[1.0 + 1e-12, 2.5])
    problems = cli.compare_golden(moved, golden)
    assert problems == ["a.b.d: verdict fail -> pass", "a.b.d: measured 2.0 -> 2.5"]
    assert cli.compare_golden(golden.iloc[:1], golden) == ["missing claim a.b.d"]
    ledger = checkout / "claims.csv"
    golden.to_csv(ledger, index=False)
    assert cli.main(["golden", "--ledger", str(ledger), "--golden", "g.csv", "--write"]) == 0
    assert cli.main(["golden", "--ledger", str(ledger), "--golden", "g.csv"]) == 0
    moved.to_csv(ledger, index=False)
    assert cli.main(["golden", "--ledger", str(ledger), "--golden", "g.csv"]) == 1


def test_check_config_names_the_file_line_and_key(checkout, capsys):
    (checkout / "bad.yaml").write_text("rank_collapse:\n  depth_rank: {width: 3\n  bad: [\n")
    with pytest.raises(SystemExit, match=r"bad.yaml:3:6: invalid YAML"):
        cli.main(["check-config", "bad.yaml"])
    with pytest.raises(SystemExit, match="missing.yaml does not exist"):
        cli.main(["check-config", "missing.yaml"])
    (checkout / "neg.yaml").write_text("rank_collapse:\n  depth_rank: {depth: -3}\n")
    assert cli.main(["check-config", "neg.yaml"]) == 1
    assert "config key rank_collapse.depth_rank.depth: -3 is less than" in capsys.readouterr().out
    assert cli.main(["check-config", "config/paper.yaml"]) == 0


def test_the_console_script_is_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'sigprop = "sigprop.cli:main"' in text
    assert os.path.exists(ROOT / "src" / "sigprop" / "cli.py")
