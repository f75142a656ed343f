"""Claims of DJB21 App. F, Fig. 5: the gap per layer of random ReLU nets on real images."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...claims import Claim, evaluate
from ...stats import mean_se, per_run_slopes

__all__ = ["centred_floor", "fig5_claims"]

SOURCE = "DJB21 App. F, Fig. 5"


def centred_floor(n: int) -> float:
    """1 / sqrt(n (n - 1)): the least V of a d x n matrix H with H 1 = 0 (our derivation).

    H^T H annihilates 1, so its normalized eigenvalues (sum 1) live on n - 1 values and
    V^2 = sum lambda_i^2 - 1/n >= 1/(n-1) - 1/n. Every output of a feature-wise centred BN
    (torch ``BatchNorm1d`` in training mode) has H 1 = 0.
    """
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    return 1.0 / math.sqrt(n * (n - 1))


def _slopes(rows: pd.DataFrame, window: tuple[int, int]) -> np.ndarray:
    """OLS slope of the gap on the layer within the closed window, one per batch."""
    return per_run_slopes(rows.rename(columns={"batch": "run"}), "layer", "gap", window)


def _per_batch(rows: pd.DataFrame, window: tuple[int, int]) -> pd.Series:
    """Mean gap over the closed layer window, one value per batch."""
    lo, hi = window
    return rows[(rows["layer"] >= lo) & (rows["layer"] <= hi)].groupby("batch")["gap"].mean()


def fig5_claims(
    table: pd.DataFrame,
    batch_size: int,
    growth_window: tuple[int, int],
    plateau_window: tuple[int, int],
    z: float,
    float_tolerance: float,
) -> list[Claim]:
    """Vanilla gap grows with depth; the BN gap falls to a depth-independent level.

    Per architecture (per-batch statistics; batches are i.i.d. (network, data) draws, and the
    BN and vanilla nets of a batch share weights and images, so differences are paired):

    - ``vanilla_grows``: mean per-batch OLS slope of V over ``growth_window`` >= z SE (> 0).
    - ``bn_decreases``: mean per-batch (plateau level - V of the input) <= -z SE.
    - ``bn_flat``: mean per-batch slope over ``plateau_window`` within z SE of 0.
    - ``flatness_power`` (negative control of ``bn_flat``): the same slope of the vanilla net
      is >= z SE, so the flatness test can detect a drift of that size.
    - ``bn_below_vanilla``: mean per-batch (BN level - vanilla level) over the plateau window
      <= -z SE.
    - ``bn_floor`` (MLP only): the least BN gap over all batches and layers >= 2 is at least
      1 / sqrt(n (n - 1)), a float-precision sanity check that torch BN is centred. The
      ConvNet's BatchNorm2d centres each channel over batch and pixels, not each feature over
      the batch, so the floor does not bind there.

    Args:
        table: columns architecture, network (BN | vanilla), batch, layer (1 = input), gap.
        batch_size: n.
        growth_window, plateau_window: closed layer windows.
        z: standard errors over batches for every significance and flatness test.
        float_tolerance: allowed rounding below the floor (float32 forward passes).
    """
    floor = centred_floor(batch_size)
    claims: list[Claim] = []
    for arch in sorted(table["architecture"].unique()):
        rows = table[table["architecture"] == arch]
        bn = rows[rows["network"] == "BN"]
        van = rows[rows["network"] == "vanilla"]
        prefix = f"orthogonality.fig5.{arch}"
        what = f"{arch}, n={batch_size}"

        grow, grow_se = mean_se(_slopes(van, growth_window))
        claims.append(
            evaluate(
                id=f"{prefix}.vanilla_grows",
                statement=(
                    f"{what}: the vanilla gap V grows with depth: mean per-batch slope of V over "
                    f"layers {growth_window[0]}..{growth_window[1]} is at least {z} SE above 0"
                ),
                source=SOURCE,
                measured=grow,
                measured_se=grow_se,
                relation=">=",
                bound=z * grow_se,
            )
        )

        bn_level = _per_batch(bn, plateau_window)
        bn_input = bn[bn["layer"] == 1].set_index("batch")["gap"]
        fall, fall_se = mean_se((bn_level - bn_input).to_numpy())
        claims.append(
            evaluate(
                id=f"{prefix}.bn_decreases",
                statement=(
                    f"{what}: BN lowers the gap: mean per-batch (mean V over layers "
                    f"{plateau_window[0]}..{plateau_window[1]} - V of the input) is at least "
                    f"{z} SE below 0"
                ),
                source=SOURCE,
                measured=fall,
                measured_se=fall_se,
                relation="<=",
                bound=-z * fall_se,
            )
        )

        flat, flat_se = mean_se(_slopes(bn, plateau_window))
        level, level_se = mean_se(bn_level.to_numpy())
        claims.append(
            evaluate(
                id=f"{prefix}.bn_flat",
                statement=(
                    f"{what}: the BN gap is depth independent: mean per-batch slope of V over "
                    f"layers {plateau_window[0]}..{plateau_window[1]} within {z} SE of 0"
                ),
                source=SOURCE,
                measured=flat,
                measured_se=flat_se,
                relation="within",
                bound=0.0,
                tolerance=z * flat_se,
                note=f"BN plateau level {level:.4f} +- {level_se:.4f} (mean V over the window).",
                details={"level": level, "level_se": level_se},
            )
        )

        drift, drift_se = mean_se(_slopes(van, plateau_window))
        claims.append(
            evaluate(
                id=f"{prefix}.flatness_power",
                statement=(
                    f"{what}, negative control of bn_flat: the same flatness test rejects the "
                    f"vanilla net: its mean per-batch slope over layers "
                    f"{plateau_window[0]}..{plateau_window[1]} is at least {z} SE above 0"
                ),
                source=f"{SOURCE} (our control)",
                measured=drift,
                measured_se=drift_se,
                relation=">=",
                bound=z * drift_se,
            )
        )

        gap_diff = bn_level - _per_batch(van, plateau_window)
        below, below_se = mean_se(gap_diff.to_numpy())
        claims.append(
            evaluate(
                id=f"{prefix}.bn_below_vanilla",
                statement=(
                    f"{what}: the BN plateau is below the vanilla gap: mean per-batch (BN - "
                    f"vanilla) of mean V over layers {plateau_window[0]}..{plateau_window[1]} is "
                    f"at least {z} SE below 0"
                ),
                source=SOURCE,
                measured=below,
                measured_se=below_se,
                relation="<=",
                bound=-z * below_se,
            )
        )

        if arch == "mlp":
            hidden = bn[bn["layer"] >= 2]["gap"].to_numpy()
            claims.append(
                evaluate(
                    id=f"{prefix}.bn_floor",
                    statement=(
                        f"{what}: every BN representation is centred over the batch, so "
                        f"V >= 1/sqrt(n(n-1)) = {floor:.4f}; measured is the least BN gap over "
                        f"all batches and layers >= 2"
                    ),
                    source=f"{SOURCE} (our derivation)",
                    measured=float(np.min(hidden)),
                    relation=">=",
                    bound=floor,
                    tolerance=float_tolerance,
                    note="Float-precision tolerance: the forward passes run in float32.",
                )
            )
    return claims
