"""Thesis Table C.1 (app. C.4): rank of random batches of real images, as printed and as meant.

App. C.4 tests the premise of Thm. 6.5 (non-degenerate input batches) by "measuring the rank of
the Gram matrix of these randomly sampled batches using the ``matrix_rank()`` function provided
in PyTorch". Per dataset, batch size n and batch (n distinct training images, flattened to D
pixels, samples as columns: X in R^{D x n}, Thesis layout) we measure:

- ``gram_rank_f32``: the authors' number, ``torch.linalg.matrix_rank`` of the float32 n x n Gram
  X^T X with its default tolerance sigma_max(G) * n * eps_float32;
- ``rank_f64``: the rank that means linear independence, #{sigma_i(X) > sigma_1(X) max(D, n)
  eps_float64} (``metrics.numerical_rank``'s rule with the float64 epsilon). X is exact in
  float64 (integer grey levels k, or (k / 255 - mean) / std rounded once), and the SVD is
  backward stable, so a singular value above this tolerance is not zero;
- ``log10_margin``: log10(sigma_n(X) / that tolerance), how far the batch is from the rule;
- ``threshold_rank``: #{sigma_i(X)^2 > n eps_float32 sigma_1(X)^2}, the float32 Gram rule applied
  to the exact spectrum (sigma_i(G) = sigma_i(X)^2): equal to ``gram_rank_f32`` when the
  printed deficits come from the tolerance, not from the data;
- ``quantization_rank``: #{sigma_i(X) > (step / 2) sqrt(D n)}, the directions that survive any
  perturbation of every pixel by half a grey level (step = one grey level in the batch's units;
  ||E||_2 <= ||E||_F <= (step / 2) sqrt(D n)): informational, a worst case;
- ``mean_cosine``: the mean of cos(x_i, x_j) over pairs i != j (signed), the "average cosine
  similarity between samples" of app. C.4;
- ``control_rank``: ``rank_f64`` of the batch with its last image replaced by its first (rank
  n - 1 exactly), for the first ``control_batches`` batches (NaN for the others): the negative
  control showing the float64 rule detects one linear dependence.

Each quantity is measured for ``raw`` pixels (ToTensor's [0, 1]) and ``normalized`` pixels
(per-channel ``Normalize(mean, std)`` of the authors' code, ``data.DATASETS``); the seed does
not say which; its printed ranks and cosines match raw pixels (see the claims).
"""

from __future__ import annotations

import logging
import math

import torch
from torch import Tensor

from ...base.store import Labelled
from ...datasets import data
from ...engine import metrics
from ...engine.devices import resolve_device
from ...engine.seeding import generator

__all__ = [
    "NORMALIZATIONS",
    "QUANTITIES",
    "batch_statistics",
    "float32_gram_rank",
    "float64_rank",
    "mean_cosine",
    "pixels",
    "table_c1",
]

log = logging.getLogger(__name__)

NORMALIZATIONS = ("raw", "normalized")
"""``raw``: ToTensor's [0, 1] pixels; ``normalized``: per-channel (x - mean) / std."""

QUANTITIES = (
    "gram_rank_f32",
    "rank_f64",
    "log10_margin",
    "threshold_rank",
    "quantization_rank",
    "mean_cosine",
    "control_rank",
)
"""The per-batch measurements of ``table_c1`` (module docstring)."""

_CHUNK = 20
"""Batches processed at once (bounds memory at paper scale: 20 x 3072 x 512 float64 = 250 MB)."""


def float32_gram_rank(x: Tensor) -> Tensor:
    """``torch.linalg.matrix_rank`` of the float32 n x n Gram X^T X, default tolerance: the
    authors' Table C.1 number (app. C.4). x: (..., D, n), samples as columns -> (...)."""
    x32 = x.to(torch.float32)
    return torch.linalg.matrix_rank(x32.mT @ x32)


