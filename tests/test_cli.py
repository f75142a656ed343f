"""The command line: sigprop list, show, golden, compare, summary, check-config."""

import math
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from sigprop import cli
from sigprop.engine import stats
from sigprop.papers import load_registry
from sigprop.verdicts import claims

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A folder with the config and schema, as the repository root."""
    for folder in ("config", "workflow/schemas"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _claims_of_fig2():
    """A paper claim that holds, a control that fails, an identity (rank_collapse.fig2)."""
    return [
        claims.evaluate(
            "rank_collapse.fig2.x", "s", "Dan+20 Fig. 2", "paper", stats.exact(1.0), "<=", 2.0
        ),
        claims.evaluate(
            "rank_collapse.fig2.c", "s", "ours", "control", stats.t_mean([3.0, 3.1, 2.9]), "<=", 2
        ),
        claims.evaluate(
            "rank_collapse.fig2.i", "s", "ours", "identity", stats.exact(1e-16), "<=", 1e-12
        ),
    ]


def test_list_leads_with_the_paper_claims_and_names_every_item(checkout, capsys):
    claims.write("results/claims/rank_collapse/fig2.json", _claims_of_fig2(), scale="quick")
    claims.write_ledger(
        ["results/claims/rank_collapse/fig2.json"], "results/claims.csv", "results/claims.md"
    )
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Paper claims: 1 hold, 0 fail, 0 undecided (of 1).")
    assert "control: 0 hold, 1 fail" in out and "identity: 1 hold" in out
    registry = load_registry()
    for family, item in registry.items():
        assert f"{family}  " in out and f" {item.name} " in out
    line = next(x for x in out.splitlines() if " fig2 " in x and x.startswith("rank_collapse"))
    assert "Dan+20 Fig. 2" in line
    assert "paper 1 hold, 0 fail; control 0 hold, 1 fail; identity 1 hold, 0 fail" in line


def test_show_prints_the_item_scale_with_each_claim(checkout, capsys):
    claims.write("results/claims/rank_collapse/fig2.json", _claims_of_fig2(), scale="quick")
    assert cli.main(["show", "rank_collapse.fig2"]) == 0
    out = capsys.readouterr().out
    # fig2 runs at the seed's own settings in both configs: its claims are paper scale
    assert "scale:      paper (this item's config slice" in out
    assert "HOLDS paper rank_collapse.fig2.x: 1 (exact) <= 2 (tol 0) [quick]" in out
    assert "FAILS control rank_collapse.fig2.c: 3 [" in out


def test_show_names_a_custom_scale_from_the_item_slice(checkout, capsys):
    (checkout / "over.yaml").write_text("rank_collapse:\n  depth_rank: {depth: 7}\n")
    assert cli.main(["show", "rank_collapse.fig1", "--configfile", "config/config.yaml"]) == 0
    assert "scale:      quick" in capsys.readouterr().out
    files = ["config/config.yaml", "over.yaml"]
    assert cli.main(["show", "rank_collapse.fig2", "--configfile", *files]) == 0
    assert "scale:      custom" in capsys.readouterr().out
    assert cli.main(["show", "rank_collapse.lemma4", "--configfile", *files]) == 0
    assert "scale:      custom" not in capsys.readouterr().out  # lemma4 does not read depth_rank


def test_show_resolves_a_figure_path_and_prints_code_config_inputs_claims(checkout, capsys):
    assert cli.main(["show", "figures/rank_collapse/fig2.pdf"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rank_collapse.fig2  (figure)")
    assert "source:     Dan+20 Fig. 2" in out and "judge:" in out and ".py:" in out
    assert "results/rank_collapse/depth_rank.safetensors (not built yet)" in out
    assert "claims: not run" in out
    with pytest.raises(SystemExit, match="no item writes figures/x/y.pdf"):
        cli.main(["show", "figures/x/y.pdf"])
    with pytest.raises(SystemExit, match="no item 'rank_collapse.nope'"):
        cli.main(["show", "rank_collapse.nope"])


GOLDEN_ROWS = pd.DataFrame(
    {
        "id": ["a.b.exact", "a.b.runs", "a.b.ident"],
        "kind": ["paper", "control", "identity"],
        "verdict": ["holds", "fails", "holds"],
        "measured": [1.0, 2.0, 1e-15],
        "low": [1.0, 1.5, 1e-15],
        "high": [1.0, 2.5, 1e-15],
        "interval": ["exact", "t", "exact"],
        "bound": [2.0, 1.3, 1e-12],
        "tolerance": [0.0, 0.0, 0.0],
        "relation": ["<=", "<=", "<="],
        "slack": [0.0, 0.1, 0.0],
    }
)
"""A golden file: an exact paper claim, a control from runs that moved under another kernel
path (slack 0.1; its limit 1.3 lies 0.2 below its interval, within reach of its half-width
0.5), an identity to round-off."""


def test_golden_pins_ids_kinds_verdicts_and_measured_values_to_their_slack():
    """Ids, kinds, verdicts (a run interval's may step to or from undecided where its limit
    lies within rounding of the recorded interval) and measured values within their slack."""
    golden = GOLDEN_ROWS
    assert cli.compare_golden(golden, golden) == []
    # another machine's rounding: run means that agree within half the two intervals' facing
    # half-widths combined (|2.3 - 2| <= 0.5 hypot(0.5, 0.4)), an exact value within 0.1% and
    # an identity's round-off anywhere below its own bound
    other = golden.assign(measured=[1.0005, 2.3, 3e-13], low=[1.0005, 1.9, 3e-13])
    other = other.assign(high=[1.0005, 2.7, 3e-13])
    assert cli.compare_golden(other, golden) == []
    # beyond: a run mean 0.7 off (0.5 hypot(0.5, 0.7) = 0.43), an exact value 0.2% off, even
    # within the claim's own tolerance (a tolerance is the seed's margin, not ours to spend)
    moved = golden.assign(measured=[1.002, 2.7, 2e-12], low=[1.002, 2.0, 2e-12])
    moved = moved.assign(high=[1.002, 3.4, 2e-12])
    assert cli.compare_golden(moved, golden) == [
        "a.b.exact: measured 1.0 -> 1.002",
        "a.b.ident: measured 1e-15 -> 2e-12",
        "a.b.runs: measured 2.0 [1.5, 2.5] -> 2.7",
    ]
    tolerant = golden.assign(tolerance=[0.05, 0.0, 0.0])
    assert cli.compare_golden(tolerant.assign(measured=[1.04, 2.0, 1e-15]), tolerant) == [
        "a.b.exact: measured 1.0 -> 1.04"
    ]
    relabelled = golden.assign(kind=["erratum", "control", "identity"])
    assert cli.compare_golden(relabelled, golden) == ["a.b.exact: kind paper -> erratum"]
    # a verdict that moves with rounding (a recorded slack) may step to or from undecided across
    # a limit within reach (here 0.2 from the edge, within the half-width 0.5), never from fails
    # to holds; a claim that did not move under another kernel path may not step at all
    stepped = golden.assign(verdict=["holds", "undecided", "holds"])
    assert cli.compare_golden(stepped, golden) == []
    assert cli.compare_golden(golden, stepped) == []
    flipped = golden.assign(verdict=["undecided", "holds", "fails"])
    assert cli.compare_golden(flipped, golden) == [
        "a.b.exact: verdict holds -> undecided",
        "a.b.ident: verdict holds -> fails",
        "a.b.runs: verdict fails -> holds",
    ]
    # ... but not where the limit lies far from the recorded interval (a loosened reading, a
    # widened interval): bound 0.5 lies 1.0 below the recorded interval's low edge
    far = golden.assign(bound=[2.0, 0.5, 1e-12])
    assert cli.compare_golden(far.assign(verdict=["holds", "undecided", "holds"]), far) == [
        "a.b.runs: verdict fails -> undecided"
    ]
    still = golden.assign(slack=0.0)
    assert cli.compare_golden(still.assign(verdict=["holds", "undecided", "holds"]), still) == [
        "a.b.runs: verdict fails -> undecided"
    ]
    assert cli.compare_golden(golden.iloc[:2], golden) == ["missing claim a.b.ident"]
    extra = pd.concat([golden, golden.iloc[:1].assign(id="a.b.new")])
    assert cli.compare_golden(extra, golden) == ["new claim a.b.new (not in the golden file)"]
    nan = golden.assign(measured=[math.nan, 2.0, 1e-15])
    assert cli.compare_golden(nan, golden) == ["a.b.exact: measured 1.0 -> nan"]
    assert cli.compare_golden(nan, nan) == []


DEFINED = dict(
    n=0,
    tolerance_reason="none: the relation and bound as stated, no margin",
    printed=math.nan,
    pair="",
    requires="",
    statement="s",
    source="Seed Fig. 1",
    scale="quick",
)


def test_golden_command_writes_verdicts_and_definitions_and_compares_both(checkout, capsys):
    ledger = checkout / "claims.csv"
    GOLDEN_ROWS.assign(**DEFINED).to_csv(ledger, index=False)
    args = ["golden", "--ledger", str(ledger), "--golden", "g.csv", "--definitions", "d.csv"]
    assert cli.main([*args, "--write"]) == 0
    written = pd.read_csv(checkout / "g.csv")
    assert list(written.columns) == cli.GOLDEN_COLUMNS
    assert list(written["id"]) == sorted(GOLDEN_ROWS["id"])
    assert list(pd.read_csv(checkout / "d.csv").columns) == claims.DEFINITION_COLUMNS
    assert cli.main(args) == 0
    moved = GOLDEN_ROWS.assign(measured=[1.0, 3.4, 1e-15], low=[1.0, 3.2, 1e-15])
    moved.assign(high=[1.0, 3.6, 1e-15], **DEFINED).to_csv(ledger, index=False)
    assert cli.main(args) == 1
    assert "a.b.runs: measured 2.0 [1.5, 2.5] -> 3.4" in capsys.readouterr().out
    # a loosened tolerance fails the check unless the definitions file is written with it
    loosened = GOLDEN_ROWS.assign(tolerance=[0.0, 0.1, 0.0], **DEFINED)
    reason = DEFINED["tolerance_reason"]
    loosened = loosened.assign(tolerance_reason=[reason, "wording: x", reason])
    loosened.to_csv(ledger, index=False)
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    assert "definition a.b.runs: tolerance 0.0 -> 0.1" in out
    assert "definition a.b.runs: tolerance_reason" in out
    assert (
        cli.main(["golden", "--ledger", str(ledger), "--golden", "g.csv", "--definitions", "x.csv"])
        == 1
    )
    assert "no recorded definitions at x.csv" in capsys.readouterr().out


def test_compare_sets_two_ledgers_side_by_side(checkout, capsys):
    a = GOLDEN_ROWS.assign(scale="quick")
    b = a.assign(
        verdict=["holds", "undecided", "holds"],
        measured=[1.0, 1.2, 1e-15],
        low=[1.0, 0.5, 1e-15],
        high=[1.0, 1.9, 1e-15],
    ).iloc[:2]
    a.to_csv(checkout / "a.csv", index=False)
    b.to_csv(checkout / "b.csv", index=False)
    both = cli.compare_ledgers(a, b).set_index("id")
    assert list(both["agree"]) == [True, False, False]
    assert both.loc["a.b.runs", "verdict_b"] == "undecided"
    assert cli.main(["compare", "a.csv", "b.csv"]) == 0
    out = capsys.readouterr().out
    assert "! control  a.b.runs: A fails 2 [1.5, 2.5] | B undecided 1.2 [0.5, 1.9]" in out
    assert "! identity a.b.ident: A holds 1e-15 | B absent" in out
    assert "a.b.exact" not in out  # agreeing claims only with --all
    assert "paper   : 1 agree, 0 differ, 0 in one ledger only" in out
    assert "control : 0 agree, 1 differ, 0 in one ledger only" in out
    assert "identity: 0 agree, 0 differ, 1 in one ledger only" in out
    assert "A paper claims: 1 hold, 0 fail" in out
    assert cli.main(["compare", "a.csv", "b.csv", "--all"]) == 0
    assert "= paper    a.b.exact: A holds 1 | B holds 1" in capsys.readouterr().out
    assert cli.main(["compare", "a.csv", "missing.csv"]) == 1


def test_summary_counts_claims_per_kind_family_and_verdict(checkout, capsys):
    ledger = GOLDEN_ROWS.assign(id=["x.f.a", "y.f.b", "x.g.c"])
    ledger = pd.concat([ledger, ledger.iloc[:1].assign(id="y.f.d", verdict="undecided")])
    table = cli.summary_table(ledger)
    lines = table.splitlines()
    assert lines[0] == "Paper claims: 1 hold, 0 fail, 1 undecided (of 2); 4 claims in all."
    assert lines[2] == "| kind | family | holds | fails | undecided | invalid | claims |"
    assert lines[4:] == [
        "| paper | x | 1 | 0 | 0 | 0 | 1 |",
        "| paper | y | 0 | 0 | 1 | 0 | 1 |",
        "| **paper** | **all** | **1** | **0** | **1** | **0** | **2** |",
        "| control | y | 0 | 1 | 0 | 0 | 1 |",
        "| **control** | **all** | **0** | **1** | **0** | **0** | **1** |",
        "| identity | x | 1 | 0 | 0 | 0 | 1 |",
        "| **identity** | **all** | **1** | **0** | **0** | **0** | **1** |",
    ]
    ledger.to_csv(checkout / "l.csv", index=False)
    assert cli.main(["summary", "l.csv"]) == 0
    assert capsys.readouterr().out == table
    readme, docs = checkout / "README.md", checkout / "items.md"
    readme.write_text(f"# x\n\n{cli.HEADLINE_START}\nold\n{cli.HEADLINE_END}\n\n## y\n")
    docs.write_text(f"# x\n\n{cli.SUMMARY_START}\nold\n{cli.SUMMARY_END}\n\n## y\n")
    assert cli.main(["summary", "l.csv", "--readme", "README.md", "--readme", "items.md"]) == 0
    headline = cli.headline_table(ledger)
    wrapped = "# x\n\n{}\n{}{}\n\n## y\n"
    assert readme.read_text() == wrapped.format(cli.HEADLINE_START, headline, cli.HEADLINE_END)
    assert docs.read_text() == wrapped.format(cli.SUMMARY_START, table, cli.SUMMARY_END)
    assert headline.splitlines() == [
        lines[0],
        "",
        "| kind | holds | fails | undecided | invalid | claims |",
        "|---|---:|---:|---:|---:|---:|",
        "| paper | 1 | 0 | 1 | 0 | 2 |",
        "| control | 0 | 1 | 0 | 0 | 1 |",
        "| identity | 1 | 0 | 0 | 0 | 1 |",
    ]
    readme.write_text(f"# no end\n\n{cli.HEADLINE_START}\nold\n")
    with pytest.raises(SystemExit, match="no block between"):
        cli.main(["summary", "l.csv", "--readme", "README.md"])
    readme.write_text("# no block\n")
    with pytest.raises(SystemExit, match="no generated block"):
        cli.main(["summary", "l.csv", "--readme", "README.md"])


def _block(path: Path, start: str, end: str) -> str:
    """The generated block between ``start`` and ``end`` in ``path`` (under the repository)."""
    text = (ROOT / path).read_text()
    assert start in text, f"{path} has no block {start}"
    return text.split(start + "\n")[1].split(end)[0]


STALE = "`sigprop summary --readme README.md --readme docs/items.md .test/golden/quick_claims.csv`"
"""The command that rewrites the generated blocks (``make golden`` runs it)."""


def test_the_generated_blocks_are_those_of_the_golden_file():
    """README.md's headline and docs/items.md's summary are generated from the golden ledger:
    ``sigprop summary --readme README.md --readme docs/items.md`` rewrites both after the golden
    file changes."""
    golden = pd.read_csv(ROOT / cli.GOLDEN, keep_default_na=False, na_values=[""])
    readme, docs = cli.DOCS
    headline = _block(readme, cli.HEADLINE_START, cli.HEADLINE_END)
    assert headline == cli.headline_table(golden), f"README.md's headline is stale: run {STALE}"
    summary = _block(docs, cli.SUMMARY_START, cli.SUMMARY_END)
    assert summary == cli.summary_table(golden), f"{docs}'s summary is stale: run {STALE}"
    assert headline.splitlines()[0] == summary.splitlines()[0]  # one headline
    decided = pd.read_csv(ROOT / cli.DECIDED, keep_default_na=False, na_values=[""])
    line = _block(readme, cli.DECIDED_START, cli.DECIDED_END)
    assert line == cli.decided_line(decided), f"README.md's decided line is stale: run {STALE}"


def test_the_items_table_is_generated_from_registry_and_golden_file(monkeypatch):
    """docs/items.md's table of items: one row per figure, table and theorem, what it shows taken
    from its script's caption or its measurement's docstring, its claims counted from the golden
    ledger; rewritten by the same `sigprop summary --readme` command."""
    monkeypatch.chdir(ROOT)
    block = _block(cli.DOCS[1], cli.ITEMS_START, cli.ITEMS_END)
    golden = pd.read_csv(cli.GOLDEN, keep_default_na=False, na_values=[""])
    expected = cli.items_table(load_registry(), golden)
    assert block == expected, f"docs/items.md's table of items is stale: run {STALE}"
    registry = load_registry()
    judged = [i for _, i in registry.items() if i.kind != "simulation"]
    assert len(block.splitlines()) == 2 + len(judged)
    assert "| none | none |" not in block  # every item has claims in the golden ledger


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


def test_affordable_targets_use_measured_gpu_seconds_before_the_model():
    """``sigprop targets``: an item is chosen when each of its compute items fits the budget;
    with ``gpu`` a measured H100 time beats the modelled one, and a missing one is a reason."""
    registry = load_registry()
    costs = {
        "orthogonality/gap_chain": {"cpu_paper_s": "5", "paper_gpu_s": "500", "gpu_s": "5"},
        "rank_collapse/lemma4": {"cpu_paper_s": "500", "paper_gpu_s": "5"},
    }
    chosen, left = cli.affordable_targets(registry, costs, 60)
    assert "results/claims/orthogonality/fig2b.json" in chosen
    assert "results/claims/rank_collapse/lemma4.json" not in chosen
    assert left["rank_collapse.lemma4"] == "rank_collapse/lemma4: 500 s projected"
    chosen, left = cli.affordable_targets(registry, costs, 60, gpu=True)
    assert {
        f"results/claims/{i}.json" for i in ("orthogonality/fig2b", "rank_collapse/lemma4")
    } <= set(chosen)
    assert "no projection" in left["orthogonality.fig5"]


def _recorded():
    """The golden file, the recorded definitions, and a ledger that reproduces both exactly."""
    golden = cli.read_ledger(ROOT / cli.GOLDEN)
    recorded = claims.read_definitions(ROOT / cli.DEFINITIONS)
    ledger = golden.drop(
        columns=[c for c in claims.DEFINITION_COLUMNS if c != "id"], errors="ignore"
    )
    ledger = ledger.merge(recorded, on="id")
    return ledger, pd.read_csv(ROOT / cli.GOLDEN), recorded


def _set(ledger: pd.DataFrame, claim: str, **values) -> pd.DataFrame:
    assert claim in set(ledger["id"]), claim
    changed = ledger.copy()
    for key, value in values.items():
        old = changed.loc[changed["id"] == claim, key]
        changed.loc[changed["id"] == claim, key] = value(old) if callable(value) else value
    return changed


def _fig6_sigmoid_loosened(ledger):
    """Issue 38's first wrong change: a looser tolerance, and the verdict it buys."""
    return _set(ledger, "orthogonality.fig6.slope_sigmoid", tolerance=0.07, verdict="holds")


