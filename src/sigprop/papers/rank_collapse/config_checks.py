"""Cross-key checks of the ``rank_collapse`` config section (Dan+20), before any job runs."""

from __future__ import annotations

from collections.abc import Mapping

from ...config import ConfigError
from .training_judges import FIGURE_NETWORKS

__all__ = ["check_config"]


def _check_networks(setup: Mapping, key: str, curves) -> None:
    """The figure's curves are all there and ``same_init_as`` names a network of the same
    architecture."""
    networks = setup["networks"]
    missing = [c for c in curves if c not in networks]
    if missing:
        raise ConfigError(f"{key}.networks lacks {missing}: its figure compares {list(curves)}")
    for name, spec in networks.items():
        other = spec.get("same_init_as")
        if other is None:
            continue
        if other not in networks:
            raise ConfigError(f"{key}.networks.{name}.same_init_as: no network {other!r}")
        if networks[other]["norm"] != spec["norm"]:
            raise ConfigError(
                f"{key}.networks.{name}.same_init_as = {other!r}: its norm "
                f"{networks[other]['norm']!r} differs from {spec['norm']!r}"
            )


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
    for name, curves in FIGURE_NETWORKS.items():
        _check_networks(config["rank_collapse"][name], f"rank_collapse.{name}", curves)
    for name in ("pretrain_vs_bn", "pretrain_vs_bn_fmnist"):
        depths = config["rank_collapse"][name]["depths"]
        if len(set(depths)) < 2:
            raise ConfigError(
                f"rank_collapse.{name}.depths {depths} needs two depths at least: its figure "
                "measures the slowdown from the shallowest to the deepest"
            )
    if training["probe_size"] > (training["train_size"] or training["probe_size"]):
        raise ConfigError(
            f"rank_collapse.depth_training.probe_size = {training['probe_size']} exceeds "
            f"rank_collapse.depth_training.train_size = {training['train_size']}"
        )
