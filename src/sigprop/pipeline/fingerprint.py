"""Code fingerprints: a result depends on the source of the code that made it.

Snakemake reruns a job when its params change; the generic rules pass each job the fingerprint
of its code as a param, so editing a function reruns what it made and what depends on that, and
nothing else. The fingerprint is the sha256 of the source files of the modules that hold the
job's functions (or that its script imports) and of every ``sigprop`` module they import,
transitively (static imports, read from the source with ``ast``; module granularity).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

__all__ = [
    "code_fingerprint",
    "imported_names",
    "module_closure",
    "module_imports",
    "script_imports",
]

ROOT = Path(__file__).resolve().parents[1]
"""The ``sigprop`` package folder."""


def module_file(module: str) -> Path | None:
    """The source file of a ``sigprop`` module, or None if it is not one."""
    parts = module.split(".")
    if parts[0] != "sigprop":
        return None
    base = ROOT.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_names(node: ast.AST, package: str) -> set[str]:
    """The absolute module names an ``import`` node may load (for ``from m import x``: m and
    m.x), ``package`` being the package of the importing module (for relative imports)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        return {module} | {f"{module}.{a.name}" for a in node.names}
    return set()


def _imported(tree: ast.AST, package: str) -> set[str]:
    """Absolute names of the sigprop modules imported in ``tree`` (of a module in ``package``)."""
    found = set().union(*(imported_names(node, package) for node in ast.walk(tree)))
    return {m for m in found if m.startswith("sigprop") and module_file(m)}


@cache
def module_imports(module: str) -> frozenset[str]:
    """The sigprop modules that ``module`` imports directly."""
    path = module_file(module)
    if path is None:
        return frozenset()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return frozenset(_imported(ast.parse(path.read_text()), package) - {module})


def script_imports(script: str | Path) -> set[str]:
    """The sigprop modules a workflow script imports directly."""
    return _imported(ast.parse(Path(script).read_text()), "")


def module_closure(modules: Iterable[str]) -> set[str]:
    """``modules`` and every sigprop module they import, transitively."""
    seen: set[str] = set()
    todo = [m for m in modules if module_file(m)]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(module_imports(module) - seen)
    return seen


def code_fingerprint(functions: Iterable[Callable] = (), scripts: Iterable[str | Path] = ()) -> str:
    """sha256 (16 hex digits) of the sources of the functions' and scripts' module closure."""
    modules = {f.__module__ for f in functions}
    for script in scripts:
        modules |= script_imports(script)
    digest = hashlib.sha256()
    for module in sorted(module_closure(modules)):
        digest.update(module.encode() + b"\0" + module_file(module).read_bytes() + b"\0")
    return digest.hexdigest()[:16]
