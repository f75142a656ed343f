"""The scale label comes from what ran (issue 12, item 5)."""

from pathlib import Path

import yaml

from sigprop.config import merge_configs
from sigprop.run_info import config_sha256, run_record

CONFIG = Path(__file__).resolve().parents[1] / "config"


def load(*names):
    config = {}
    for name in names:
        config = merge_configs(config, yaml.safe_load((CONFIG / name).read_text()))
    return config


def test_the_two_config_files_are_quick_and_paper():
    assert run_record(load("config.yaml"), ["config/config.yaml"], CONFIG)["scale"] == "quick"
    paper = run_record(load("config.yaml", "paper.yaml"), ["a", "b"], CONFIG)
    assert paper["scale"] == "paper" and paper["configfiles"] == ["a", "b"]


def test_any_other_value_is_custom_whatever_the_label_says():
    config = load("config.yaml")
    config["scale"] = "paper"
    config["rank_collapse"]["depth_rank"]["n_runs"] = 3
    record = run_record(config, ["config/config.yaml"], CONFIG, overrides=True)
    assert record["scale"] == "custom" and record["config_overrides"]
    config = load("config.yaml", "paper.yaml")
    config["device"] = "cpu"
    assert run_record(config, [], CONFIG)["scale"] == "custom"


def test_the_config_hash_ignores_the_label_only():
    a, b = load("config.yaml"), load("config.yaml")
    b["scale"] = "anything"
    assert config_sha256(a) == config_sha256(b)
    b["device"] = "cpu"
    assert config_sha256(a) != config_sha256(b)
