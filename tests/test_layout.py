"""The layout rules of issue 26, checked on the code (static: module-level imports).

Inside a family a file's name says its role: ``*_judges`` derive claims from tables (torch-free),
``*_tables`` make the tidy tables that figures plot and judges read (torch-free), ``*_spec`` hold
what a measurement and its judges share (torch-free); measurements and simulations compute. So a
measurement never imports a judge, a figure script never imports a judge, and no module reaches
into another's private names. A figure's or table's caption is written once, as its script's
docstring, and does not restate the claims its verdict list states. No function of sigprop is
longer than ``MAX_FUNCTION_LINES`` lines unless its docstring says why (a line starting with
``LONG_MARKER``, "Long because").
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_job_overhead import _imports_torch, _module_level_imports

from sigprop.base.config import merge_configs
from sigprop.base.registry import resolve
from sigprop.pipeline.jobs import render_description, script_description
from sigprop.pipeline.run_info import reference_configs

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "sigprop"
PAPERS = SRC / "papers"
SCRIPTS = ROOT / "workflow" / "scripts"
REPORT = ROOT / "workflow" / "report"

TABLES_WITH_TORCH = {"sigprop.papers.isometry.hermite_tables"}
"""A measurement of the seed's Tables 5.1-5.2 (its name is the thesis's), not a figure's tables."""


def _module(path: Path) -> str:
    return ".".join(path.relative_to(SRC.parent).with_suffix("").parts)


def _package(path: Path) -> str:
    return _module(path).rpartition(".")[0]


def _sigprop_files() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.level or "sigprop" in (node.module or "")):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_no_module_imports_another_modules_private_names():
    offenders = {
        str(p.relative_to(ROOT)): _private_imports(p)
        for p in [*_sigprop_files(), *SCRIPTS.rglob("*.py")]
    }
    assert not {k: v for k, v in offenders.items() if v}


def _is_judge(module: str) -> bool:
    return module.rpartition(".")[2].endswith("judges")


def test_only_judges_and_the_registry_import_judge_modules():
    """Judges are leaves: measurements, simulations, tables, specs and figure scripts never
    import one (the registry, ``items``, names each item's judge)."""
    offenders = []
    for path in PAPERS.rglob("*.py"):
        module = _module(path)
        if _is_judge(module) or path.name in {"items.py", "__init__.py"}:
            continue
        judges = [m for m in _module_level_imports(path, _package(path)) if _is_judge(m)]
        offenders += [f"{module} imports {m}" for m in judges]
    for path in SCRIPTS.rglob("*.py"):
        judges = [m for m in _module_level_imports(path, "") if _is_judge(m)]
        offenders += [f"{path.relative_to(ROOT)} imports {m}" for m in judges]
    assert not offenders, offenders


SPECS_AND_TABLES = sorted(
    p
    for p in [*SRC.rglob("*_spec.py"), *SRC.rglob("*_tables.py")]
    if _module(p) not in TABLES_WITH_TORCH
)


@pytest.mark.parametrize("path", SPECS_AND_TABLES, ids=lambda p: p.stem)
def test_spec_and_table_modules_are_torch_free(path):
    module = _module(path)
    assert not _imports_torch({module}), f"{module} imports torch at start-up"


ROLE_SUFFIXES = {
    "run": ("_simulations",),
    "measure": ("_theorems", "_lemmas"),
    "judge": ("_judges",),
}
"""The module suffix of each registry role's functions (docs/architecture.md, file roles)."""


def test_every_registry_function_lives_in_a_module_named_for_its_role():
    from sigprop.papers import load_registry

    registry, misplaced = load_registry(), []
    for kind in ("simulation", "theorem", "figure", "table"):
        for family, item in registry.items(kind):
            for role, suffixes in ROLE_SUFFIXES.items():
                function = getattr(item, role, None)
                if function is not None and not function.__module__.endswith(suffixes):
                    misplaced.append(f"{family}/{item.name}.{role}: {function.__module__}")
    assert not misplaced, "\n".join(misplaced)


def _drawn_items():
    from sigprop.papers import load_registry

    return [(f, item) for f, item in load_registry().items() if item.kind in ("figure", "table")]


def test_every_figure_and_table_script_docstring_is_its_caption():
    """The caption (``get_description`` in workflow/rules/common.smk) is the script's docstring:
    a first line saying what is plotted, then the description."""
    missing = []
    for family, item in _drawn_items():
        script = SCRIPTS / item.script_path
        first, _, description = script_description(script).partition("\n\n")
        if not first.strip() or not description.strip():
            missing.append(f"{family}.{item.name}: {script.relative_to(ROOT)}")
    assert not missing, "no caption after the docstring's first line:\n" + "\n".join(missing)


def test_no_per_item_description_file_remains():
    """workflow/report/ holds the report's generic pages and the setups that several captions
    share (setups/<family>/<name>.rst); an item's own text is its script's."""
    assert sorted(p.name for p in REPORT.iterdir()) == [
        "claims.rst",
        "item.rst",
        "setups",
        "theorem.rst",
        "verdicts.rst",
        "workflow.rst",
    ]


