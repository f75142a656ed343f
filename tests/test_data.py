"""Tests of sigprop.datasets.data: local sources first, atomic preparation, clear errors, no
network."""

from __future__ import annotations

import gzip
import os
import socket
from pathlib import Path

import numpy as np
import pytest
import torch
from torchvision import datasets

from sigprop.datasets import data
from sigprop.datasets.generated_datasets import idx_bytes

DEBIAN = Path("/usr/share/datasets/fashion-mnist")
IDX = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")
IDX += ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


@pytest.fixture
def no_sources(monkeypatch, tmp_path):
    """No environment sources, and an empty folder as the only default source."""
    empty = tmp_path / "empty-source"
    empty.mkdir()
    monkeypatch.delenv(data.ENV_SOURCES, raising=False)
    monkeypatch.setitem(data.LOCAL_SOURCES, "fashion_mnist", [str(empty)])
    return empty


def _write_source(folder: Path, n_train: int, n_test: int, seed: int) -> dict[str, np.ndarray]:
    """Write tiny gzipped Fashion-MNIST-like IDX files into ``folder``; return their arrays."""
    rng = np.random.default_rng(seed)
    arrays = {
        IDX[0]: rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        IDX[1]: rng.integers(0, 10, n_train, dtype=np.uint8),
        IDX[2]: rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        IDX[3]: rng.integers(0, 10, n_test, dtype=np.uint8),
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, array in arrays.items():
        (folder / f"{name}.gz").write_bytes(gzip.compress(idx_bytes(array)))
    return arrays


@pytest.fixture(scope="module")
def debian_root(tmp_path_factory):
    """A root prepared once from the Debian package's files (skipped where it is absent)."""
    if not all((DEBIAN / f"{n}.gz").is_file() for n in IDX):
        pytest.skip(f"{DEBIAN} absent: install the Debian package dataset-fashion-mnist")
    root = tmp_path_factory.mktemp("debian-root")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(data.ENV_SOURCES, raising=False)
        mp.setitem(data.LOCAL_SOURCES, "fashion_mnist", [str(DEBIAN)])
        data.load("fashion_mnist", root, train=True)
    return root


@pytest.mark.parametrize(("train", "n"), [(True, 60000), (False, 10000)])
def test_load_fashion_mnist_from_debian_source(debian_root, no_sources, train, n):
    """Both splits load with the official sizes, 28x28 images and 10 classes."""
    ds = data.load("fashion_mnist", debian_root, train=train)
    assert isinstance(ds, datasets.FashionMNIST)
    assert tuple(ds.data.shape) == (n, 28, 28)
    assert len(ds) == n
    assert len(ds.classes) == 10
    assert set(ds.targets.unique().tolist()) == set(range(10))

    images, labels = data.as_tensors(ds)
    assert images.shape == (n, 1, 28, 28) and images.dtype == torch.float32
    assert labels.shape == (n,) and labels.dtype == torch.int64
    assert 0.0 <= images.min().item() and images.max().item() == 1.0
    assert torch.equal(labels, ds.targets)


def test_debian_files_are_prepared_atomically(debian_root):
    """The raw folder holds exactly torchvision's four decompressed files, no temporaries."""
    raw = debian_root / "FashionMNIST" / "raw"
    assert sorted(p.name for p in raw.iterdir()) == sorted(IDX)
    assert all(p.is_file() and not p.is_symlink() for p in raw.iterdir())


@pytest.mark.parametrize("named_folder", [False, True])
def test_env_sources_are_searched_before_defaults(monkeypatch, tmp_path, named_folder):
    """SIGPROP_DATA_SOURCES (a parent folder or the dataset folder itself) wins over defaults."""
    env_parent = tmp_path / "env"
    arrays = _write_source(env_parent / "fashion-mnist", n_train=5, n_test=3, seed=0)
    _write_source(tmp_path / "default", n_train=7, n_test=4, seed=1)
    entry = env_parent / "fashion-mnist" if named_folder else env_parent
    monkeypatch.setenv(data.ENV_SOURCES, os.pathsep.join([str(tmp_path / "nowhere"), str(entry)]))
    monkeypatch.setitem(data.LOCAL_SOURCES, "fashion_mnist", [str(tmp_path / "default")])

    train = data.load("fashion_mnist", tmp_path / "root", train=True)
    test = data.load("fashion_mnist", tmp_path / "root", train=False)
    assert len(train) == 5 and len(test) == 3
    assert np.array_equal(train.data.numpy(), arrays[IDX[0]])
    assert np.array_equal(train.targets.numpy(), arrays[IDX[1]])
    assert np.array_equal(test.data.numpy(), arrays[IDX[2]])

    images, labels = data.as_tensors(train)
    assert images.shape == (5, 1, 28, 28) and images.dtype == torch.float32
    assert labels.dtype == torch.int64
    expected = torch.from_numpy(arrays[IDX[0]]).unsqueeze(1).float() / 255
    torch.testing.assert_close(images, expected, rtol=0, atol=1e-7)
    assert torch.equal(labels, torch.from_numpy(arrays[IDX[1]]).long())


def test_second_load_reuses_prepared_files(monkeypatch, tmp_path, no_sources):
    """Once prepared under root, a dataset loads with every source gone."""
    arrays = _write_source(tmp_path / "env" / "fashion_mnist", n_train=5, n_test=3, seed=2)
    monkeypatch.setenv(data.ENV_SOURCES, str(tmp_path / "env"))
    data.load("fashion_mnist", tmp_path / "root")

    monkeypatch.setenv(data.ENV_SOURCES, "")
    monkeypatch.setitem(data.LOCAL_SOURCES, "fashion_mnist", [])
    ds = data.load("fashion-mnist", tmp_path / "root", train=False)
    assert np.array_equal(ds.data.numpy(), arrays[IDX[2]])


def test_missing_dataset_error_names_folders_and_hints(monkeypatch, tmp_path, no_sources):
    """Without any source and with download=False, the error says where it looked and how to fix."""
    monkeypatch.setenv(data.ENV_SOURCES, str(tmp_path / "extra"))
    root = tmp_path / "root"
    with pytest.raises(data.DatasetNotFoundError) as info:
        data.load("fashion_mnist", root, download=False)
    message = str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    for folder in (root / "FashionMNIST" / "raw", tmp_path / "extra" / "fashion-mnist", no_sources):
        assert str(folder) in message
        assert folder in info.value.searched
    assert "apt-get install dataset-fashion-mnist" in message
    assert "download=True" in message and "Fashion-MNIST" in message
    assert not root.exists()


def test_failed_download_raises_dataset_not_found(tmp_path, no_sources):
    """With download=True but no network, torchvision's failure becomes DatasetNotFoundError."""
    with pytest.raises(data.DatasetNotFoundError, match="Downloading into .* failed"):
        data.load("fashion_mnist", tmp_path / "root", download=True)


def test_truncated_source_leaves_no_partial_file(monkeypatch, tmp_path, no_sources):
    """A corrupt source file raises naming it, and nothing half-written is left under root."""
    source = tmp_path / "env" / "fashion-mnist"
    _write_source(source, n_train=5, n_test=3, seed=3)
    bad = source / f"{IDX[3]}.gz"
    bad.write_bytes(bad.read_bytes()[:-12])
    monkeypatch.setenv(data.ENV_SOURCES, str(tmp_path / "env"))
    with pytest.raises(OSError, match=str(bad)):
        data.load("fashion_mnist", tmp_path / "root")
    raw = tmp_path / "root" / "FashionMNIST" / "raw"
    assert sorted(p.name for p in raw.iterdir()) == sorted(IDX[:3])


def test_unknown_dataset_lists_valid_names(tmp_path):
    """An unknown name is a ValueError that lists the valid names."""
    with pytest.raises(ValueError, match="fashion_mnist") as info:
        data.load("imagenet", tmp_path)
    assert "imagenet" in str(info.value)


def test_random_batch_is_seeded_distinct_normalized_and_flat(monkeypatch, tmp_path, no_sources):
    """spec gradients §1.6: n distinct images, no replacement, Normalize(mean, std), flattened."""
    arrays = _write_source(tmp_path / "env" / "fashion-mnist", n_train=12, n_test=3, seed=4)
    monkeypatch.setenv(data.ENV_SOURCES, str(tmp_path / "env"))
    root = tmp_path / "root"

    def draw(seed, **kw):
        return data.random_batch(
            "fashion_mnist", root, 5, torch.Generator().manual_seed(seed), **kw
        )

    x, y = draw(0)
    assert x.shape == (5, 784) and x.dtype == torch.float32 and y.shape == (5,)
    raw, _ = draw(0, normalize=False)
    spec = data.DATASETS["fashion_mnist"]
    torch.testing.assert_close(x, (raw - spec.mean[0]) / spec.std[0])
    pixels = torch.from_numpy(arrays[IDX[0]]).float().div(255).flatten(1)
    rows = [int(torch.nonzero((pixels == r).all(1))[0]) for r in raw]
    assert len(set(rows)) == 5  # without replacement
    torch.testing.assert_close(y, torch.from_numpy(arrays[IDX[1]]).long()[rows])
    torch.testing.assert_close(draw(0)[0], x)
    assert not torch.equal(draw(1)[0], x)
    with pytest.raises(ValueError, match="batch_size"):
        data.random_batch("fashion_mnist", root, 13, torch.Generator())


def test_every_dataset_has_normalization_constants():
    for spec in data.DATASETS.values():
        assert len(spec.mean) == len(spec.std) in (1, 3)
        assert all(0 < s < 1 for s in spec.std)


# --- the data rule: a route for each dataset, checked before any job (issue 12, item 1) -------


@pytest.fixture
def offline(monkeypatch):
    """Downloads impossible without touching the network: the only host refuses at once."""
    monkeypatch.setattr(data, "_download_hosts", lambda spec: ["127.0.0.1"])
    monkeypatch.setattr(socket, "create_connection", _refuse)


def _refuse(address, timeout=None):
    raise ConnectionRefusedError(f"connection to {address[0]} refused")


def test_routes_in_order_prepared_local_apt_download(monkeypatch, tmp_path, no_sources, offline):
    root = tmp_path / "root"
    found, reasons = data.route("fashion_mnist", root, download=True, apt=False)
    assert found is None and "download impossible" in reasons[-1]
    monkeypatch.setattr(data, "_apt_command", lambda spec: ["apt-get", "install", "x"])
    assert data.route("fashion_mnist", root, apt=True)[0] == "apt"
    _write_source(no_sources, n_train=5, n_test=3, seed=0)
    assert data.route("fashion_mnist", root, apt=True)[0] == "local"
    assert data.route("fashion_mnist", root, system_sources=False, apt=False)[0] is None
    record = data.prepare("fashion_mnist", root, download=False, apt=False)
    assert record["route"] == "local" and set(record["files"]) == set(
        data.DATASETS["fashion_mnist"].files
    )
    assert data.route("fashion_mnist", root, system_sources=False)[0] == "prepared"


def test_preflight_fails_fast_naming_every_way_tried(tmp_path, no_sources, offline):
    with pytest.raises(data.DatasetNotFoundError) as error:
        data.preflight(["fashion_mnist"], tmp_path / "root", download=True, apt=False)
    text = str(error.value)
    assert "Fashion-MNIST (dataset 'fashion_mnist') not found" in text
    assert "download impossible: 127.0.0.1" in text and "apt-get install" in text
    assert data.preflight([], tmp_path, download=False, apt=False) == {}


def test_a_reachable_download_host_is_a_route(monkeypatch, tmp_path, no_sources):
    monkeypatch.setattr(socket, "create_connection", lambda address, timeout=None: _Closable())
    assert data.route("cifar10", tmp_path, apt=False, system_sources=False)[0] == "download"
    assert data._download_hosts(data.DATASETS["cifar10"]) == ["www.cs.toronto.edu"]


class _Closable:
    def close(self):
        pass