def mean_cosine(x: Tensor) -> Tensor:
    """Mean of cos(x_i, x_j) over the n (n - 1) ordered pairs i != j of columns, signed.
    x: (..., D, n) -> (...)."""
    n = x.shape[-1]
    if n < 2:
        raise ValueError(f"need n >= 2 samples for a cosine, got n={n}")
    u = x / x.norm(dim=-2, keepdim=True)
    total = u.sum(dim=-1).square().sum(dim=-1)  # sum_ij cos_ij, the diagonal contributes n
    return (total - n) / (n * (n - 1))


def _float64_tolerance(sigma: Tensor, d: int, n: int) -> Tensor:
    """sigma_1 max(D, n) eps_float64, ``metrics.numerical_rank``'s rule in float64; (..., 1)."""
    return sigma[..., :1] * max(d, n) * torch.finfo(torch.float64).eps


def float64_rank(x: Tensor) -> Tensor:
    """#{sigma_i(X) > sigma_1(X) max(D, n) eps_float64}: ``metrics.numerical_rank`` with the
    float64 epsilon as its per-dimension tolerance; x float64 (..., D, n) -> (...) float64."""
    return metrics.numerical_rank(x, rtol_per_dim=torch.finfo(torch.float64).eps)


def batch_statistics(x: Tensor, step: float) -> dict[str, Tensor]:
    """Every per-batch quantity but ``control_rank`` (module docstring) of float64 batches.

    Args:
        x: float64, shape (B, D, n), samples as columns.
        step: one grey level in x's units (for ``quantization_rank``).
    Returns:
        name -> float64 tensor of shape (B,).
    """
    if x.dtype != torch.float64:
        raise ValueError(f"x must be float64 (the exact data), got {x.dtype}")
    d, n = x.shape[-2:]
    sigma = torch.linalg.svdvals(x)
    top = sigma[..., :1]
    tol = _float64_tolerance(sigma, d, n)
    eps32 = torch.finfo(torch.float32).eps
    return {
        "gram_rank_f32": float32_gram_rank(x).to(torch.float64),
        "rank_f64": (sigma > tol).sum(-1).to(torch.float64),
        "log10_margin": torch.log10(sigma[..., -1] / tol[..., 0]),
        "threshold_rank": (sigma.square() > n * eps32 * top.square()).sum(-1).to(torch.float64),
        "quantization_rank": (sigma > step / 2 * math.sqrt(d * n)).sum(-1).to(torch.float64),
        "mean_cosine": mean_cosine(x),
    }


def pixels(dataset: str, data_root: str, download: bool) -> tuple[Tensor, data.DatasetSpec]:
    """The training images of ``dataset`` as integer grey levels 0..255 in uint8, flattened to
    (N, D) channel-first (ToTensor's order), and the dataset's spec (normalization constants)."""
    key, spec = data.dataset_spec(dataset)
    images, _ = data.as_tensors(data.load(key, data_root, train=True, download=download))
    return images.flatten(1).mul_(255).round_().to(torch.uint8), spec


