"""Cross-key checks of the orthogonality config (sigprop.papers.orthogonality.config_checks)."""

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from sigprop.base.config import ConfigError
from sigprop.papers.orthogonality.config_checks import check_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


def quick_config():
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def merged(base, override):
    out = copy.deepcopy(base)
    for key, value in override.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) else value
    return out


def test_quick_and_paper_configs_pass():
    check_config(quick_config())
    check_config(merged(quick_config(), yaml.safe_load((ROOT / "config/paper.yaml").read_text())))


@pytest.mark.parametrize(
    "override, message",
    [
        ({"fig2a": {"widths": [32, 1024]}}, r"orthogonality.fig2a.widths \[1024\]"),
        ({"fig2a": {"layers": 700}}, "orthogonality.fig2a.layers = 700 exceeds"),
        (
            {"fig2b": {"window": [100, 900]}},
            r"fig2b.window = \[100, 900\]: last layer 900",
        ),
        (
            {"fig2a": {"decay_window": [20, 5]}},
            r"decay_window = \[20, 5\]: first layer 20",
        ),
        (
            {"gap_chain": {"widths": [16, 32, 64]}, "fig2a": {"widths": [32]}},
            "needs at least 4 widths",
        ),
        ({"gap_chain": {"batch_size": 32}}, "orthogonality.gap_chain.batch_size = 32 exceeds"),
        ({"fig5": {"growth_window": [0, 10]}}, "orthogonality.fig5.growth_window"),
        ({"real_gap": {"kernel_size": 4}}, "orthogonality.real_gap.kernel_size = 4 must be odd"),
        ({"table1": {"batch_size": 3}}, "orthogonality.table1.batch_size = 3 is not in"),
        ({"fig6": {"main": ["relu", "gelu"]}}, r"orthogonality.fig6.main \['gelu'\]"),
        ({"a1_grid": {"widths": [64, 32]}}, "orthogonality.a1_grid.widths .* strictly increasing"),
        ({"lemma4": {"width": 2}}, "orthogonality.lemma4.width = 2"),
        ({"theorem5": {"cases": [[8, 4]]}}, r"orthogonality.theorem5.cases: \[n=8, d=4\]"),
        ({"lemma10": {"batch_sizes": [9, 3]}}, r"orthogonality.lemma10.batch_sizes \[9, 3\]"),
        ({"app_e": {"batch_ratios": [0.5, 2]}}, "orthogonality.app_e.batch_ratios"),
        ({"init_mlp": {"methods": ["xavier"]}}, "orthogonality.init_mlp.methods"),
    ],
)
def test_errors_name_the_keys(override, message):
    config = merged(quick_config(), {"orthogonality": override})
    validate(config, SCHEMA)
    with pytest.raises(ConfigError, match=message):
        check_config(config)


@pytest.mark.parametrize(
    "override, message",
    [
        ({"fig3b": {"depth": 20}}, r"orthogonality.fig3b.depth = 20 is not in"),
        (
            {"depth_orthogonality": {"init_batch_size": 32}},
            r"depth_orthogonality.init_batch_size = 32 is below the width 64",
        ),
        ({"deep_convnets": {"image_size": 0}}, r"deep_convnets.image_size = 0: DJB21 Table 3"),
    ],
)
def test_training_errors_name_the_keys(override, message):
    config = quick_config()
    config["orthogonality"] = merged(config["orthogonality"], override)
    validate(config, SCHEMA)
    with pytest.raises(ConfigError, match=message):
        check_config(config)


def test_training_figures_need_their_curves():
    config = quick_config()
    del config["orthogonality"]["depth_orthogonality"]["networks"]["AGC 1"]
    with pytest.raises(ConfigError, match=r"depth_orthogonality.networks lacks \['AGC 1'\]"):
        check_config(config)
