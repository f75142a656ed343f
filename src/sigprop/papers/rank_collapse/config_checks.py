"""Cross-key checks of the ``rank_collapse`` config section (Dan+20), before any job runs."""

from __future__ import annotations

from collections.abc import Mapping

from ...base.config import ConfigError
from .training_spec import FIGURE_NETWORKS

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


CONVNET_PROBES = {
    "breaking_bn_vgg": ("rank", "r_lower_bound"),  # Fig. 5 rank, Fig. 7 r(H_L)
    "breaking_bn_resnet": ("rank",),
    "gradient_alignment_vgg": ("gradient_alignment",),
}
"""The probes each conv-net simulation's figures read."""

SMALLEST_IMAGE = {"vgg19": 32}
"""Input size below which the network's pooling leaves nothing (VGG19: five 2x2 max-pools)."""

NATIVE_SIZE = {"fashion_mnist": 28, "mnist": 28, "cifar10": 32, "cifar100": 32}


def _check_convnet(setup: Mapping, key: str, probes) -> None:
    """The figures' probes are logged and the images are large enough for the network."""
    missing = [p for p in probes if p not in setup["probes"]]
    if missing:
        raise ConfigError(f"{key}.probes lacks {missing}: its figures read them")
    smallest = SMALLEST_IMAGE.get(setup["architecture"], 1)
    size = max(setup["image_size"], NATIVE_SIZE[setup["dataset"]])
    if size < smallest:
        raise ConfigError(
            f"{key}.image_size = {setup['image_size']}: {setup['architecture']} needs images of "
            f"at least {smallest} x {smallest} ({setup['dataset']} is {size} x {size})"
        )


def check_config(config: Mapping) -> None:
    """Raise ``ConfigError`` naming the keys if related ``rank_collapse`` values disagree.

    ``bn_chain.taus`` must hold 0.5 (Fig. 3a plots rank_1/2), ``bn_chain.burn_in`` must not
    exceed ``bn_chain.depth``, and ``depth_training.depths`` must reach beyond ``fig1.learn_depth``
    (else Fig. 1's claim on deep vanilla nets has nothing to measure) and fit in an epoch's batches;
    the conv-net simulations log the probes their figures read, on images their network can pool.
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
    for name, probes in CONVNET_PROBES.items():
        _check_convnet(config["rank_collapse"][name], f"rank_collapse.{name}", probes)
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
