"""The isometry family's item table (papers.isometry.items) and its config checks."""

import copy
import inspect
from pathlib import Path

import pytest
import yaml

from sigprop.base.config import ConfigError
from sigprop.base.registry import Registry, Theorem
from sigprop.papers.isometry import items

ROOT = Path(__file__).resolve().parents[1]


def merged(base, override):
    out = copy.deepcopy(base)
    for key, value in override.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) else value
    return out


@pytest.fixture(scope="module", params=["config", "paper"])
def config(request):
    """The quick config, or the paper config merged over it."""
    quick = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    if request.param == "config":
        return quick
    return merged(quick, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()))


def test_items_register_in_seed_order():
    registry = Registry()
    registry.add_family("isometry", list(items.ITEMS))
    assert [i.name for i in items.ITEMS] == [
        "fig4_1", "lemma4_2", "theorem4_3", "corollary4_4", "corollary4_5", "prop5_1",
        "table5_1", "table5_2", "kernel_bounds", "theorem5_15", "fig5_1", "fig5_2",
    ]  # fmt: skip
    assert all(i.source.startswith("Thesis ") for i in items.ITEMS)


@pytest.mark.parametrize(
    "item", [i for i in items.ITEMS if isinstance(i, Theorem)], ids=lambda i: i.name
)
def test_theorem_tolerances_are_judge_only_config_keys(item, config):
    """Every tolerance is a key of the item's slice and no argument of its measurement; every
    other key is one."""
    settings = config["isometry"][item.name]
    measured = set(inspect.signature(item.measure).parameters) - {"device"}
    assert set(item.tolerances) <= set(settings)
    assert not set(item.tolerances) & measured
    assert set(settings) - set(item.tolerances) <= measured


def test_check_config_accepts_the_configs(config):
    items.CHECK_CONFIG(config)


def test_check_config_wants_one_rho0_per_activation(config):
    bad = copy.deepcopy(config)
    bad["isometry"]["fig5_2"]["rho0"] = bad["isometry"]["fig5_2"]["rho0"][:-1]
    with pytest.raises(
        ConfigError, match=r"isometry\.fig5_2\.rho0 .* isometry\.fig5_2\.activations"
    ):
        items.CHECK_CONFIG(bad)
    items.CHECK_CONFIG({"orthogonality": {}})  # no isometry section: nothing to check
