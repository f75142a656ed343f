"""Cross-key checks of the mean-field config (``papers.mean_field.config_checks``)."""

import copy
from pathlib import Path

import pytest
import yaml

from sigprop.base.config import ConfigError
from sigprop.papers.mean_field.config_checks import check_config

ROOT = Path(__file__).resolve().parents[1]


def test_config_consistency_names_the_keys():
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    bad = copy.deepcopy(config)
    bad["mean_field"]["fig3_2"]["batch_size"] = 7
    with pytest.raises(ConfigError, match="mean_field.fig3_2.batch_size"):
        check_config(bad)
    bad = copy.deepcopy(config)
    bad["mean_field"]["fig3_3"]["layer"] = 99
    with pytest.raises(ConfigError, match="mean_field.fig3_3.layer"):
        check_config(bad)


def test_widths_below_the_batch_size_are_refused():
    """Issue 12, item 3: widths [2, 3] with batches up to 20 gave NaN and inf Grams."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    config["mean_field"]["gram_chain"]["widths"] = [2, 3]
    with pytest.raises(
        ConfigError, match=r"mean_field.gram_chain.widths \[2, 3\] has a width below"
    ):
        check_config(config)


def test_fig3_4_fits_the_thesis_batch_sizes_at_paper_scale():
    """Thesis Fig. 3.4 plots n = 10, 20, 30, 40, 50: the paper config fits those (not n = 5,
    which the chain simulates for Fig. 3.1), and an n the chain does not simulate is refused."""
    from sigprop.base.config import merge_configs

    quick = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    paper = merge_configs(quick, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()))
    check_config(paper)
    assert paper["mean_field"]["fig3_4"]["batch_sizes"] == [10, 20, 30, 40, 50]
    bad = copy.deepcopy(quick)
    bad["mean_field"]["fig3_4"]["batch_sizes"] = [10, 40]
    with pytest.raises(ConfigError, match=r"mean_field.fig3_4.batch_sizes has n = \[40\]"):
        check_config(bad)
