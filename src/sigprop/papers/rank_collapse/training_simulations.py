"""Dan+20's MLP training experiments (Figs. 1, 4, 6, 11, 12) on the training layer.

One function of the training layer (``training.experiment.network_training``) trains every
figure's networks: ReLU MLPs of width 128 at several depths, each network a normalization, an
initialization and optionally rank pre-training (Algorithm 1) before SGD, over a learning-rate
grid and runs, with curves logged per epoch.

- Fig. 1: BN vs vanilla, depth 1-32; rank at init and training accuracy after training.
- Figs. 4, 11 (CIFAR-10) and 12 (Fashion-MNIST): pre-trained vanilla vs BN vs vanilla over
  epochs, for increasing depth.
- Fig. 6: depth 32: vanilla, pre-trained 25 and 75 iterations, BN with the default and the
  asymmetric init; training accuracy and r(H_L) over training.

The same function trains the conv nets (``nets.convnets``, ``architecture``):

- Figs. 5 (VGG19), 13 (ResNet-50), "breaking BN": BN with the default init, with the asymmetric
  init, and without centering; Fig. 7 (centering) draws two of Fig. 5's networks.
- Fig. 10 (VGG19), directional gradient vanishing: VGG19 with BN, and without BN trained with
  SGD, with a 100x step (``lr_scale``) and on uniform-noise images (``inputs``); the gradient
  alignment of the classification layer is a probe.
"""

from __future__ import annotations

from ...base.store import Labelled
from ...training.experiment import CURVES, NETWORKS, network_training

__all__ = [
    "CURVES",
    "NETWORKS",
    "breaking_bn_resnet",
    "breaking_bn_vgg",
    "gradient_alignment_vgg",
    "depth_training",
    "pretrain_levels",
    "pretrain_vs_bn",
    "pretrain_vs_bn_fmnist",
]


def depth_training(**setup) -> Labelled:
    """Dan+20 Fig. 1: ``network_training`` under experiment id ``rank_collapse.depth_training``."""
    return network_training(**setup, experiment_id="rank_collapse.depth_training")


def pretrain_vs_bn(**setup) -> Labelled:
    """Dan+20 Figs. 4, 11: ``network_training`` under experiment id
    ``rank_collapse.pretrain_vs_bn``."""
    return network_training(**setup, experiment_id="rank_collapse.pretrain_vs_bn")


def pretrain_vs_bn_fmnist(**setup) -> Labelled:
    """Dan+20 Fig. 12: ``network_training`` under experiment id
    ``rank_collapse.pretrain_vs_bn_fmnist``."""
    return network_training(**setup, experiment_id="rank_collapse.pretrain_vs_bn_fmnist")


def pretrain_levels(**setup) -> Labelled:
    """Dan+20 Fig. 6: ``network_training`` under experiment id ``rank_collapse.pretrain_levels``."""
    return network_training(**setup, experiment_id="rank_collapse.pretrain_levels")


def breaking_bn_vgg(**setup) -> Labelled:
    """Dan+20 Figs. 5, 7: ``network_training`` under experiment id
    ``rank_collapse.breaking_bn_vgg``."""
    return network_training(**setup, experiment_id="rank_collapse.breaking_bn_vgg")


def breaking_bn_resnet(**setup) -> Labelled:
    """Dan+20 Fig. 13: ``network_training`` under experiment id
    ``rank_collapse.breaking_bn_resnet``."""
    return network_training(**setup, experiment_id="rank_collapse.breaking_bn_resnet")


def gradient_alignment_vgg(**setup) -> Labelled:
    """Dan+20 Fig. 10: ``network_training`` under experiment id
    ``rank_collapse.gradient_alignment_vgg``."""
    return network_training(**setup, experiment_id="rank_collapse.gradient_alignment_vgg")
