"""The shape of the package's code: every function of ``src/sigprop`` is at most
``MAX_FUNCTION_LINES`` long, counted from its ``def`` to its last line, docstring included, so
that each reads as one step with a name; a longer one is split by role."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "sigprop"

MAX_FUNCTION_LINES = 80
"""The longest a function (or method) may be, ``def`` line to last line."""


def long_functions(package: Path = PACKAGE, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``path:line name (N lines)`` for every function under ``package`` longer than ``limit``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    where = path.relative_to(package.parent)
                    found.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_long_functions_finds_a_long_one(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(5))
    (tmp_path / "m.py").write_text(f"def short():\n    pass\n\n\ndef long():\n{body}\n")
    found = long_functions(tmp_path, limit=5)
    assert len(found) == 1 and " long (6 lines)" in found[0]


def test_every_function_is_short():
    found = long_functions()
    assert not found, f"functions over {MAX_FUNCTION_LINES} lines (split them by role):\n" + (
        "\n".join(found)
    )
