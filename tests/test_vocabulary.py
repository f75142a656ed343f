"""Config names and code names agree: every normalization and initialization that a code table
accepts or a config file names is in ``sigprop.nets.vocabulary``."""

import pytest
import yaml
from workflow_copy import ROOT

from sigprop.base.config import SCHEMA, load_schema
from sigprop.engine import ops
from sigprop.nets.vocabulary import INITIALIZATIONS, NORMALIZATIONS

NORM_KEYS = ("norm", "norms", "normalization")
INIT_KEYS = ("init",)


def _code_tables():
    from sigprop.nets import convnets, initializations, normalizations
    from sigprop.papers.isometry import normalization_layer_theorems

    norms = {
        "ops.NORMALIZATIONS": set(ops.NORMALIZATIONS),
        "nets.convnets.FIG5_NORMS": set(convnets.FIG5_NORMS),
        "nets.normalizations.NORMS": set(normalizations.NORMS),
        "nets.convnets.CONV_NORMS": set(convnets.CONV_NORMS),
        "nets.normalizations.BATCH_FUNCTIONS": set(normalizations.BATCH_FUNCTIONS),
        "isometry.normalization_layer_theorems.NORMS": set(normalization_layer_theorems.NORMS),
    }
    inits = {
        "nets.initializations.INITS": set(initializations.INITS),
        "nets.initializations.STACKED_INITS": set(initializations.STACKED_INITS),
    }
    return norms, inits


def _config_values(node, keys):
    """Every string value under one of ``keys`` anywhere in a config tree."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in keys:
                yield from (value if isinstance(value, list) else [value])
            else:
                yield from _config_values(value, keys)
    elif isinstance(node, list):
        for value in node:
            yield from _config_values(value, keys)


def test_code_tables_use_the_vocabulary():
    norms, inits = _code_tables()
    for table, names in norms.items():
        assert names <= set(NORMALIZATIONS), f"{table}: {sorted(names - set(NORMALIZATIONS))}"
    for table, names in inits.items():
        assert names <= set(INITIALIZATIONS), f"{table}: {sorted(names - set(INITIALIZATIONS))}"


def test_every_vocabulary_name_is_built_somewhere():
    norms, inits = _code_tables()
    assert set(NORMALIZATIONS) == set().union(*norms.values())
    assert set(INITIALIZATIONS) == set().union(*inits.values())


@pytest.mark.parametrize(
    "path", ["config/config.yaml", "config/paper.yaml", ".test/config/config.yaml"]
)
def test_config_files_use_the_vocabulary(path):
    tree = yaml.safe_load((ROOT / path).read_text())
    norms = set(_config_values(tree, NORM_KEYS))
    inits = set(_config_values(tree, INIT_KEYS))
    assert norms <= set(NORMALIZATIONS), sorted(norms - set(NORMALIZATIONS))
    assert inits <= set(INITIALIZATIONS), sorted(inits - set(INITIALIZATIONS))


def test_schema_enums_use_the_vocabulary():
    schema = load_schema(ROOT / SCHEMA)
    found = {"norm": set(), "init": set()}

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, dict):
                    enum = value.get("enum") or (value.get("items") or {}).get("enum")
                    if enum and key in NORM_KEYS:
                        found["norm"].update(enum)
                    if enum and key in INIT_KEYS:
                        found["init"].update(enum)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert found["norm"], "the schema names no normalization enum"
    assert found["norm"] <= set(NORMALIZATIONS), sorted(found["norm"] - set(NORMALIZATIONS))
    assert found["init"] <= set(INITIALIZATIONS), sorted(found["init"] - set(INITIALIZATIONS))
