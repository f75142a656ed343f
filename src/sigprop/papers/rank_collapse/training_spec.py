"""What Dan+20's training simulations (``training_simulations``), their judges (``training_judges``)
and the config checks share, torch-free: the networks each figure compares."""

from __future__ import annotations

__all__ = ["FIGURE_NETWORKS"]


FIGURE_NETWORKS = {
    "pretrain_vs_bn": ("vanilla", "pre-trained", "BN"),
    "pretrain_vs_bn_fmnist": ("vanilla", "pre-trained", "BN"),
    "pretrain_levels": ("vanilla", "pre-trained 25", "pre-trained 75", "BN", "BN asymmetric"),
    "breaking_bn_vgg": ("BN", "BN asymmetric", "BN w/o centering"),
    "breaking_bn_resnet": ("BN", "BN asymmetric", "BN w/o centering"),
    "gradient_alignment_vgg": ("BN", "SGD", "SGD 100x lr", "SGD random data"),
}
"""The curves each training simulation's figure and claims compare, by name (``networks``)."""
