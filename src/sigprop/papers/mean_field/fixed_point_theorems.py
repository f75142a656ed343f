"""Thesis ch. 3 / app. B (Joudaki 2024; JDB23a): the mean-field fixed point G_*, three ways.

Item ``fixed_point``: G_* = F(G_*) of Eq. (3.3) and (B.36) (Sec. 3.3.2), for the centred-BN chain
h_{l+1} = W_l phi(BN(h_l)) of Eq. (3.1), computed three ways that must agree within Monte Carlo
error (``gram_dynamics``):

    (a) sphere average E_u phi(u) phi(u)^T, u uniform on {1^T u = 0, ||u||^2 = n}
        (exact n / (n - 1) M for phi = id; diagonal also by an exact 1-D integral);
    (b) the MC mean-field map iterated from a non-symmetric start (AR(1) input correlation);
    (c) a very wide chain (width ``chain_width``), time-averaged after burn-in.

``measure`` draws every random number and writes one row per (n, phi); ``judge`` (in
``fixed_point_judges``, torch-free) turns the distances and Monte Carlo errors into claims
``mean_field.fixed_point.<what>`` with the tolerance multiplier ``z``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
import torch

from ...engine.devices import resolve_device
from . import gram_dynamics as mf

__all__ = ["EXPERIMENT_IDS", "REFERENCE", "measure"]

EXPERIMENT_IDS = {"fixed_point": "mean_field.fixed_point"}
"""Random-stream addresses (``seeding``); suffixes name the case."""

REFERENCE = {
    (5, "linear"): (1.0, -0.25),
    (5, "tanh"): (0.4410, -0.1039),
    (5, "relu"): (0.5, 0.1017),
    (10, "linear"): (1.0, -1 / 9),
    (10, "tanh"): (0.4142, -0.0430),
    (10, "relu"): (0.5, 0.1324),
    (10, "sin"): (0.4668, -0.0462),
}
"""Independent reference values (diag, off-diag) of G_* of Eq. (B.36) (Monte Carlo with 4e6
samples, 4 decimals); (5, sin) has none. Shown in the table for comparison, not used as a claim."""


def _cases(batch_sizes: Sequence[int], activations: Sequence[str]):
    return [(int(n), str(a)) for n in batch_sizes for a in activations]


def measure(
    *,
    batch_sizes: Sequence[int],
    activations: Sequence[str],
    sphere_samples: int,
    map_samples: int,
    map_iterations: int,
    map_average: int,
    map_replicas: int,
    chain_width: int,
    chain_depth: int,
    chain_burn_in: int,
    chain_runs: int,
    input_correlation: float,
    device: str = "auto",
) -> pd.DataFrame:
    """G_* three ways (module docstring): distances and Monte Carlo errors, one row per (n, phi).

    Errors: (a) exact i.i.d. SE of the symmetrized estimator; (b) and (c) the spread between
    independent replicas (map replicas / chain runs), which includes the autocorrelation of
    each path. ``mc_error_b`` and ``mc_error_c`` are the RMS Frobenius norms of the combined MC
    error of ||G_x - G_a||_F, sqrt(SE_a^2 + sum of the per-entry variances of G_x).

    Returns:
        columns batch_size, activation, diag_a, offdiag_a, diag_se_a, offdiag_se_a,
        diag_quadrature, reference_diag, reference_offdiag, eig_perp, eig_one, kappa, dist_b,
        mc_error_b, dist_c, mc_error_c, dist_start, map_last_step, asymmetry_b, asymmetry_c.
    """
    dev = resolve_device(device)
    dtype = torch.float64
    eid = EXPERIMENT_IDS["fixed_point"]
    rows = []
    for n, act in _cases(batch_sizes, activations):
        tag = f"{eid}.{act}.n{n}"
        fp = mf.seeded_fixed_point(eid, act, n, sphere_samples)
        g_a = mf.linear_fixed_point(n) if act == "linear" else fp.matrix()
        quad = mf.diagonal_quadrature(act, n) if n >= 3 else math.nan
        g0 = mf.ar1_correlation(n, input_correlation, dtype)
        way_b = _map_estimate(
            g0, act, f"{tag}.map", map_iterations, map_average, map_samples, map_replicas
        )
        way_c = _chain_estimate(
            act, n, f"{tag}.chain", chain_width, chain_depth, chain_burn_in, chain_runs,
            input_correlation, dtype, dev,
        )  # fmt: skip
        rows.append(_row(n, act, fp, g_a, quad, g0, way_b, way_c))
    return pd.DataFrame(rows)


def _map_estimate(
    g0: torch.Tensor,
    act: str,
    stream: str,
    iterations: int,
    average: int,
    samples: int,
    replicas: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Way (b): the MC mean-field map of Eq. (3.3) iterated from ``g0``, ``replicas``
    independent paths (streams ``stream``, replica); the replicas' mean G_b, the per-entry
    variance of that mean, and replica 0's path ||G_{k+1} - G_k||_F."""
    maps, path = mf.iterate_mean_field(
        g0, act, iterations, average, samples, stream, replicas=range(replicas)
    )
    return *mf.replica_mean(maps), path


