"""Generated datasets (``sigprop.datasets.generated_datasets``) are read by
``sigprop.datasets.data`` and torchvision as the real files are: same layout, shapes, dtypes and
label ranges."""

from __future__ import annotations

import pytest
import torch

from sigprop.datasets import data, generated_datasets

SHAPES = {  # one image's (C, H, W) and the number of classes
    "mnist": ((1, 28, 28), 10),
    "fashion_mnist": ((1, 28, 28), 10),
    "cifar10": ((3, 32, 32), 10),
    "cifar100": ((3, 32, 32), 100),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_written_files_load_with_their_real_shapes(tmp_path, name):
    paths = generated_datasets.write(name, tmp_path, n_train=23, n_test=7, seed=1)
    assert all(p.is_file() for p in paths)
    (shape, n_classes) = SHAPES[name]
    for train, n in ((True, 23), (False, 7)):
        with generated_datasets.unchecked_cifar():
            images, labels = data.as_tensors(
                data.load(name, tmp_path, train=train, system_sources=False)
            )
        assert images.shape == (n, *shape) and images.dtype == torch.float32
        assert 0 <= images.min() and images.max() <= 1
        assert labels.shape == (n,) and 0 <= labels.min() and labels.max() < n_classes


def test_the_cifar_checksum_is_lifted_inside_the_block_only(tmp_path):
    generated_datasets.write("cifar10", tmp_path, n_train=10, n_test=5)
    with pytest.raises(RuntimeError, match="corrupted"):
        data.load("cifar10", tmp_path, system_sources=False)
    with generated_datasets.unchecked_cifar():
        assert len(data.load("cifar10", tmp_path, system_sources=False)) == 10
    with pytest.raises(RuntimeError, match="corrupted"):
        data.load("cifar10", tmp_path, system_sources=False)


def test_real_sizes_are_the_default(tmp_path):
    generated_datasets.write("mnist", tmp_path)
    assert len(data.load("mnist", tmp_path, system_sources=False)) == 60000
    assert len(data.load("mnist", tmp_path, train=False, system_sources=False)) == 10000
