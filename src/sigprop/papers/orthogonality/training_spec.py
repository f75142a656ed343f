"""What the training simulations (``training_simulations``), their judges (``training_judges``)
and the config checks share, torch-free: the networks each figure compares and
the names of three of them."""

from __future__ import annotations

__all__ = ["FIGURE_NETWORKS", "ITERATIVE", "ORTHOGONAL", "XAVIER"]

XAVIER, ITERATIVE, ORTHOGONAL = "Xavier", "iterative orthogonalization", "orthogonal weights"


FIGURE_NETWORKS = {
    "depth_orthogonality": (
        "Xavier", "iterative orthogonalization", "orthogonal weights", "AGC 0.1", "AGC 1",
    ),
    "deep_convnets": ("Xavier", "iterative orthogonalization"),
}  # fmt: skip
"""The curves each training simulation's figures compare, by name (``networks``)."""
