"""The cross-key config checks of Dan+20 (sigprop.papers.rank_collapse.config_checks)."""

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from sigprop.base.config import ConfigError
from sigprop.papers.rank_collapse.config_checks import check_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


def quick_config():
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def test_quick_config_passes():
    check_config(quick_config())


@pytest.mark.parametrize(
    "override, message",
    [
        ({"taus": [0.25, 0.75]}, r"rank_collapse\.bn_chain\.taus .* must include 0.5"),
        ({"burn_in": 5000}, r"rank_collapse\.bn_chain\.burn_in = 5000 exceeds"),
    ],
)
def test_bn_chain_errors_name_the_keys(override, message):
    config = copy.deepcopy(quick_config())
    config["rank_collapse"]["bn_chain"].update(override)
    validate(config, SCHEMA)
    with pytest.raises(ConfigError, match=message):
        check_config(config)


@pytest.mark.parametrize(
    "override, message",
    [
        ({"depths": [1, 4, 8]}, r"depth_training\.depths \[1, 4, 8\] must include a depth above"),
        ({"probe_size": 5000}, r"depth_training\.probe_size = 5000 exceeds"),
    ],
)
def test_fig1_training_errors_name_the_keys(override, message):
    config = copy.deepcopy(quick_config())
    config["rank_collapse"]["depth_training"].update(override)
    validate(config, SCHEMA)
    with pytest.raises(ConfigError, match=message):
        check_config(config)


@pytest.mark.parametrize(
    "name, edit, message",
    [
        (
            "pretrain_levels",
            lambda nets: nets.pop("pre-trained 75"),
            r"rank_collapse\.pretrain_levels\.networks lacks \['pre-trained 75'\]",
        ),
        (
            "pretrain_vs_bn",
            lambda nets: nets["pre-trained"].update(same_init_as="plain"),
            r"pretrain_vs_bn\.networks\.pre-trained\.same_init_as: no network 'plain'",
        ),
        (
            "pretrain_vs_bn_fmnist",
            lambda nets: nets["pre-trained"].update(same_init_as="BN"),
            r"same_init_as = 'BN': its norm 'batch_norm' differs from 'none'",
        ),
    ],
)
def test_pretraining_networks_errors_name_the_keys(name, edit, message):
    config = copy.deepcopy(quick_config())
    edit(config["rank_collapse"][name]["networks"])
    validate(config, SCHEMA)
    with pytest.raises(ConfigError, match=message):
        check_config(config)


def test_fig4_needs_two_depths():
    config = copy.deepcopy(quick_config())
    config["rank_collapse"]["pretrain_vs_bn"]["depths"] = [32]
    validate(config, SCHEMA)
    with pytest.raises(ConfigError, match=r"pretrain_vs_bn\.depths \[32\] needs two depths"):
        check_config(config)


@pytest.mark.parametrize(
    "name, key, value, message",
    [
        (
            "gradient_alignment_vgg",
            "probes",
            ["rank"],
            r"gradient_alignment_vgg\.probes lacks \['gradient_alignment'\]",
        ),
        (
            "breaking_bn_vgg",
            "probes",
            ["rank"],
            r"breaking_bn_vgg\.probes lacks \['r_lower_bound'\]",
        ),
        (
            "breaking_bn_vgg",
            "image_size",
            0,
            r"breaking_bn_vgg\.image_size = 0: vgg19 needs images of at least 32 x 32",
        ),
    ],
)
def test_convnet_errors_name_the_keys(name, key, value, message):
    config = copy.deepcopy(quick_config())
    config["rank_collapse"][name][key] = value
    validate(config, SCHEMA)
    with pytest.raises(ConfigError, match=message):
        check_config(config)


def test_convnet_figures_need_their_curves():
    config = copy.deepcopy(quick_config())
    config["rank_collapse"]["breaking_bn_resnet"]["networks"].pop("BN w/o centering")
    with pytest.raises(ConfigError, match=r"breaking_bn_resnet\.networks lacks"):
        check_config(config)
