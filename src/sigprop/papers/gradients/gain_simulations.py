"""Activation shaping at initialization, Thesis §6.4 and app. C.5 (Figs. 6.5, C.1, C.2).

Every network is ``bn_mlp`` with d = n = 100 by default, Haar orthogonal weights, PyTorch
``BatchNorm1d`` (training mode) before the activation, biases (Fig. 6.5's notebook:
``bias=True``) and the one real batch ``bn_mlp.input_batch(**batch)``. Within one depth the
weights of run r are shared by all activations, gains and exponents (``experiment_id`` +
``.L<depth>``): common random numbers, so the curves differ only by the shaping.

``images`` (the input batch X_0, shape (D, n), samples as columns) and ``labels`` (their class
indices, shape (n,)) replace ``bn_mlp.input_batch``'s seeded draw from the dataset
(``depth_sweep_simulations.resolve_batch``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping

import torch

from ...base.store import Labelled
from ...engine.devices import resolve_device, resolve_dtype
from . import bn_mlp, shaping
from .depth_sweep_simulations import resolve_batch

__all__ = ["constant_gain", "exponent_rate", "gain_depth"]


def _sweep(
    grid: Mapping[str, list],
    architecture: Callable[..., bn_mlp.Architecture],
    reduce: Callable[[torch.Tensor], torch.Tensor],
    runs: int,
    batch: Mapping,
    dtype: str,
    device: str,
    experiment_id: str,
    images: torch.Tensor | None,
    labels: torch.Tensor | None,
) -> torch.Tensor:
    """``reduce`` of log ||grad W_k||_F (float64, shape (runs, L + 1), on the CPU) of the net
    ``architecture(**point)`` at every point of ``grid`` (its last key varying fastest), with the
    weights of run r at ``(<experiment_id>.L<depth>, r)``: shape (*grid, ..., run)."""
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    x, labels, n_classes = resolve_batch(batch, images, labels, torch_dtype, device)
    run_ids = list(range(runs))
    values = []
    for point in itertools.product(*grid.values()):
        arch = architecture(**dict(zip(grid, point, strict=True)))
        prof = bn_mlp.gradient_profile(
            arch, x, labels, f"{experiment_id}.L{arch.depth}", run_ids, n_classes, torch_dtype,
            device,
        )  # fmt: skip
        values.append(reduce(prof.log_grad.cpu().double()))
    out = torch.stack(values)
    return out.reshape(*(len(v) for v in grid.values()), *out.shape[1:])


def _shaped(width: int, norm: str, bias: bool) -> Callable[..., bn_mlp.Architecture]:
    """The orthogonal net of ``activation`` and ``depth`` with gains alpha_l = gain (l + 1)^-gamma
    (Thesis Eq. (6.11), gamma = ``exponent``)."""

    def architecture(activation: str, depth: int, gain: float = 1.0, exponent: float = 0.0):
        return bn_mlp.Architecture(depth, width, norm, activation, "orthogonal", gain, exponent,
                                   bias)  # fmt: skip

    return architecture


def _labelled(
    coords: Mapping[str, list], name: str, out: torch.Tensor, experiment_id: str,
    depths: list[int], run_ids: list[int],
) -> Labelled:  # fmt: skip
    """``out`` as ``name`` over dims (*coords, run), seeded by ``<experiment_id>.L<depth>``."""
    return Labelled.over(
        {**coords, "run": run_ids},
        values={name: out},
        seeds={
            "experiment_ids": [f"{experiment_id}.L{d}" for d in depths],
            "runs": run_ids,
            "streams": ["weights", "biases"],
        },
    )


def gain_depth(
    activations: list[str],
    exponents: list[float],
    depths: list[int],
    runs: int,
    layer: int,
    batch: Mapping,
    width: int,
    norm: str,
    bias: bool,
    dtype: str,
    device: str = "auto",
    images: torch.Tensor | None = None,
    labels: torch.Tensor | None = None,
    *,
    experiment_id: str,
) -> Labelled:
    """log ||grad_{W_layer} L||_F vs depth for gain schedules alpha_l = (l + 1)^-gamma, Fig. 6.5.

    Thesis Eq. (6.11); gamma = 0 is "Without gain", 0.4 "With gain"; ``layer`` = 1 is ``fc_1``.

    Returns:
        ``log_grad`` over dims (exponent, activation, depth, run).
    """
    if not all(0 <= layer <= d for d in depths):
        raise ValueError(f"layer {layer} must lie in 0..depth for every depth {depths}")
    coords = {"exponent": exponents, "activation": activations, "depth": depths}
    out = _sweep(
        coords, _shaped(width, norm, bias), lambda log_grad: log_grad[:, layer], runs, batch,
        dtype, device, experiment_id, images, labels,
    )  # fmt: skip
    return _labelled(coords, "log_grad", out, experiment_id, depths, list(range(runs)))


def constant_gain(
    activations: list[str],
    gains: list[float],
    depth: int,
    layers: list[int],
    gap: int,
    runs: int,
    batch: Mapping,
    width: int,
    norm: str,
    bias: bool,
    dtype: str,
    device: str = "auto",
    images: torch.Tensor | None = None,
    labels: torch.Tensor | None = None,
    *,
    experiment_id: str,
) -> Labelled:
    """Explosion rate R(l, alpha) (``shaping.explosion_rate``) at several layers l of one
    ``depth``-layer net with the same gain alpha in every layer, Fig. C.1 (Thesis app. C.5).

    Returns:
        ``rate`` over dims (activation, gain, layer, run).
    """
    grid = {"activation": activations, "gain": gains}
    out = _sweep(
        grid, functools.partial(_shaped(width, norm, bias), depth=depth),
        lambda log_grad: torch.stack([shaping.explosion_rate(log_grad, k, gap) for k in layers]),
        runs, batch, dtype, device, experiment_id, images, labels,
    )  # fmt: skip
    coords = {"activation": activations, "gain": gains, "layer": layers}
    return _labelled(coords, "rate", out, experiment_id, [depth], list(range(runs)))


def exponent_rate(
    activations: list[str],
    exponents: list[float],
    depths: list[int],
    from_layer: int,
    gap: int,
    runs: int,
    batch: Mapping,
    width: int,
    norm: str,
    bias: bool,
    dtype: str,
    device: str = "auto",
    images: torch.Tensor | None = None,
    labels: torch.Tensor | None = None,
    *,
    experiment_id: str,
) -> Labelled:
    """Early-layer explosion rate vs gain exponent gamma for several depths, Fig. C.2.

    R = (log g_{from_layer} - log g_{from_layer + gap}) / gap, i.e. ``shaping.explosion_rate`` at
    l = from_layer + gap. The seed's "l = 10" with 0-based layers compares ``fc_10`` with the
    input projection ``fc_0``, whose gradient has another scale (app. C.5); ``from_layer`` = 1
    measures between hidden layers only (``fc_1`` .. ``fc_11``), ``from_layer`` = 0 is literal.


    Returns:
        ``rate`` over dims (activation, depth, exponent, run).
    """
    if from_layer < 0 or any(from_layer + gap > d for d in depths):
        raise ValueError(f"from_layer + gap = {from_layer + gap} must lie in 1..depth {depths}")
    coords = {"activation": activations, "depth": depths, "exponent": exponents}
    out = _sweep(
        coords, _shaped(width, norm, bias),
        lambda log_grad: shaping.explosion_rate(log_grad, from_layer + gap, gap), runs, batch,
        dtype, device, experiment_id, images, labels,
    )  # fmt: skip
    return _labelled(coords, "rate", out, experiment_id, depths, list(range(runs)))