WRONG_CHANGES = {
    "tolerance loosened (undecided -> holds)": _fig6_sigmoid_loosened,
    "a fail made undecided by a wider interval": lambda ledger: _set(
        ledger, "mean_field.fig3_4.slope_bn_linear", verdict="undecided", low=1.15
    ),
    "a fail made undecided, interval untouched": lambda ledger: _set(
        ledger, "mean_field.fig3_4.slope_bn_linear", verdict="undecided"
    ),
    "a bound lowered tenfold": lambda ledger: _set(
        ledger, "rank_collapse.fig3a.above_theorem14_floor_gamma_1", bound=0.1
    ),
    "a training mean shifted by +0.8": lambda ledger: _set(
        ledger,
        "rank_collapse.fig12.pretraining_faster_than_bn_deep",
        measured=lambda x: x + 0.8,
        low=lambda x: x + 0.8,
        high=lambda x: x + 0.8,
    ),
    "an exact value shifted by -0.9%": lambda ledger: _set(
        ledger,
        "rank_collapse.cor15.min_rank_tau0.5",
        measured=lambda x: x * 0.991,
        low=lambda x: x * 0.991,
        high=lambda x: x * 0.991,
    ),
    "a statement reworded": lambda ledger: _set(
        ledger, "rank_collapse.fig2.bn_relu_above_sqrt_d", statement="avg rank > 1"
    ),
}


