"""Datasets through torchvision's dataset classes, local sources first.

Which seed uses which dataset (from the seeds' figure captions and experiment sections):

    seed                                 paper scale
    000-002 Dan+20 (rank_collapse)       Fashion-MNIST: Figs. 1, 6, 12
                                         CIFAR-10: Figs. 4, 5, 7, 10, 11, 13
    003 DJB21 (orthogonality),           CIFAR-10: Figs. 3, 4, 5, 7, A.1 (Thesis Figs. 2.4, 2.5)
        Thesis ch. 2 and app. A
    004 Thesis ch. 3-5 (mean_field,      none (synthetic inputs only)
        isometry)
    004 Thesis ch. 6, app. C             CIFAR-10: Figs. 6.2-6.6, C.1-C.4, C.8-C.10
        (gradients)                      MNIST: Fig. C.5; Fashion-MNIST: Fig. C.6;
                                         CIFAR-100: Fig. C.7; all four: Table C.1

Quick scale: Fashion-MNIST is the dataset of every real-data experiment (our choice, not the
seeds'; a figure that substitutes it for the seed's dataset says so in its caption). Paper scale:
the dataset each seed names, downloaded by torchvision into the configured data directory.

``load(name, root)`` looks, in order:

1. under ``root``, for the files torchvision reads (prepared earlier);
2. in local source folders: those in ``SIGPROP_DATA_SOURCES`` (``os.pathsep``-separated), then
   ``LOCAL_SOURCES[name]``. The files found there (gzipped or not) are decompressed or copied
   into ``root`` where torchvision expects them, each written to a temporary name and renamed;
3. on the internet, through torchvision's download, only if ``download=True``;

and raises ``DatasetNotFoundError`` naming every place it looked and how to get the data.

A folder in ``SIGPROP_DATA_SOURCES`` is either a dataset folder named after the dataset
(``fashion-mnist`` or ``fashion_mnist``) or a parent of such folders, as ``/usr/share/datasets``
is. Files are never taken from a folder that does not name its dataset, because MNIST and
Fashion-MNIST use the same file names.

Adding a dataset is one ``DATASETS`` entry (and a ``LOCAL_SOURCES`` entry if it ships
somewhere locally), e.g.::

    "mnist": DatasetSpec("MNIST", "MNIST", _idx_files("MNIST")),
    "cifar10": DatasetSpec("CIFAR-10", "CIFAR10", tuple(
        f"cifar-10-batches-py/{f}" for f in
        ("batches.meta", *(f"data_batch_{i}" for i in range(1, 6)), "test_batch"))),
"""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import socket
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from sigprop.base.store import atomic_path

if TYPE_CHECKING:  # torch and torchvision: imported where a dataset is read, so the preflight
    # (in every Snakemake process) and the data rule start without them
    import torch
    from torchvision.datasets.vision import VisionDataset

__all__ = [
    "DATASETS",
    "ENV_SOURCES",
    "LOCAL_SOURCES",
    "DatasetNotFoundError",
    "DatasetSpec",
    "as_tensors",
    "dataset_spec",
    "load",
    "prepare",
    "preflight",
    "random_batch",
    "route",
]

log = logging.getLogger(__name__)

ENV_SOURCES = "SIGPROP_DATA_SOURCES"
"""Environment variable: extra local source folders, searched before ``LOCAL_SOURCES``."""


@dataclass(frozen=True)
class DatasetSpec:
    """How to obtain one dataset through torchvision.

    Attributes:
        title: the dataset's usual name, for messages ("Fashion-MNIST").
        class_name: the torchvision dataset class's name in ``torchvision.datasets``; ``cls``,
            imported when first used, is called as ``cls(root, train=, transform=, download=)``.
        files: paths relative to ``root`` that ``cls`` reads, both splits (torchvision checks all
            of them whichever split is asked for). A local source holds each under its base
            name, optionally with ``.gz`` appended.
        apt_package: the Debian/Ubuntu package installing a local source, if there is one.
        mean, std: per-channel ``transforms.Normalize`` constants of the authors' public code
            for Thesis ch. 6 (alexandrumeterez/bngrad, linked at the start of ch. 6; the
            thesis does not print them), used by ``random_batch(normalize=True)``.
        n_classes: number of classes (the read-out width of a classifier).
    """

    title: str
    class_name: str
    files: tuple[str, ...]
    apt_package: str | None = None
    mean: tuple[float, ...] = ()
    std: tuple[float, ...] = ()
    n_classes: int = 10

    @property
    def cls(self) -> type[VisionDataset]:
        """The torchvision dataset class (torchvision is imported here, not at start-up)."""
        from torchvision import datasets

        return getattr(datasets, self.class_name)