def test_every_shared_setup_is_included_by_the_captions_that_share_it():
    """A setup in workflow/report/setups/ is written once for at least two captions."""
    captions = [script_description(p) for p in SCRIPTS.rglob("*.py")]
    for setup in sorted((REPORT / "setups").rglob("*.rst")):
        name = setup.relative_to(REPORT / "setups").as_posix()
        users = [c for c in captions if f'{{% include "{name}" %}}' in c]
        assert len(users) >= 2, f"{name} is included by {len(users)} caption(s)"


RESTATED_CLAIMS = re.compile(r"\bClaims?\b|verdicts below|\bjudged?\b|\bchecks?:")
"""Prose that restates claims or their verdict logic; the caption's verdict list says it."""


def _scale_configs() -> dict[str, dict]:
    configs = reference_configs(ROOT / "config")
    tiny = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
    return {**configs, "custom": merge_configs(configs["quick"], tiny)}


@pytest.mark.parametrize("scale", ["quick", "paper", "custom"])
def test_captions_render_and_leave_the_claims_to_the_verdicts(scale):
    """Every caption renders at each scale (its Jinja finds its params and config keys) and
    restates no claim."""
    config = {**_scale_configs()[scale], "scale": scale}
    restating = []
    for family, item in _drawn_items():
        template = script_description(SCRIPTS / item.script_path)
        params = {"source": item.source, **resolve(item.params, config), **item.constants}
        wildcards = {"family": family, "item": item.name}
        text = render_description(template, params, config, wildcards, REPORT / "setups")
        assert "{{" not in text and "{%" not in text, f"{family}.{item.name}"
        restating += [f"{family}.{item.name}: {m}" for m in RESTATED_CLAIMS.findall(text)]
    assert not restating, restating


MAX_FUNCTION_LINES = 80
"""The most lines a function of sigprop spans, from its ``def`` to its last line, docstring
included (issue 26: split longer ones into named steps)."""

LONG_MARKER = "Long because"
"""A docstring line starting with this says why a longer function is clearest as it is (e.g.
an entry point whose signature is its item's config slice, one parameter per key)."""


def _long_functions(path: Path, root: Path = ROOT) -> list[str]:
    """``<file>:<line> <name> (<lines> lines)`` for each function of ``path`` (named relative to
    ``root``) longer than ``MAX_FUNCTION_LINES`` whose docstring has no line starting with
    ``LONG_MARKER``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        lines = node.end_lineno - node.lineno + 1
        doc = ast.get_docstring(node) or ""
        reason = any(line.strip().startswith(LONG_MARKER) for line in doc.splitlines())
        if lines > MAX_FUNCTION_LINES and not reason:
            found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_long_without_a_reason_in_its_docstring():
    """Issue 26: no function in src/sigprop over ``MAX_FUNCTION_LINES`` lines unless its
    docstring says why (a line starting with ``LONG_MARKER``)."""
    offenders = [f for path in _sigprop_files() for f in _long_functions(path)]
    assert not offenders, "\n".join(offenders)


def test_the_length_rule_sees_a_long_function_and_its_reason(tmp_path):
    """The rule counts from ``def`` to the last line and reads the marker in the docstring."""
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    long = tmp_path / "long.py"
    long.write_text(f'def f():\n    """Short."""\n{body}')
    explained = tmp_path / "explained.py"
    explained.write_text(
        f'def f():\n    """Short.\n\n    {LONG_MARKER} of a test.\n    """\n{body}'
    )
    at_limit = tmp_path / "at_limit.py"
    at_limit.write_text(f"def f():\n{body[: body.rindex('    x')]}")
    assert _long_functions(long, tmp_path) == [f"long.py:1 f ({MAX_FUNCTION_LINES + 2} lines)"]
    assert _long_functions(explained, tmp_path) == []
    assert _long_functions(at_limit, tmp_path) == []


STYLE_CHECKS = (
    ("ruff", "check", "src", "tests", "bench", "workflow/scripts"),
    ("ruff", "format", "--check", "src", "tests", "bench", "workflow/scripts"),
    ("snakefmt", "--check", "Snakefile", "workflow/rules"),
)
"""``make lint`` but ``snakemake --lint`` (tests/test_workflow.py): the formatters' verdicts."""


@pytest.mark.parametrize("command", STYLE_CHECKS, ids=lambda c: " ".join(c[:2]))
def test_the_code_passes_make_lint(command):
    """The style checks of ``make lint`` run in the suite too, so CI sees what they see."""
    tool = Path(sys.executable).parent / command[0]
    if not tool.exists():
        pytest.skip(f"{command[0]} is not installed beside this Python (pip install -e '.[dev]')")
    out = subprocess.run([str(tool), *command[1:]], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
