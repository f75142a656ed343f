"""The layers of ``src/sigprop``: every import goes to the importer's own package or to a layer
below it, never up; every module lives in a layer; each package says what it may import.

The layers are listed once, lowest first, in ``sigprop/__init__.py``'s docstring ("Layers, lowest
first:"); a layer is a package (``sigprop.engine``) or a module (``sigprop.cli``). Imports are
read from the source with ``ast`` (module level and inside functions), as the code fingerprints
read them (``sigprop.pipeline.fingerprint.imported_names``).
"""

import ast
import re
from pathlib import Path

import sigprop
from sigprop.pipeline.fingerprint import imported_names

SRC = Path(sigprop.__file__).resolve().parent


def _layers() -> list[str]:
    doc = ast.get_docstring(ast.parse((SRC / "__init__.py").read_text()))
    listing = doc.split("Layers, lowest first:\n", 1)[1]
    return re.findall(r"^    (\w+) ", listing, flags=re.M)


LAYERS = _layers()


def _modules() -> dict[str, Path]:
    """Module name -> its file, for every module under ``src/sigprop``."""
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        out[".".join(parts).removesuffix(".__init__")] = path
    return out


def _layer(module: str) -> str | None:
    """The layer of a ``sigprop`` module (None for ``sigprop`` itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_the_layers_are_listed_once_and_exist():
    assert LAYERS[:3] == ["base", "engine", "datasets"] and LAYERS[-1] == "cli"
    assert len(set(LAYERS)) == len(LAYERS)
    for layer in LAYERS:
        assert (SRC / layer / "__init__.py").is_file() or (SRC / f"{layer}.py").is_file(), layer


def test_every_module_lives_in_a_layer():
    outside = sorted(m for m in _modules() if m != "sigprop" and _layer(m) not in LAYERS)
    assert not outside, f"modules outside the layers of sigprop/__init__.py: {outside}"


def test_no_import_goes_up_a_layer():
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    modules = _modules()
    upward = []
    for module, path in modules.items():
        if module == "sigprop" or _layer(module) not in rank:
            continue
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            for name in imported_names(node, package):
                if name not in modules or name == "sigprop" or _layer(name) not in rank:
                    continue
                if rank[_layer(name)] > rank[_layer(module)]:
                    upward.append(f"{module} (line {node.lineno}) imports {name}")
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_each_package_says_what_it_may_import():
    """The docstring of each layer's package ends with "May import:", naming only layers below
    it (``base``, the lowest, none)."""
    for i, layer in enumerate(LAYERS):
        init = SRC / layer / "__init__.py"
        if not init.is_file():
            continue  # a module layer (cli)
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert "May import:" in doc, f"sigprop.{layer}: its docstring says nothing of its imports"
        named = set(re.findall(r"``(\w+)``", doc.split("May import:", 1)[1]))
        assert named <= set(LAYERS[:i]), f"sigprop.{layer} may import {named - set(LAYERS[:i])}?"
        assert i == 0 or named, f"sigprop.{layer}: which layers may it import?"
