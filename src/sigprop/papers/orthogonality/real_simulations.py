"""DJB21 App. F, Fig. 5: the orthogonality gap per layer of random ReLU networks on real images.

The networks are ``nets.djb21``'s (ReLU-first blocks, torch BN in training mode or none, the
authors' Xavier-normal gains). Nothing is trained: each batch
of real images is pushed through freshly initialized networks and DJB21 Eq. (2) is measured on
the input of every block (per-sample flattened features), so layer 1 is the raw input.
"""

from __future__ import annotations

import logging

import torch

from ...base.store import Labelled
from ...datasets import data
from ...engine import metrics
from ...engine.devices import resolve_device, resolve_dtype
from ...engine.seeding import generator
from ...nets import convnets, djb21

__all__ = ["load_images", "real_gap"]

log = logging.getLogger(__name__)


def load_images(
    dataset: str, data_root: str, download: bool, normalize_mean: float, normalize_std: float
) -> torch.Tensor:
    """The training images of ``dataset``, normalized as ``transforms.Normalize(mean, std)``.

    The DJB21 code normalizes CIFAR-10 with the MNIST constants (0.1307, 0.3081), one value
    broadcast to every channel. Raises ``data.DatasetNotFoundError`` if the data is missing.

    Returns:
        float32, shape (N, C, H, W).
    """
    if normalize_std <= 0:
        raise ValueError(f"normalize_std must be > 0, got {normalize_std}")
    images, _ = data.as_tensors(data.load(dataset, root=data_root, train=True, download=download))
    return images.sub_(normalize_mean).div_(normalize_std)