def _idx_files(folder: str) -> tuple[str, ...]:
    """The four decompressed IDX files that torchvision's MNIST-like classes read."""
    names = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")
    names += ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
    return tuple(f"{folder}/raw/{n}" for n in names)


def _cifar10_files() -> tuple[str, ...]:
    """The python-pickle batches that torchvision's CIFAR10 reads (no Debian package ships them)."""
    names = ("batches.meta", *(f"data_batch_{i}" for i in range(1, 6)), "test_batch")
    return tuple(f"cifar-10-batches-py/{n}" for n in names)


def _cifar100_files() -> tuple[str, ...]:
    """The python-pickle files that torchvision's CIFAR100 reads."""
    return tuple(f"cifar-100-python/{n}" for n in ("meta", "train", "test"))


DATASETS: dict[str, DatasetSpec] = {
    "fashion_mnist": DatasetSpec(
        "Fashion-MNIST",
        "FashionMNIST",
        _idx_files("FashionMNIST"),
        "dataset-fashion-mnist",
        mean=(0.2860,),
        std=(0.3530,),
    ),
    "mnist": DatasetSpec("MNIST", "MNIST", _idx_files("MNIST"), mean=(0.1307,), std=(0.3081,)),
    "cifar10": DatasetSpec(
        "CIFAR-10",
        "CIFAR10",
        _cifar10_files(),
        mean=(0.4914, 0.4822, 0.4465),
        std=(0.247, 0.243, 0.261),
    ),
    "cifar100": DatasetSpec(
        "CIFAR-100",
        "CIFAR100",
        _cifar100_files(),
        mean=(0.5071, 0.4865, 0.4409),
        std=(0.2673, 0.2564, 0.2762),
        n_classes=100,
    ),
}
"""Dataset name -> how to obtain it."""

LOCAL_SOURCES: dict[str, list[str]] = {
    "fashion_mnist": ["/usr/share/datasets/fashion-mnist"],
}
"""Dataset name -> local folders searched (after ``SIGPROP_DATA_SOURCES``) before downloading."""


class DatasetNotFoundError(FileNotFoundError):
    """A dataset is neither prepared, nor in a local source, nor downloadable.

    The message names the dataset, every place searched and how to get the data.

    Attributes:
        dataset: the dataset name, as passed to ``load``.
        searched: every folder looked in, in order.
    """

    def __init__(self, message: str, dataset: str = "", searched: tuple[Path, ...] = ()) -> None:
        super().__init__(message)
        self.dataset = dataset
        self.searched = searched


def dataset_spec(name: str) -> tuple[str, DatasetSpec]:
    """The key of ``DATASETS`` for ``name`` ("fashion-mnist" works too) and its spec; a ValueError
    lists the valid names."""
    key = name.lower().replace("-", "_")
    if key not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; valid names: {', '.join(sorted(DATASETS))}")
    return key, DATASETS[key]


def _source_folders(key: str, system: bool = True) -> list[tuple[Path, str]]:
    """Local source folders for dataset ``key``, in search order, each with where it came from;
    ``system=False`` leaves out ``LOCAL_SOURCES`` (the system-wide folders)."""
    spellings = tuple(dict.fromkeys((key.replace("_", "-"), key)))
    folders: list[tuple[Path, str]] = []
    for entry in os.environ.get(ENV_SOURCES, "").split(os.pathsep):
        if not entry:
            continue
        base = Path(entry).expanduser()
        named = [base] if base.name in spellings else [base / s for s in spellings]
        folders += [(f, ENV_SOURCES) for f in named]
    if system:
        folders += [(Path(f).expanduser(), "LOCAL_SOURCES") for f in LOCAL_SOURCES.get(key, ())]
    return list(dict.fromkeys(folders))