def _normalize(grey: Tensor, normalization: str, spec: data.DatasetSpec) -> tuple[Tensor, float]:
    """Grey levels (B, n, D) float64 -> the batch in ``normalization``'s units, and one grey level
    in those units (the largest over channels)."""
    if normalization == "raw":
        return grey / 255, 1 / 255
    channels = len(spec.mean)
    shape = (*grey.shape[:-1], channels, grey.shape[-1] // channels)
    mean = torch.tensor(spec.mean, dtype=grey.dtype, device=grey.device).view(-1, 1)
    std = torch.tensor(spec.std, dtype=grey.dtype, device=grey.device).view(-1, 1)
    out = (grey.view(shape) / 255 - mean) / std
    return out.view(grey.shape), 1 / (255 * min(spec.std))


def table_c1(
    datasets: list[str],
    batch_sizes: list[int],
    batches: int,
    control_batches: int,
    normalizations: list[str],
    data_root: str,
    download: bool = False,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """Thesis Table C.1 measured: the ``QUANTITIES`` per dataset, normalization, n and batch.

    Batch b of size n of ``dataset`` is the first n entries of a random permutation of the
    training split (without replacement) from the stream (``experiment_id.dataset``, b, "n<n>");
    both normalizations see the same images.

    Args:
        datasets: keys of ``data.DATASETS`` (downloaded if ``download`` and not found locally).
        batch_sizes: the n of the table's columns, each in [2, D] (D = the image dimension).
        batches: batches per (dataset, n) (the seed: 100).
        control_batches: batches (the first ones) that also get ``control_rank``.
        normalizations: subset of ``NORMALIZATIONS``.
        data_root, download: passed to ``data.load``.
    Returns:
        float64 values over dims (dataset, normalization, n, batch).
    """
    _check_settings(normalizations, batches, control_batches, batch_sizes)
    torch_device = resolve_device(device)
    shape = (len(datasets), len(normalizations), len(batch_sizes), batches)
    values = {q: torch.full(shape, math.nan, dtype=torch.float64) for q in QUANTITIES}
    for i, dataset in enumerate(datasets):
        grey, spec = _pixels(dataset, data_root, download, max(batch_sizes))
        stream = f"{experiment_id}.{dataset}"
        for k, n in enumerate(batch_sizes):
            picks = [
                torch.randperm(grey.shape[0], generator=generator(stream, b, f"n{n}"))[:n]
                for b in range(batches)
            ]
            for start in range(0, batches, _CHUNK):
                stop = min(start + _CHUNK, batches)
                chunk = grey[torch.stack(picks[start:stop])].to(torch_device, torch.float64)
                for j, normalization in enumerate(normalizations):
                    at = (i, j, k, slice(start, stop))
                    _measure_chunk(values, at, chunk, normalization, spec, control_batches)
            log.info("%s n=%d done", dataset, n)
    return Labelled.over(
        {
            "dataset": datasets,
            "normalization": normalizations,
            "n": batch_sizes,
            "batch": range(batches),
        },
        values=values,
        seeds={
            "experiment_id": experiment_id,
            "streams": "(experiment_id.dataset, batch, 'n<n>') -> randperm of the training split",
        },
    )


def _check_settings(
    normalizations: list[str], batches: int, control_batches: int, batch_sizes: list[int]
) -> None:
    """A ValueError naming the ``table_c1`` setting it cannot run (before any data is read)."""
    for name in normalizations:
        if name not in NORMALIZATIONS:
            raise ValueError(f"normalization must be in {NORMALIZATIONS}, got {name!r}")
    if batches < 2 or not 0 <= control_batches <= batches:
        raise ValueError(
            f"need batches >= 2 (a std) and 0 <= control_batches <= batches, got {batches}, "
            f"{control_batches}"
        )
    if min(batch_sizes) < 2:
        raise ValueError(f"batch sizes must be >= 2, got {batch_sizes}")


def _pixels(
    dataset: str, data_root: str, download: bool, largest: int
) -> tuple[Tensor, data.DatasetSpec]:
    """``pixels``, after a ValueError if the ``largest`` batch size exceeds D (a larger batch
    has rank <= D < n)."""
    grey, spec = pixels(dataset, data_root, download)
    if largest > grey.shape[1]:
        raise ValueError(
            f"batch sizes must be <= D = {grey.shape[1]} for {spec.title} (a larger batch has "
            f"rank <= D < n), got {largest}"
        )
    return grey, spec


def _measure_chunk(
    values: dict[str, Tensor],
    at: tuple[int, int, int, slice],
    chunk: Tensor,
    normalization: str,
    spec: data.DatasetSpec,
    control_batches: int,
) -> None:
    """The ``QUANTITIES`` of a chunk of batches (grey levels (B, n, D), float64) in
    ``normalization``'s units, written to ``values[q][at]`` (at = dataset, normalization, n,
    the chunk's batches); ``control_rank`` only for those of the first ``control_batches``."""
    x, step = _normalize(chunk, normalization, spec)
    for q, v in batch_statistics(x.mT, step).items():
        values[q][at] = v.cpu()
    start = at[3].start
    controls = min(at[3].stop, control_batches) - start
    if controls > 0:
        dup = x[:controls].clone()
        dup[:, -1] = dup[:, 0]
        rank = float64_rank(dup.mT).cpu()
        values["control_rank"][(*at[:3], slice(start, start + controls))] = rank