def _chain_estimate(
    act: str,
    n: int,
    stream: str,
    width: int,
    depth: int,
    burn_in: int,
    runs: int,
    input_correlation: float,
    dtype: torch.dtype,
    device: torch.device,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Way (c): ``runs`` very wide chains of Eq. (3.1) (streams ``stream``, run), each's Gram
    time-averaged after ``burn_in``; their mean G_c and the per-entry variance of that mean."""
    per_run = mf.wide_chain_gram(
        act, n, width, depth, burn_in, range(runs), input_correlation, stream, dtype, device
    )
    return mf.replica_mean(per_run)


def _row(n: int, act: str, fp, g_a, quad: float, g0, way_b: tuple, way_c: tuple) -> dict:
    """One (n, phi) row of ``measure``: way (a)'s sphere average ``fp`` (G_a = ``g_a``) and its
    diagonal by quadrature ``quad``; the distances to G_a of ways (b) (``_map_estimate``), (c)
    (``_chain_estimate``) and of the start ``g0``, with the combined Monte Carlo errors; each
    estimate's asymmetry."""
    (g_b, var_b, path), (g_c, var_c) = way_b, way_c
    se_a = fp.frobenius_se
    ref = REFERENCE.get((n, act), (math.nan, math.nan))
    return {
        "batch_size": n,
        "activation": act,
        "diag_a": fp.diag,
        "offdiag_a": fp.offdiag,
        "diag_se_a": fp.diag_se,
        "offdiag_se_a": fp.offdiag_se,
        "diag_quadrature": quad,
        "reference_diag": ref[0],
        "reference_offdiag": ref[1],
        "eig_perp": fp.eigenvalues[0],
        "eig_one": fp.eigenvalues[1],
        "kappa": fp.kappa,
        "dist_b": mf.frobenius(g_b - g_a),
        "mc_error_b": math.sqrt(se_a**2 + var_b.sum().item()),
        "dist_c": mf.frobenius(g_c - g_a),
        "mc_error_c": math.sqrt(se_a**2 + var_c.sum().item()),
        "dist_start": mf.frobenius(g0 - g_a),
        "map_last_step": path[-1].item(),
        "asymmetry_b": mf.frobenius(g_b - _symmetrize(g_b)),
        "asymmetry_c": mf.frobenius(g_c - _symmetrize(g_c)),
    }


def _symmetrize(g: torch.Tensor) -> torch.Tensor:
    """The permutation-symmetric (BSB1) matrix with g's mean diagonal and mean off-diagonal."""
    n = g.shape[-1]
    diag = g.diagonal().mean().item()
    off = (g.sum() - g.diagonal().sum()).item() / (n * (n - 1))
    return mf.bsb1(diag, off, n, g.dtype)
