"""Cross-key checks of the ``rank_collapse`` config section (Dan+20), before any job runs."""

from __future__ import annotations

from collections.abc import Mapping

from ...config import ConfigError

__all__ = ["check_config"]


def check_config(config: Mapping) -> None:
    """Raise ``ConfigError`` naming the keys if related ``rank_collapse`` values disagree.

    ``bn_chain.taus`` must hold 0.5 (Fig. 3a plots rank_1/2), ``bn_chain.burn_in`` must not
    exceed ``bn_chain.depth``, and ``depth_training.depths`` must reach beyond ``fig1.learn_depth``
    (else Fig. 1's claim on deep vanilla nets has nothing to measure) and fit in an epoch's batches.
    """
    bn_chain = config["rank_collapse"]["bn_chain"]
    if 0.5 not in bn_chain["taus"]:
        raise ConfigError(
            f"rank_collapse.bn_chain.taus {bn_chain['taus']} must include 0.5: Fig. 3a plots "
            "rank_1/2"
        )
    if bn_chain["burn_in"] > bn_chain["depth"]:
        raise ConfigError(
            f"rank_collapse.bn_chain.burn_in = {bn_chain['burn_in']} exceeds "
            f"rank_collapse.bn_chain.depth = {bn_chain['depth']}"
        )
    training, fig1 = config["rank_collapse"]["depth_training"], config["rank_collapse"]["fig1"]
    if max(training["depths"]) <= fig1["learn_depth"]:
        raise ConfigError(
            f"rank_collapse.depth_training.depths {training['depths']} must include a depth above "
            f"rank_collapse.fig1.learn_depth = {fig1['learn_depth']}"
        )
    if training["probe_size"] > (training["train_size"] or training["probe_size"]):
        raise ConfigError(
            f"rank_collapse.depth_training.probe_size = {training['probe_size']} exceeds "
            f"rank_collapse.depth_training.train_size = {training['train_size']}"
        )