def _find(folder: Path, rel: str) -> Path | None:
    """The file in a source folder for ``rel``: its base name, gzipped or not."""
    base = Path(rel).name
    for candidate in (folder / f"{base}.gz", folder / base):
        if candidate.is_file():
            return candidate
    return None


def _copy_in(source: Path, dest: Path) -> None:
    """Decompress (``.gz``) or copy ``source`` to ``dest``, atomically."""
    with atomic_path(dest) as tmp:
        try:
            if source.suffix == ".gz":
                with gzip.open(source, "rb") as fin, open(tmp, "wb") as fout:
                    shutil.copyfileobj(fin, fout, 1 << 20)
            else:
                shutil.copyfile(source, tmp)
        except (OSError, EOFError) as exc:
            raise OSError(f"cannot read local source file {source}: {exc}") from exc


def _message(spec: DatasetSpec, key: str, root: Path, searched, download_error) -> str:
    lines = [f"{spec.title} (dataset {key!r}) not found. Looked in:"]
    lines += [f"  {path}  ({why})" for path, why in searched]
    if download_error is None:
        lines.append("Downloading was not allowed (download=False).")
    elif isinstance(download_error, str):
        lines.append(f"Tried: {download_error}.")
    else:
        lines.append(f"Downloading into {root} failed: {str(download_error).strip()}")
    names = ", ".join(dict.fromkeys(Path(f).name + "[.gz]" for f in spec.files))
    lines.append("To get the data:")
    if spec.apt_package:
        lines.append(f"  - on Debian/Ubuntu: sudo apt-get install {spec.apt_package}")
    lines.append(
        f"  - or put {names} in a folder named {key.replace('_', '-')} under a folder listed "
        f"in {ENV_SOURCES}"
    )
    lines.append(
        f"  - elsewhere: allow downloading (download=True) on a machine with internet, and "
        f"torchvision downloads it into {root}"
    )
    return "\n".join(lines)


def load(
    name: str,
    root: str | os.PathLike,
    train: bool = True,
    download: bool = False,
    transform: Callable[[Any], Any] | None = None,
    system_sources: bool = True,
) -> VisionDataset:
    """The torchvision dataset ``name`` (train or test split), prepared under ``root``.

    Order: files already under ``root``; a local source (``SIGPROP_DATA_SOURCES``, then
    ``LOCAL_SOURCES[name]``), copied in; torchvision's download if ``download``; else raise.
    The network is never touched when ``download`` is False.

    Args:
        name: a key of ``DATASETS`` ("fashion_mnist"; "fashion-mnist" is accepted too).
        root: the data directory; torchvision's layout lives below it.
        train: the training split if True, else the test split.
        download: allow torchvision to download into ``root`` if no local copy exists.
        transform: passed to the torchvision class (applies to ``dataset[i]``, not to
            ``as_tensors``).
        system_sources: also search ``LOCAL_SOURCES`` (the system-wide folders).
    Returns:
        The torchvision dataset object, e.g. ``datasets.FashionMNIST``.
    Raises:
        ValueError: ``name`` is not a known dataset.
        DatasetNotFoundError: no prepared files, no local source and no (successful) download.
    """
    key, spec = dataset_spec(name)
    root = Path(root).expanduser()
    missing = [rel for rel in spec.files if not (root / rel).is_file()]
    searched = [(root / Path(spec.files[0]).parent, "prepared files under root")]

    if missing:
        for folder, why in _source_folders(key, system_sources):
            searched.append((folder, why))
            found = {rel: _find(folder, rel) for rel in missing}
            if all(found.values()):
                log.info("preparing %s in %s from %s", spec.title, root, folder)
                for rel, source in found.items():
                    _copy_in(source, root / rel)
                missing = []
                break

    if missing and download:
        log.info("downloading %s into %s", spec.title, root)
        try:
            return spec.cls(root, train=train, transform=transform, download=True)
        except (RuntimeError, OSError) as exc:
            message = _message(spec, key, root, searched, exc)
            raise DatasetNotFoundError(message, key, tuple(p for p, _ in searched)) from exc
    if missing:
        message = _message(spec, key, root, searched, None)
        raise DatasetNotFoundError(message, key, tuple(p for p, _ in searched))
    return spec.cls(root, train=train, transform=transform, download=False)


