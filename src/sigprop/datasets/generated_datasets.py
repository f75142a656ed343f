"""Random images in the real file formats of the datasets (issue 25: paper shapes without the data).

``write(name, root)`` writes, under a data root, the files that ``sigprop.datasets.data.load`` and
torchvision's dataset classes read, at the real sizes (or fewer images): IDX files for MNIST and
Fashion-MNIST (``<Folder>/raw/*-ubyte``), python pickles for CIFAR-10 (``cifar-10-batches-py``,
five training batches of 10,000) and CIFAR-100 (``cifar-100-python``). Pixels and labels are
uniform random: a run on them has the real shapes, memory and time, not the real accuracy.

torchvision checks the CIFAR files against their published MD5 sums, which generated files
cannot match; ``unchecked_cifar()`` lifts that check inside a ``with`` block only.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from sigprop.base.store import atomic_path
from sigprop.datasets.data import DATASETS, dataset_spec

__all__ = ["SIZES", "idx_bytes", "unchecked_cifar", "write"]

SIZES = {  # (training images, test images) of the real datasets
    "mnist": (60000, 10000),
    "fashion_mnist": (60000, 10000),
    "cifar10": (50000, 10000),
    "cifar100": (50000, 10000),
}


def idx_bytes(array: np.ndarray) -> bytes:
    """An IDX file of unsigned bytes (the MNIST format: magic 0x0000 08 <ndim>, big-endian uint32
    dims, then the data)."""
    header = struct.pack(f">I{array.ndim}I", 0x0800 | array.ndim, *array.shape)
    return header + array.astype(np.uint8).tobytes()


def _write_bytes(path: Path, payload: bytes) -> None:
    with atomic_path(path) as tmp:  # creates the folder
        tmp.write_bytes(payload)


def _pickle(path: Path, entry: dict) -> None:
    _write_bytes(path, pickle.dumps(entry, protocol=4))


def _images(rng, n: int, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(0, 256, (n, *shape), dtype=np.uint8)


def _labels(rng, n: int, n_classes: int) -> list[int]:
    return rng.integers(0, n_classes, n).tolist()


def _write_idx(root: Path, files: tuple[str, ...], rng, n_train: int, n_test: int) -> None:
    images = {"train": _images(rng, n_train, (28, 28)), "t10k": _images(rng, n_test, (28, 28))}
    for rel in files:
        split, kind = Path(rel).name.split("-")[:2]
        n = len(images[split])
        array = images[split] if kind == "images" else np.asarray(_labels(rng, n, 10))
        _write_bytes(root / rel, idx_bytes(array))


def _write_cifar10(root: Path, rng, n_train: int, n_test: int) -> None:
    folder = root / "cifar-10-batches-py"
    names = [f"class_{i}" for i in range(10)]
    _pickle(folder / "batches.meta", {"label_names": names})
    for i in range(5):  # five batches; fewer images per batch when n_train < 50,000
        n = n_train // 5 + (i < n_train % 5)
        flat = _images(rng, n, (3072,))
        _pickle(folder / f"data_batch_{i + 1}", {"data": flat, "labels": _labels(rng, n, 10)})
    flat = _images(rng, n_test, (3072,))
    _pickle(folder / "test_batch", {"data": flat, "labels": _labels(rng, n_test, 10)})


def _write_cifar100(root: Path, rng, n_train: int, n_test: int) -> None:
    folder = root / "cifar-100-python"
    _pickle(folder / "meta", {"fine_label_names": [f"class_{i}" for i in range(100)]})
    for split, n in (("train", n_train), ("test", n_test)):
        entry = {"data": _images(rng, n, (3072,)), "fine_labels": _labels(rng, n, 100)}
        _pickle(folder / split, entry)


def write(name: str, root: str | os.PathLike, n_train: int = 0, n_test: int = 0, seed: int = 0):
    """Write dataset ``name`` (a key of ``sigprop.datasets.data.DATASETS``) under ``root``.

    ``n_train``/``n_test`` of 0 mean the real sizes (``SIZES``). Returns the written paths.
    """
    key, spec = dataset_spec(name)
    real_train, real_test = SIZES[key]
    n_train, n_test = n_train or real_train, n_test or real_test
    root, rng = Path(root), np.random.default_rng(seed)
    if key in ("mnist", "fashion_mnist"):
        _write_idx(root, spec.files, rng, n_train, n_test)
    elif key == "cifar10":
        _write_cifar10(root, rng, n_train, n_test)
    else:
        _write_cifar100(root, rng, n_train, n_test)
    return [root / rel for rel in DATASETS[key].files]


@contextlib.contextmanager
def unchecked_cifar() -> Iterator[None]:
    """Within the block, torchvision's CIFAR classes accept files whatever their MD5 sums."""
    from torchvision.datasets import cifar

    def present(path, md5=None) -> bool:
        return os.path.isfile(path)

    saved = cifar.check_integrity, cifar.CIFAR10._check_integrity
    cifar.check_integrity = present
    cifar.CIFAR10._check_integrity = lambda self: True
    try:
        yield
    finally:
        cifar.check_integrity, cifar.CIFAR10._check_integrity = saved
