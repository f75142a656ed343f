"""Classification data for the training figures: deterministic subsets, normalized, flattened.

Quick scale trains on subsets of Fashion-MNIST (the captions state their sizes); the subset is
the first ``train_size`` samples of a seeded permutation, the same for every run and network.
"""

from __future__ import annotations

import torch

from .. import data, seeding
from .loop import TrainData

__all__ = ["classification_data"]


def _subset(images, labels, size: int, experiment_id: str, split: str):
    if not size or size >= len(images):
        return images, labels
    order = torch.randperm(len(images), generator=seeding.generator(experiment_id, 0, split))
    keep = order[:size]
    return images[keep], labels[keep]


def classification_data(
    dataset: str,
    data_root: str,
    train_size: int,
    test_size: int,
    probe_size: int,
    eval_size: int = 0,
    download: bool = False,
    experiment_id: str = "training.data",
    device: str | torch.device = "cpu",
    dtype: torch.dtype = torch.float32,
) -> TrainData:
    """Train and test subsets of ``dataset``, each image normalized per channel with the
    dataset's constants (``data.DATASETS``) and flattened; the probe batch is the first
    ``probe_size`` training samples. Sizes of 0 mean the whole split.

    Raises ``data.DatasetNotFoundError`` (with the data layer's message) before any training.
    """
    key, spec = data.dataset_spec(dataset)
    splits = []
    for train in (True, False):
        images, labels = data.as_tensors(data.load(key, data_root, train=train, download=download))
        size, split = (train_size, "train") if train else (test_size, "test")
        images, labels = _subset(images, labels, size, experiment_id, split)
        mean = torch.tensor(spec.mean).view(1, -1, 1, 1)
        std = torch.tensor(spec.std).view(1, -1, 1, 1)
        images = ((images - mean) / std).flatten(1).to(device, dtype)
        splits.append((images, labels.to(device)))
    (train_x, train_y), (test_x, test_y) = splits
    if probe_size > len(train_x):
        raise ValueError(f"probe_size {probe_size} exceeds the {len(train_x)} training samples")
    return TrainData(train_x, train_y, test_x, test_y, train_x[:probe_size], eval_size)