@pytest.mark.parametrize("change", WRONG_CHANGES, ids=list(WRONG_CHANGES))
def test_the_golden_check_fails_on_each_wrong_change(change):
    """Issue 38: each change that a reviewer found passing the old golden check, fed to it
    through the recorded golden file and definitions, now fails it."""
    ledger, golden, recorded = _recorded()
    assert cli.golden_problems(ledger, golden, recorded) == []
    assert cli.golden_problems(WRONG_CHANGES[change](ledger), golden, recorded) != []


def test_a_recorded_tolerance_change_passes_and_shows_in_compare(checkout, capsys):
    """The same loosening with the definitions file written in the same commit passes the
    golden check, and `sigprop compare` names the definition that moved."""
    ledger, golden, recorded = _recorded()
    loosened = _fig6_sigmoid_loosened(ledger)
    assert cli.golden_problems(loosened, golden, claims.definitions(loosened)) == []
    ledger.to_csv(checkout / "a.csv", index=False)
    loosened.to_csv(checkout / "b.csv", index=False)
    assert cli.main(["compare", "a.csv", "b.csv"]) == 0
    out = capsys.readouterr().out
    assert "~ definition orthogonality.fig6.slope_sigmoid: tolerance 0.04 -> 0.07" in out
    assert "definitions: 1 changes (A -> B)" in out