def as_tensors(dataset: VisionDataset) -> tuple[torch.Tensor, torch.Tensor]:
    """All images and labels of a torchvision dataset, read from ``.data``/``.targets`` at once.

    Images are scaled to [0, 1] (``ToTensor``'s convention) and laid out channels first; the
    dataset's ``transform`` is not applied.

    Args:
        dataset: a dataset from ``load`` with uint8 ``.data`` of shape (N, H, W) (MNIST-like)
            or (N, H, W, C) (CIFAR-like), and ``.targets`` of length N.
    Returns:
        images: float32 in [0, 1], shape (N, C, H, W): (N, 1, 28, 28) for MNIST-like sets.
        labels: int64, shape (N,).
    """
    import torch

    images = torch.as_tensor(dataset.data)
    if images.dtype != torch.uint8:
        raise ValueError(f"dataset.data must be uint8 pixels, got {images.dtype}")
    if images.ndim == 3:
        images = images.unsqueeze(1)
    elif images.ndim == 4:
        images = images.permute(0, 3, 1, 2)
    else:
        raise ValueError(f"dataset.data must have 3 or 4 dims, got shape {tuple(images.shape)}")
    images = images.to(torch.float32, memory_format=torch.contiguous_format).div_(255)
    labels = torch.as_tensor(dataset.targets, dtype=torch.int64)
    return images, labels


