"""Simulation for DJB21 Theorem 1, Lemma 2, Corollary 3 and Table 1 (Thesis 2.1-2.3, Table 2.1).

One chain family serves all of them: the BN chain DJB21 Eq. (1) (Thesis Eq. (2.1)) from a
Gaussian H_0, over a grid of batch sizes n and widths d, recording per run and layer the
orthogonality gap V (Eq. (2)), the smallest singular value sigma_n (Assumption A_1), the exact
conditional W2^2 to the Gaussian (``gaussianity.conditional_w2_squared``) and the mean
off-diagonal Gram entry, from which E[C] and the Gelbrich lower bound follow
(``gaussianity.exchangeable_mean_gram``).
"""

from __future__ import annotations

import torch
from torch import Tensor

from ...base.store import Labelled
from ...engine import chains, metrics
from ...engine.devices import resolve_device, resolve_dtype
from ...engine.inputs import gaussian_inputs
from . import gaussianity

__all__ = ["equicorrelated_gaussian_inputs", "gaussian_chain", "observe_gaussianity"]


def equicorrelated_gaussian_inputs(
    experiment_id: str,
    runs: list[int],
    d: int,
    n: int,
    correlation: float,
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
) -> Tensor:
    """Gaussian H_0 with i.i.d. rows N(0, (1 - rho) I_n + rho 1 1^T), scaled to ||H_0||_F = 1.

    rho = 0 is the i.i.d. Gaussian input of Thesis Sec. 2.2.3. For rho > 0 the samples start
    correlated: E[C_0] has eigenvalues (1 + (n - 1) rho) / n and (1 - rho) / n, so the gap starts
    near rho sqrt((n - 1) / n) while sigma_n(H_0)^2 ~ (1 - rho) / n keeps A_1 with a usable alpha.
    The law is invariant under permuting the samples (exchangeable). Shape (runs, d, n).
    """
    if not 0.0 <= correlation < 1.0:
        raise ValueError(f"correlation must be in [0, 1), got {correlation}")
    x = gaussian_inputs(experiment_id, runs, d, n, dtype, device)
    sigma = (1.0 - correlation) * torch.eye(n, dtype=dtype, device=device) + correlation
    h = x @ torch.linalg.cholesky(sigma).mT
    return h / torch.linalg.matrix_norm(h)[..., None, None]


def observe_gaussianity(h: Tensor) -> dict[str, Tensor]:
    """Per-run metrics of a unit-Frobenius state h (R, d, n) for Thm. 1, Lemma 2 and Cor. 3.

    Returns:
        ``gap`` V(H) (DJB21 Eq. (2)), ``sigma_min`` sigma_n(H) (A_1), ``w2_conditional``
        sum_i (sigma_i - 1/sqrt n)^2 (exact conditional W2^2, Eq. (4) given H) and
        ``gram_offdiagonal``, the mean of C_ij = <h_i, h_j> over the n (n - 1) pairs i != j.
    """
    n = h.shape[-1]
    column_sum = h.sum(-1)
    total = column_sum.square().sum(-1)  # 1^T C 1
    trace = h.square().sum(dim=(-2, -1))
    return {
        "gap": metrics.orthogonality_gap(h),
        "sigma_min": metrics.smallest_singular_value(h),
        "w2_conditional": gaussianity.conditional_w2_squared(h),
        "gram_offdiagonal": (total - trace) / (n * (n - 1)),
    }


def gaussian_chain(
    batch_sizes: list[int],
    widths: list[int],
    depth: int,
    n_runs: int,
    correlation: float,
    dtype: str,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """BN chain DJB21 Eq. (1) from Gaussian H_0 (``equicorrelated_gaussian_inputs``), per (n, d).

    W_l H_l is sampled through its Gram matrix (``chains.GaussianGramProduct``, exact in law,
    O(d n^2) per layer) with weights N(0, 1/d). Each (n, d) has its own streams
    ``<experiment_id>.n<n>.d<d>`` (inputs ``"input"``, weights ``"gram"``).

    Returns:
        ``gap``, ``sigma_min``, ``w2_conditional``, ``gram_offdiagonal`` over dims
        (batch_size, width, run, layer), layer 0 = H_0.
    """
    for n in batch_sizes:
        if n < 2 or n > min(widths):
            raise ValueError(f"batch sizes must be in [2, min(widths)] (d >= n), got {n}")
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    ids = [f"{experiment_id}.n{n}.d{d}" for n in batch_sizes for d in widths]
    per_cell = []
    for n in batch_sizes:
        for d in widths:
            stream_id = f"{experiment_id}.n{n}.d{d}"
            h0 = equicorrelated_gaussian_inputs(
                stream_id, runs, d, n, correlation, torch_dtype, device
            )
            product = chains.GaussianGramProduct(
                stream_id, runs, d, n, 1.0 / d, torch_dtype, device
            )
            trace = chains.simulate(
                h0,
                chains.Step("bn_rms_scaled"),
                product,
                depth,
                {"gaussianity": observe_gaussianity},
                layers=range(depth + 1),
                runs=runs,
                desc=f"gaussian chain n={n} d={d}",
                resumable=True,
            )
            per_cell.append(trace.values)
    names = list(per_cell[0])
    shape = (len(batch_sizes), len(widths), n_runs, depth + 1)
    values = {k: torch.stack([cell[k] for cell in per_cell]).reshape(shape) for k in names}
    return Labelled.over(
        {"batch_size": batch_sizes, "width": widths, "run": runs, "layer": range(depth + 1)},
        values=values,
        seeds={"experiment_ids": ids, "runs": runs, "streams": ["input", "gram"]},
    )
