"""Config validation: the schema and the cross-key checks reject bad input before any job."""

from pathlib import Path

import pytest
import yaml
from item_setups import quick_setup
from snakemake.utils import validate

from sigprop.base.config import ConfigError, check_window, merge_configs
from sigprop.papers import load_registry

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


def check_all(config):
    """Every cross-key check the workflow runs: each family's, through the registry."""
    load_registry().check_config(config)


def quick_config():
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


merged = merge_configs


def test_quick_paper_and_tiny_configs_are_valid():
    """Each as Snakemake merges it over config/config.yaml (the tiny one: .test/config/)."""
    for config in (
        quick_config(),
        merged(quick_config(), yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())),
        merged(quick_config(), yaml.safe_load((ROOT / ".test/config/config.yaml").read_text())),
    ):
        validate(config, SCHEMA)
        check_all(config)


@pytest.mark.parametrize(
    "path, value, message",
    [
        (["rank_collapse", "depth_rank", "depth"], -3, "-3 is less than the minimum of 1"),
        (["orthogonality", "gap_chain", "widths"], [16, -8], "-8 is less than the minimum"),
        (["orthogonality", "cosine_pair", "n_runs"], 0, "0 is less than the minimum of 2"),
        (["orthogonality", "gap_chain", "n_runs"], "20", "'20' is not of type 'integer'"),
        (["rank_collapse", "depth_rank", "activations"], [], "should be non-empty"),
        (["device"], "tpu", "'tpu' is not one of"),
    ],
)
def test_schema_rejects_bad_values_naming_the_key(path, value, message):
    config = quick_config()
    node = config
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(Exception) as err:
        validate(config, SCHEMA)
    text = str(err.value)
    assert message in text
    assert "".join(f"['{k}']" for k in path) in text


def test_schema_rejects_unknown_keys_at_every_level():
    for path in ([], ["orthogonality"], ["orthogonality", "gap_chain"]):
        config = quick_config()
        node = config
        for key in path:
            node = node[key]
        node["widthz"] = 1
        with pytest.raises(Exception, match="'widthz' was unexpected"):
            validate(config, SCHEMA)


@pytest.mark.parametrize(
    "override, message",
    [
        (
            {"gradients": {"fig6_1": {"fit_window": [10, 500]}}},
            r"fit_window = \[10, 500\]: last",
        ),
        ({"gradients": {"isometry_chain": {"widths": [32, 32]}}}, r"need >= 2 widths"),
        ({"gradients": {"lemma6_2": {"d_range": [8, 4]}}}, r"d_range \[8, 4\] is not ordered"),
    ],
)
def test_consistency_errors_name_both_keys(override, message):
    config = merged(quick_config(), override)
    validate(config, SCHEMA)
    with pytest.raises(ConfigError, match=message):
        check_all(config)


def test_a_window_error_names_the_full_key_paths():
    """Issue 12, item 6: not just `window`, but the family, item and key."""
    with pytest.raises(ConfigError, match=r"^orthogonality.fig2b.window = \[200, 100\]: first"):
        check_window([200, 100], "orthogonality.fig2b.window", 500, "orthogonality.gap_chain.depth")
    with pytest.raises(ConfigError, match="exceeds orthogonality.gap_chain.depth = 500"):
        check_window([1, 900], "orthogonality.fig2b.window", 500, "orthogonality.gap_chain.depth")
    config = merged(quick_config(), {"orthogonality": {"fig2b": {"window": [200, 100]}}})
    with pytest.raises(ConfigError, match=r"orthogonality.fig2b.window = \[200, 100\]"):
        check_all(config)


@pytest.mark.parametrize(
    "spreads, message", [((0.003, 0.01), "every input has psi <="), ((0.3, 1.0), "psi >")]
)
def test_lemma_c9_inputs_on_one_side_stop_its_measure_before_any_compute(spreads, message):
    """That the inputs straddle psi = 1/(16 d) needs their draws, so the measure checks it (a
    config check draws nothing): an error naming the keys, before the spectra and Haar draws."""
    from sigprop.papers.gradients.isometry_theorems import measure_lemma_c8_c9

    with pytest.raises(ConfigError, match=rf"gradients.lemma_c8_c9.spreads .*{message}"):
        measure_lemma_c8_c9(
            **quick_setup(
                "gradients", "lemma_c8_c9", widths=(4, 8, 16), spreads=spreads, device="cpu"
            )
        )


def test_every_shipped_config_has_lemma_c9_inputs_on_both_sides():
    from sigprop.papers.gradients.isometry_theorems import check_inputs_straddle

    quick = quick_config()
    paper = merged(quick, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()))
    tiny = merged(quick, yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text()))
    for config in (quick, paper, tiny):
        c89 = config["gradients"]["lemma_c8_c9"]
        check_inputs_straddle(c89["widths"], c89["spreads"])


def test_the_split_schema_reads_as_one_document():
    """config.schema.yaml references one file per family; ``load_schema`` inlines them, and every
    reference in the result is local, so jsonschema alone (``sigprop check-config``) validates."""
    from sigprop.base.config import load_schema

    schema = load_schema(SCHEMA)
    families = {"rank_collapse", "orthogonality", "mean_field", "isometry", "gradients"}
    assert families <= set(schema["properties"])
    for family in families:
        assert (Path(SCHEMA).parent / f"{family}.schema.yaml").is_file()
        assert "properties" in schema["properties"][family]

    def refs(node):
        if isinstance(node, dict):
            yield from ([node["$ref"]] if "$ref" in node else [])
            for value in node.values():
                yield from refs(value)
        elif isinstance(node, list):
            for value in node:
                yield from refs(value)

    found = list(refs(schema))
    assert found and all(ref.startswith("#/$defs/") for ref in found)
    assert {ref.rpartition("/")[2] for ref in found} <= set(schema["$defs"])