def real_gap(
    dataset: str,
    data_root: str,
    normalize_mean: float,
    normalize_std: float,
    architectures: list[str],
    norms: list[str],
    width: int,
    channels: int,
    kernel_size: int,
    padding_mode: str,
    depth: int,
    batch_size: int,
    n_batches: int,
    init_per_batch: bool,
    dtype: str,
    download: bool = False,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """V(H_l) before each block l = 1..depth, DJB21 Fig. 5 (Eq. (2) on real images).

    For every batch b (``n_batches`` of ``batch_size`` distinct training images, drawn from the
    stream (experiment_id, b, "batch")) and architecture, the BN and the vanilla network share
    the initial weights (stream (experiment_id.architecture, b, "weights"); common random
    numbers). With ``init_per_batch`` every batch gets a fresh network, so batches are i.i.d.
    (network, data) draws; otherwise, as in the authors' code, one network (b = 0) sees all
    batches. BN runs in training mode (batch statistics), as in the code.

    Args:
        dataset, data_root, download: passed to ``sigprop.datasets.data.load`` (training split).
        normalize_mean, normalize_std: the input normalization, see ``load_images``.
        architectures: subset of ``djb21.ARCHITECTURES`` ("mlp", "convnet").
        norms: subset of ``convnets.FIG5_NORMS`` ("batch_norm", "none").
        width: MLP width. channels: ConvNet channels. kernel_size, padding_mode: ConvNet.
        depth: number of blocks; V is measured at the input of each (layer 1 = raw input).
        batch_size: n, the samples per batch. n_batches: independent batches.
        init_per_batch: a fresh random network per batch (True) or one for all (False).
        dtype: "float32" or "float64" for the forward passes.

    Returns:
        ``gap`` over dims (architecture, norm, batch, layer), float64 on the CPU.
    """
    _check_settings(architectures, norms, padding_mode, batch_size, n_batches, depth)
    torch_device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    images = load_images(dataset, data_root, download, normalize_mean, normalize_std)
    if batch_size > images.shape[0]:
        raise ValueError(f"batch_size {batch_size} exceeds the {images.shape[0]} images")
    shape = tuple(images.shape[1:])
    sizes = {"width": width, "channels": channels, "kernel_size": kernel_size,
             "padding_mode": padding_mode, "depth": depth}  # fmt: skip
    gaps = torch.empty(len(architectures), len(norms), n_batches, depth, dtype=torch.float64)
    for b in range(n_batches):
        pick = torch.randperm(images.shape[0], generator=generator(experiment_id, b, "batch"))
        x = images[pick[:batch_size]].to(torch_device, torch_dtype)
        gaps[:, :, b] = _batch_gaps(
            x, b, shape, architectures, norms, sizes, init_per_batch, experiment_id
        )
        log.info("batch %d/%d done", b + 1, n_batches)
    return _labelled(gaps, architectures, norms, n_batches, depth, init_per_batch, experiment_id)


def _batch_gaps(
    x: torch.Tensor,
    b: int,
    image_shape: tuple[int, ...],
    architectures: list[str],
    norms: list[str],
    sizes: dict,
    init_per_batch: bool,
    experiment_id: str,
) -> torch.Tensor:
    """V(H_l) before each block l = 1..depth on batch ``x`` (batch ``b``), shape
    (architectures, norms, depth): per architecture and norm a ``djb21.build`` network
    for images of ``image_shape`` (``sizes``: width, channels, kernel_size, padding_mode,
    depth) on ``x``'s device and dtype; an architecture's BN and vanilla networks draw from the
    same stream (experiment_id.architecture, b, or 0 without ``init_per_batch``, "weights")."""
    gaps = torch.empty(len(architectures), len(norms), sizes["depth"], dtype=torch.float64)
    for i, arch in enumerate(architectures):
        for j, norm in enumerate(norms):
            weights = generator(f"{experiment_id}.{arch}", b if init_per_batch else 0, "weights")
            size = sizes["width"] if arch == "mlp" else sizes["channels"]
            net = djb21.build(
                arch,
                image_shape,
                size,
                sizes["depth"],
                norm,
                sizes["kernel_size"],
                sizes["padding_mode"],
                generator=weights,
            )
            gaps[i, j] = _gaps_at_init(net.to(x.device, x.dtype), x)
    return gaps


def _labelled(
    gaps: torch.Tensor,
    architectures: list[str],
    norms: list[str],
    n_batches: int,
    depth: int,
    init_per_batch: bool,
    experiment_id: str,
) -> Labelled:
    """``real_gap``'s gaps over (architecture, norm, batch, layer), with their streams."""
    batches = range(n_batches)
    return Labelled.over(
        {
            "architecture": architectures,
            "norm": norms,
            "batch": batches,
            "layer": range(1, depth + 1),
        },
        values={"gap": gaps},
        seeds={
            "experiment_id": experiment_id,
            "runs": list(batches),
            "streams": ["batch"],
            "weights": {
                "experiment_ids": [f"{experiment_id}.{a}" for a in architectures],
                "runs": list(batches) if init_per_batch else [0],
                "streams": ["weights"],
            },
        },
    )


def _check_settings(
    architectures, norms, padding_mode: str, batch_size: int, n_batches: int, depth: int
) -> None:
    """A ValueError naming the ``real_gap`` setting it cannot run."""
    for name in architectures:
        if name not in djb21.ARCHITECTURES:
            raise ValueError(f"architecture must be in {djb21.ARCHITECTURES}, got {name!r}")
    for name in norms:
        if name not in convnets.FIG5_NORMS:
            raise ValueError(f"norm must be in {convnets.FIG5_NORMS}, got {name!r}")
    if padding_mode not in convnets.PADDING_MODES:
        raise ValueError(
            f"padding_mode must be one of {convnets.PADDING_MODES}, got {padding_mode!r}"
        )
    if batch_size < 2 or n_batches < 1 or depth < 1:
        raise ValueError(
            f"need batch_size >= 2, n_batches >= 1, depth >= 1; got {batch_size}, {n_batches}, "
            f"{depth}"
        )


@torch.no_grad()
def _gaps_at_init(net: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    """V(H_l) (DJB21 Eq. (2)) at the input of each block of ``net`` on batch ``x``, in training
    mode (batch statistics), as float64 on the CPU."""
    reps = net.train().representations(x)
    v = [metrics.orthogonality_gap(djb21.features_by_samples(h)) for h in reps]
    return torch.stack(v).to("cpu", torch.float64)
