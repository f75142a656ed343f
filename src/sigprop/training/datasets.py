"""Classification data for the training figures: deterministic subsets, normalized, flattened
for the MLPs or as images (zero-padded to a size) for the conv nets.

Quick scale trains on subsets of Fashion-MNIST (the captions state their sizes); the subset is
the first ``train_size`` samples of a seeded permutation, the same for every run and network.
"""

from __future__ import annotations

import torch

from ..datasets import data
from ..engine import seeding
from .loop import TrainData

__all__ = ["classification_data", "uniform_noise_images"]


def _subset(images, labels, size: int, experiment_id: str, split: str):
    if not size or size >= len(images):
        return images, labels
    order = torch.randperm(len(images), generator=seeding.generator(experiment_id, 0, split))
    keep = order[:size]
    return images[keep], labels[keep]


def _padded(images: torch.Tensor, size: int) -> torch.Tensor:
    """Zero-pad (N, C, H, W) images evenly to size x size (28 -> 32: 2 pixels a side)."""
    extra_h, extra_w = max(0, size - images.shape[-2]), max(0, size - images.shape[-1])
    if not extra_h and not extra_w:
        return images
    pad = (extra_w // 2, extra_w - extra_w // 2, extra_h // 2, extra_h - extra_h // 2)
    return torch.nn.functional.pad(images, pad)


def _normalized(images: torch.Tensor, spec: data.DatasetSpec) -> torch.Tensor:
    """Per-channel (x - mean) / std with the dataset's constants, images in [0, 1]."""
    mean = torch.tensor(spec.mean).view(1, -1, 1, 1)
    std = torch.tensor(spec.std).view(1, -1, 1, 1)
    return (images - mean) / std


def uniform_noise_images(batches: TrainData, dataset: str, generator: torch.Generator) -> TrainData:
    """``batches`` with every training image replaced by integer pixels drawn uniformly from
    [0, 255] (Dan+20 Fig. 10, "SGD on random data"), put through the same preprocessing as the
    real images (/255, normalized with the dataset's constants; flat or not as they are);
    labels, test set and sizes are kept. The probe batch is the first noise images."""
    _, spec = data.dataset_spec(dataset)
    n, shape = len(batches.train_x), batches.train_x.shape[1:]
    pixels = torch.randint(0, 256, (n, *shape), generator=generator).float() / 255
    noise = _normalized(pixels.view(n, len(spec.mean), -1, 1), spec).reshape(n, *shape)
    noise = noise.to(batches.train_x.device, batches.train_x.dtype)
    probe = len(batches.probe_x)
    return TrainData(
        noise, batches.train_y, batches.test_x, batches.test_y, noise[:probe],
        batches.eval_size, batches.train_y[:probe],
    )  # fmt: skip


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
    image_size: int = 0,
    flatten: bool = True,
) -> TrainData:
    """Train and test subsets of ``dataset``, each image zero-padded (black border, before
    normalization) to ``image_size`` x ``image_size`` if that is larger (0: as stored),
    normalized per channel with the dataset's constants (``data.DATASETS``) and, if
    ``flatten``, flattened; the probe batch is the first ``probe_size`` training samples.
    Sizes of 0 mean the whole split.

    Raises ``data.DatasetNotFoundError`` (with the data layer's message) before any training.
    """
    key, spec = data.dataset_spec(dataset)
    splits = []
    for train in (True, False):
        images, labels = data.as_tensors(data.load(key, data_root, train=train, download=download))
        size, split = (train_size, "train") if train else (test_size, "test")
        images, labels = _subset(images, labels, size, experiment_id, split)
        images = _normalized(_padded(images, image_size), spec)
        images = (images.flatten(1) if flatten else images).to(device, dtype)
        splits.append((images, labels.to(device)))
    (train_x, train_y), (test_x, test_y) = splits
    if probe_size > len(train_x):
        raise ValueError(f"probe_size {probe_size} exceeds the {len(train_x)} training samples")
    return TrainData(
        train_x, train_y, test_x, test_y, train_x[:probe_size], eval_size, train_y[:probe_size]
    )
