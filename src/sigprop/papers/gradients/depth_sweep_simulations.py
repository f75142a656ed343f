"""Gradient norm vs depth at initialization: Thesis Figs. 6.2, 6.3 (Thm. 6.5), C.9 and C.10.

One sweep over depths L: for each network variant, depth and run a fresh Eq. (6.3)/(6.11) network
(``bn_mlp``, d = n) is drawn and one backward pass on the shared real batch records
ln ||dLoss/dW||_F of ``fc_0`` (Fig. C.10) and ``fc_1`` (Figs. 6.2, 6.3, C.9; the authors' "first
layer") and psi (Thesis Eq. (6.5)) of the ``fc_{L-1}`` output (Fig. C.9, right). The variants
are the seed's curves (Thesis Sec. 6.3 and app. C.7); they are definitions, not knobs, so they
live here rather than in the config.

Each variant is its own cached simulation (``depth_<variant>``, one registry item each:
``depth_sweep`` with ``variants=[<variant>]``), so a figure computes only the curves it draws.
Every variant draws its weights from the same addresses (experiment id ``gradients.depth_sweep``)
as in the one seven-variant sweep, so the numbers do not depend on which variants run together.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import Tensor

from ...base.store import Labelled
from ...datasets import data
from ...engine.devices import resolve_device, resolve_dtype
from . import bn_mlp
from .depth_sweep_spec import VARIANTS, Variant

__all__ = [
    "VARIANTS",
    "Variant",
    "degenerate_batch",
    "depth_sweep",
    "resolve_batch",
]


def degenerate_batch(
    x: Tensor, labels: Tensor, distinct: int, repeats: int
) -> tuple[Tensor, Tensor]:
    """The first ``distinct`` samples of the batch, each repeated ``repeats`` times in a row.

    Our reading of Fig. 6.2's "repeated samples": rank <= ``distinct``, so
    psi(X_0) = inf (Remark 6.6). Shapes (D, distinct * repeats) and (distinct * repeats,).

    Raises:
        ValueError: if the batch has fewer than ``distinct`` samples or a count is < 1.
    """
    if distinct < 1 or repeats < 1:
        raise ValueError(f"distinct and repeats must be >= 1, got {distinct}, {repeats}")
    if distinct > x.shape[1]:
        raise ValueError(f"distinct = {distinct} exceeds the batch size {x.shape[1]}")
    return (
        x[:, :distinct].repeat_interleave(repeats, dim=1),
        labels[:distinct].repeat_interleave(repeats),
    )


def resolve_batch(
    batch: Mapping,
    images: Tensor | None,
    labels: Tensor | None,
    dtype: torch.dtype,
    device: str | torch.device,
) -> tuple[Tensor, Tensor, int]:
    """``bn_mlp.input_batch(**batch)``, or the given ``images`` and ``labels`` in its place.

    Given images (D, n), samples as columns, need their labels (n,) of class indices; the
    dataset is then not read, and ``batch["dataset"]`` only sets the number of classes (the
    read-out's width). Returns what ``bn_mlp.input_batch`` returns: x (D, n), labels, classes.

    Raises:
        ValueError: naming ``images`` or ``labels`` when one is given without the other or has
            the wrong shape, or when a label lies outside the dataset's classes.
    """
    if images is None:
        if labels is not None:
            raise ValueError("labels were given without images; pass both or neither")
        return bn_mlp.input_batch(**batch, dtype=dtype, device=device)
    if not isinstance(images, Tensor) or images.dim() != 2:
        got = tuple(images.shape) if isinstance(images, Tensor) else type(images).__name__
        raise ValueError(f"images must be a tensor of shape (D, n), samples as columns, got {got}")
    n = images.shape[1]
    if labels is None:
        raise ValueError(f"images need their labels, an int tensor of shape ({n},)")
    if not isinstance(labels, Tensor) or tuple(labels.shape) != (n,):
        got = tuple(labels.shape) if isinstance(labels, Tensor) else type(labels).__name__
        raise ValueError(f"labels must be a tensor of shape ({n},) (one per image), got {got}")
    if labels.dtype.is_floating_point or labels.dtype.is_complex or labels.dtype == torch.bool:
        raise ValueError(f"labels must be integer class indices, got dtype {labels.dtype}")
    if "dataset" not in batch:
        raise ValueError("batch['dataset'] is needed with images: it sets the number of classes")
    n_classes = data.dataset_spec(batch["dataset"])[1].n_classes
    if n and not 0 <= int(labels.min()) <= int(labels.max()) < n_classes:
        raise ValueError(f"labels must lie in 0..{n_classes - 1} ({batch['dataset']}'s classes)")
    return images.to(device, dtype), labels.to(device, torch.long), n_classes


def depth_sweep(
    depths: list[int],
    n_runs: int,
    width: int,
    dtype: str,
    degenerate: dict,
    batch: dict,
    device: str = "auto",
    variants: list[str] | None = None,
    images: Tensor | None = None,
    labels: Tensor | None = None,
    *,
    experiment_id: str,
) -> Labelled:
    """ln ||grad fc_0||_F, ln ||grad fc_1||_F and psi(H_{L-1}) per variant, depth L and run.

    Args:
        depths: the L grid (L BN layers, L + 1 linear layers; L >= 2 so that fc_1 is hidden).
        n_runs: fresh networks per (variant, depth).
        width: d (the seed's d = n = 100).
        dtype: ``float64`` (float32 overflows for sin near L = 600).
        degenerate: ``{"distinct": k, "repeats": m}``, the repeat pattern of the degenerate batch.
        batch: the config item ``gradients.data`` (``bn_mlp.input_batch``'s arguments).
        experiment_id: seeding prefix. Run r at depth L draws its weights from the address
            ``(f"{experiment_id}.L{L}", r)`` for every variant, so the variants of one (L, r)
            share their Gaussian draws (common random numbers: paired differences between
            curves; the orthogonal variants even share their weights).
        variants: the names (``VARIANTS``) to simulate, in that order; default: all.
        images: the input batch X_0, shape (D, n), samples as columns; replaces
            ``bn_mlp.input_batch``'s seeded draw from the dataset (``resolve_batch``).
        labels: the images' class indices, shape (n,); replace the drawn batch's labels.

    Returns:
        ``log_grad_fc0``, ``log_grad_fc1`` and ``gap_last`` over dims (variant, depth, run);
        ``gap_last`` is inf where H_{L-1} is numerically rank-deficient (mean reduction,
        degenerate batch).
    """
    _check_sweep(depths, n_runs)
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    x, labels, n_classes = resolve_batch(batch, images, labels, torch_dtype, device)
    x_deg, labels_deg = degenerate_batch(x, labels, degenerate["distinct"], degenerate["repeats"])
    names = list(VARIANTS) if variants is None else list(variants)
    unknown = sorted(set(names) - set(VARIANTS))
    if unknown:
        raise ValueError(f"unknown variants {unknown}; the variants are {list(VARIANTS)}")
    runs = list(range(n_runs))
    shape = (len(names), len(depths), n_runs)
    values = {k: torch.empty(shape, dtype=torch.float64) for k in ("fc0", "fc1", "gap")}
    for i, variant in enumerate(VARIANTS[name] for name in names):
        inputs = (x_deg, labels_deg) if variant.degenerate else (x, labels)
        for j, depth in enumerate(depths):
            profile = _profile(
                variant, depth, width, inputs, n_classes, runs, torch_dtype, device, experiment_id
            )
            values["fc0"][i, j] = profile.log_grad[:, 0].cpu()
            values["fc1"][i, j] = profile.log_grad[:, 1].cpu()
            values["gap"][i, j] = profile.gaps[depth - 1].cpu()
    return _labelled(values, names, depths, runs, experiment_id, given=images is not None)


def _labelled(
    values: dict[str, Tensor],
    names: list[str],
    depths: list[int],
    runs: list[int],
    experiment_id: str,
    given: bool,
) -> Labelled:
    """``depth_sweep``'s values over (variant, depth, run) with their streams; ``given``: the
    batch was passed in (else ``bn_mlp.input_batch``'s draw)."""
    return Labelled.over(
        {"variant": names, "depth": depths, "run": runs},
        values={
            "log_grad_fc0": values["fc0"],
            "log_grad_fc1": values["fc1"],
            "gap_last": values["gap"],
        },
        seeds={
            "experiment_ids": [f"{experiment_id}.L{L}" for L in depths],
            "runs": runs,
            "streams": ["weights"],
            "batch": "given" if given else bn_mlp.BATCH_ID,
        },
    )


def _check_sweep(depths: list[int], n_runs: int) -> None:
    """A ValueError naming the ``depth_sweep`` setting it cannot run."""
    if min(depths) < 2:
        raise ValueError(f"depths must be >= 2 (fc_1 must be a hidden layer), got {depths}")
    if n_runs < 1:
        raise ValueError(f"n_runs must be >= 1, got {n_runs}")


def _profile(
    variant: Variant,
    depth: int,
    width: int,
    inputs: tuple[Tensor, Tensor],
    n_classes: int,
    runs: list[int],
    dtype: torch.dtype,
    device: torch.device,
    experiment_id: str,
) -> bn_mlp.GradientProfile:
    """One (variant, depth) of the sweep: ``bn_mlp.gradient_profile`` of the variant's network
    at depth L on ``inputs`` (x, labels), weights from (``<experiment_id>.L<depth>``, run), psi
    recorded at ``fc_{L-1}``."""
    arch = bn_mlp.Architecture(depth, width, variant.norm, variant.activation, variant.init)
    return bn_mlp.gradient_profile(
        arch,
        *inputs,
        experiment_id=f"{experiment_id}.L{depth}",
        runs=runs,
        n_classes=n_classes,
        dtype=dtype,
        device=device,
        gap_layers=[depth - 1],
    )
