"""Assumption A_1(alpha, l) of DJB21 checked on a grid of batch sizes n and widths d.

Thesis §2.2.3 and Fig. 2.3 (not in the paper): A_1(alpha, l) says sigma_n(H_k) >= alpha for
k = 1..l (DJB21 §3, Thesis §2.2.1). The thesis checks A_1(0.1 alpha_0, 1000) for 10 runs per
pixel (n, d), with alpha_0 the smallest singular value of H_0, H_0 i.i.d. Gaussian, and the BN
chain DJB21 Eq. (1) (Thesis Eq. (2.1)). Every H_k, k >= 1, has unit Frobenius norm (Eq. (10)),
so alpha_0 is measured on H_0 / ||H_0||_F: on the raw H_0,
0.1 alpha_0 ~ 0.1 (sqrt d - sqrt n) exceeds 1 / sqrt n >= sigma_n(H_k) and every pixel fails.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence

import torch
from torch import Tensor

from ...base import checkpoints
from ...base.store import Labelled
from ...engine import chains
from ...engine.devices import resolve_device, resolve_dtype
from ...engine.inputs import gaussian_inputs
from ...engine.metrics import smallest_singular_value

__all__ = [
    "CHECK_EVERY",
    "A1Monitor",
    "a1_grid",
    "a1_holds",
    "unit_frobenius_alpha",
]

log = logging.getLogger(__name__)

CHECK_EVERY = 25
"""Layers between early-stopping checks (a pixel stops once all of its runs have failed)."""


def unit_frobenius_alpha(h0: Tensor) -> Tensor:
    """alpha_0 = sigma_min(H_0) / ||H_0||_F, the A_1 scale of Thesis Fig. 2.3.

    Invariant to the scale of H_0, as the BN chain is; computed in float64.
    """
    h = h0.to(torch.float64)
    return (smallest_singular_value(h) / torch.linalg.matrix_norm(h)).to(h0.dtype)


def a1_holds(min_ratio: Tensor, threshold: float) -> Tensor:
    """The pass rule of Thesis Fig. 2.3: min_k sigma_n(H_k) / alpha_0 >= threshold (ties pass)."""
    return min_ratio >= threshold


class A1Monitor:
    """Observer of ``chains.simulate``: sigma_n(H_k) / alpha_0 at each layer k = 1, 2, ...

    Keeps the running minimum over the layers seen and the first layer where the ratio drops
    below ``threshold`` (0 while none has), per run; ``state`` is the last H_k it saw, so a
    chain can be continued from it. Call it once per layer, in order.
    """

    def __init__(self, alpha0: Tensor, threshold: float):
        self.alpha0 = alpha0
        self.threshold = threshold
        self.layer = 0
        self.minimum = torch.full_like(alpha0, math.inf)
        self.first_fail = torch.zeros(alpha0.shape, dtype=torch.long, device=alpha0.device)
        self.state: Tensor | None = None

    def __call__(self, h: Tensor) -> Tensor:
        self.layer += 1
        ratio = smallest_singular_value(h) / self.alpha0
        self.minimum = torch.minimum(self.minimum, ratio)
        new = (self.first_fail == 0) & ~a1_holds(ratio, self.threshold)
        self.first_fail[new] = self.layer
        self.state = h
        return ratio

    @property
    def all_failed(self) -> bool:
        return bool((self.first_fail > 0).all())


def _check_grid(batch_sizes: Sequence[int], widths: Sequence[int]) -> None:
    for name, grid in (("batch_sizes", batch_sizes), ("widths", widths)):
        if len(grid) == 0:
            raise ValueError(f"{name} is empty")
        if any(int(v) != v or v < 1 for v in grid):
            raise ValueError(f"{name} must be positive integers, got {list(grid)}")
        if list(grid) != sorted(set(grid)):
            raise ValueError(f"{name} must be strictly increasing, got {list(grid)}")
    if max(widths) < min(batch_sizes):
        raise ValueError(
            f"no valid pixel: every width in {list(widths)} is below every batch size in "
            f"{list(batch_sizes)}; DJB21 assumes d >= n"
        )


def _pixel(
    n: int,
    d: int,
    runs: list[int],
    threshold: float,
    depth: int,
    stop_when_all_failed: bool,
    dtype: torch.dtype,
    device: torch.device,
    stream_id: str,
) -> tuple[Tensor, Tensor, Tensor, int]:
    """alpha_0, min ratio and first failing layer per run of one pixel, and layers simulated."""
    h0 = gaussian_inputs(stream_id, runs, d, n, dtype, device)
    alpha0 = unit_frobenius_alpha(h0)
    h = h0 / torch.linalg.matrix_norm(h0)[:, None, None]
    floor = 10 * math.sqrt(torch.finfo(dtype).eps)
    if float((threshold * alpha0).min()) < floor:
        log.warning(
            "%s: threshold * alpha_0 = %.2g is below 10 sqrt(eps) = %.2g, where sigma_n in %s is "
            "not resolved; its verdict is unreliable (use float64)",
            stream_id, float((threshold * alpha0).min()), floor, dtype,
        )  # fmt: skip
    monitor = A1Monitor(alpha0, threshold)
    product = chains.GaussianGramProduct(stream_id, runs, d, n, 1.0 / d, dtype, device)
    step = chains.Step("bn_rms_scaled")
    while monitor.layer < depth:
        chunk = min(CHECK_EVERY, depth - monitor.layer)
        chains.simulate(h, step, product, chunk, {"ratio": monitor}, runs=runs, desc=stream_id)
        h = monitor.state
        if stop_when_all_failed and monitor.all_failed:
            break
    return alpha0, monitor.minimum, monitor.first_fail, monitor.layer


def _saved_pixels(path, identity: dict, values: dict[str, Tensor]) -> set[tuple[int, int]]:
    """The pixels (n, d) a killed ``a1_grid`` job finished, their values copied into ``values``
    (none outside ``base.checkpoints.resumable`` or for other settings)."""
    state = checkpoints.load(path, identity)
    if state is None:
        return set()
    for name, value in state["values"].items():
        values[name].copy_(value)
    return {(int(n), int(d)) for n, d in state["done"]}


def a1_grid(
    batch_sizes: list[int],
    widths: list[int],
    threshold: float,
    depth: int,
    n_runs: int,
    dtype: str,
    stop_when_all_failed: bool,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """A_1(threshold alpha_0, depth) per run on the grid batch_sizes x widths, Thesis Fig. 2.3.

    Per pixel (n, d) with d >= n and per run: H_0 in R^{d x n} i.i.d. N(0, 1) (stream
    ``"input"``), alpha_0 = sigma_min(H_0) / ||H_0||_F, the BN chain DJB21 Eq. (1) with W_l H_l
    sampled through its Gram matrix (``chains.GaussianGramProduct``, exact in law), and the
    minimum over k = 1..depth of sigma_n(H_k) / alpha_0. Pixels with d < n are not simulated
    (NaN, ``valid`` = 0). Inside ``base.checkpoints.resumable`` the finished pixels are saved
    every ``chains.CHECKPOINT_EVERY_S`` seconds and a rerun skips them (the same bytes: each
    pixel has its own streams). With ``stop_when_all_failed`` a pixel stops at the first multiple of
    ``CHECK_EVERY`` layers at which all its runs have failed: pass/fail and first failing
    layers are unchanged, and ``min_ratio`` is then the minimum over the simulated layers (an
    upper bound on the full one, below the threshold anyway).

    Returns:
        over dims (n, d, run): ``valid`` (1/0), ``alpha0``, ``min_ratio``, ``passed`` (1/0),
        ``first_fail`` (first layer k with ratio < threshold; NaN if none), ``layers`` (layers
        simulated).
    """
    _check_grid(batch_sizes, widths)
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    if depth < 1 or n_runs < 1:
        raise ValueError(f"depth and n_runs must be >= 1, got {depth} and {n_runs}")
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    shape = (len(batch_sizes), len(widths), n_runs)
    names = ("valid", "alpha0", "min_ratio", "passed", "first_fail", "layers")
    values = {k: torch.full(shape, math.nan, dtype=torch.float64) for k in names}
    values["valid"].zero_()
    path = checkpoints.path_for(f"{experiment_id}.pixels")
    identity = {"grid": [list(batch_sizes), list(widths)], "runs": n_runs, "id": experiment_id,
                "settings": [threshold, depth, dtype, stop_when_all_failed]}  # fmt: skip
    done, saved = _saved_pixels(path, identity, values), time.monotonic()
    for i, n in enumerate(batch_sizes):
        for j, d in enumerate(widths):
            if d < n or (n, d) in done:
                continue
            alpha0, minimum, first, layers = _pixel(
                n, d, runs, threshold, depth, stop_when_all_failed, torch_dtype, device,
                f"{experiment_id}.n{n}.d{d}",
            )  # fmt: skip
            values["valid"][i, j] = 1.0
            values["alpha0"][i, j] = alpha0.double().cpu()
            values["min_ratio"][i, j] = minimum.double().cpu()
            values["passed"][i, j] = a1_holds(minimum, threshold).double().cpu()
            values["first_fail"][i, j] = torch.where(first > 0, first, math.nan).double().cpu()
            values["layers"][i, j] = float(layers)
            log.info(
                "n=%d d=%d: %d/%d runs pass, min ratio %.3g, %d layers",
                n, d, int(values["passed"][i, j].sum()), n_runs, float(minimum.min()), layers,
            )  # fmt: skip
            done.add((n, d))
            if path is not None and time.monotonic() - saved >= chains.CHECKPOINT_EVERY_S:
                state = {"values": values, "done": sorted(done), "epoch": len(done)}
                checkpoints.save(path, {"identity": identity, **state})
                saved = time.monotonic()
    return Labelled.over(
        {"n": batch_sizes, "d": widths, "run": runs},
        values=values,
        seeds={
            "experiment_ids": [
                f"{experiment_id}.n{n}.d{d}" for n in batch_sizes for d in widths if d >= n
            ],
            "runs": runs,
            "streams": ["input", "gram"],
        },
    )
