"""The layout rules of issue 26, checked on the code (static: module-level imports).

Inside a family a file's name says its role: ``*_judges`` derive claims from tables (torch-free),
``*_tables`` make the tidy tables that figures plot and judges read (torch-free), ``*_spec`` hold
what a measurement and its judges share (torch-free); measurements and simulations compute. So a
measurement never imports a judge, a figure script never imports a judge, and no module reaches
into another's private names.
"""

import ast
from pathlib import Path

import pytest
from test_job_overhead import _imports_torch, _module_level_imports

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "sigprop"
PAPERS = SRC / "papers"
SCRIPTS = ROOT / "workflow" / "scripts"

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
"""The module suffix of each registry role's functions (README: "A file's name says its role")."""


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