def random_batch(
    name: str,
    root: str | os.PathLike,
    batch_size: int,
    generator: torch.Generator,
    download: bool = False,
    normalize: bool = True,
    train: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch_size`` distinct images of one split drawn without replacement, flattened.

    The at-initialization batch of Thesis Figs. 6.2, 6.3, 6.5, C.9 and C.10 as the authors'
    public code (alexandrumeterez/bngrad) builds it, one batch of training images: ToTensor, then
    (if ``normalize``) ``Normalize(spec.mean, spec.std)`` per channel, flattened to D = C H W.

    Args:
        name, root, download, train: as in ``load`` (raises ``DatasetNotFoundError`` if absent).
        batch_size: n, at most the size of the split.
        generator: a CPU generator choosing the images (``seeding.generator``).
        normalize: apply the per-channel normalization; False keeps [0, 1] pixels.
    Returns:
        images: float32, shape (n, D), in the order drawn.
        labels: int64, shape (n,).
    """
    import torch

    key, spec = dataset_spec(name)
    images, labels = as_tensors(load(key, root, train=train, download=download))
    if not 1 <= batch_size <= len(images):
        raise ValueError(
            f"batch_size must be in [1, {len(images)}] for {spec.title}, got {batch_size}"
        )
    index = torch.randperm(len(images), generator=generator)[:batch_size]
    batch = images[index]
    if normalize:
        mean = torch.tensor(spec.mean).view(-1, 1, 1)
        std = torch.tensor(spec.std).view(-1, 1, 1)
        batch = (batch - mean) / std
    return batch.flatten(1), labels[index]


# --- obtaining a dataset before any job reads it (the data rule and its preflight) ---------


def _prepared(spec: DatasetSpec, root: Path) -> bool:
    return all((root / rel).is_file() for rel in spec.files)


def _local_source(key: str, spec: DatasetSpec, system: bool) -> Path | None:
    for folder, _ in _source_folders(key, system):
        if all(_find(folder, rel) for rel in spec.files):
            return folder
    return None


def _apt_command(spec: DatasetSpec) -> list[str] | None:
    """``apt-get install`` for the dataset's Debian package, with ``sudo -n`` if not root; None
    when there is no package, no apt-get, or no way to be root without a password."""
    if not spec.apt_package or shutil.which("apt-get") is None:
        return None
    command = ["apt-get", "install", "-y", "--no-install-recommends", spec.apt_package]
    if os.geteuid() == 0:
        return command
    if shutil.which("sudo") is None:
        return None
    probe = subprocess.run(["sudo", "-n", "true"], capture_output=True, timeout=10)
    return ["sudo", "-n", *command] if probe.returncode == 0 else None


def _download_hosts(spec: DatasetSpec) -> list[str]:
    """The hosts torchvision downloads the dataset from (its class's mirrors or url)."""
    urls = list(getattr(spec.cls, "mirrors", ()) or ()) + [getattr(spec.cls, "url", "") or ""]
    return list(dict.fromkeys(urlparse(u).hostname for u in urls if urlparse(u).hostname))


def _unreachable(spec: DatasetSpec, timeout_s: float) -> str | None:
    """None if some download host answers a TCP connection within ``timeout_s``, else why not."""
    reasons = []
    for host in _download_hosts(spec):
        try:
            socket.create_connection((host, 443), timeout=timeout_s).close()
            return None
        except OSError as error:
            reasons.append(f"{host}: {error}")
    return "; ".join(reasons) or "no download address known"


def route(
    name: str,
    root: str | os.PathLike,
    download: bool = True,
    apt: bool = True,
    system_sources: bool = True,
    timeout_s: float = 10.0,
) -> tuple[str | None, list[str]]:
    """How the dataset can be had, checked cheaply and in order, without changing anything:
    ``prepared``, ``local``, ``apt`` or ``download`` (or None), with the reason each earlier
    way does not apply."""
    key, spec = dataset_spec(name)
    root = Path(root).expanduser()
    if _prepared(spec, root):
        return "prepared", []
    reasons = [f"not prepared under {root}"]
    if _local_source(key, spec, system_sources) is not None:
        return "local", reasons
    searched = [str(f) for f, _ in _source_folders(key, system_sources)]
    reasons.append(f"no local source in {searched or '(no source folders)'}")
    if apt and _apt_command(spec) is not None:
        return "apt", reasons
    reasons.append(
        "no Debian package route (not allowed)"
        if not apt
        else f"no Debian package route (package {spec.apt_package}, apt-get, root or sudo -n)"
    )
    if download:
        why = _unreachable(spec, timeout_s)
        if why is None:
            return "download", reasons
        reasons.append(f"download impossible: {why}")
    else:
        reasons.append("downloading not allowed (data.download: false)")
    return None, reasons


def preflight(
    names, root, download=True, apt=True, system_sources=True, timeout_s: float = 10.0
) -> dict[str, str]:
    """Check before any job that every dataset in ``names`` can be had; the route of each.

    Raises:
        DatasetNotFoundError: naming the dataset, each way tried and how to get the data.
    """
    routes = {}
    for name in dict.fromkeys(names):
        found, reasons = route(name, root, download, apt, system_sources, timeout_s)
        if found is None:
            key, spec = dataset_spec(name)
            searched = [(Path(root), "prepared files under root")] + [
                (f, why) for f, why in _source_folders(key, system_sources)
            ]
            message = _message(spec, key, Path(root), searched, "; ".join(reasons))
            raise DatasetNotFoundError(message, key, tuple(p for p, _ in searched))
        routes[name] = found
    return routes


def prepare(
    name: str,
    root: str | os.PathLike,
    download: bool = True,
    apt: bool = True,
    system_sources: bool = True,
    timeout_s: float = 600.0,
) -> dict:
    """Make the dataset's files ready under ``root``: a local copy, else its Debian package
    (installed with apt-get), else torchvision's download (bounded by ``timeout_s``).

    Returns:
        a record for the data rule's marker: dataset, route, files with their sizes.
    Raises:
        DatasetNotFoundError: when no way works (the message names each way tried).
    """
    key, spec = dataset_spec(name)
    root = Path(root).expanduser()
    found, reasons = route(key, root, download, apt, system_sources, timeout_s=10.0)
    if found == "apt":
        command = _apt_command(spec)
        log.info("installing %s: %s", spec.title, " ".join(command))
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
        if done.returncode != 0:
            update = [*command[: command.index("install")], "update"]
            subprocess.run(update, capture_output=True, timeout=timeout_s)
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
        if done.returncode != 0:
            reasons.append(f"apt-get failed: {done.stderr.strip()[-500:]}")
            found = "download" if download else None
        else:
            found = "local"
    if found in ("prepared", "local"):
        load(key, root, system_sources=system_sources)
    elif found == "download":
        previous = socket.getdefaulttimeout()
        socket.setdefaulttimeout(timeout_s)
        try:
            load(key, root, download=True, system_sources=system_sources)
        finally:
            socket.setdefaulttimeout(previous)
    else:
        preflight([key], root, download, apt, system_sources)  # raises with the reasons
    files = {rel: (root / rel).stat().st_size for rel in spec.files}
    return {"dataset": key, "title": spec.title, "route": found, "root": str(root), "files": files}
