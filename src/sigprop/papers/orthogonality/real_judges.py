"""Claims of DJB21 App. F, Fig. 5: the gap per layer of random ReLU nets on real images."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...engine.stats import exact, mean_se, per_run_slopes, t_mean
from ...verdicts.claims import Claim, Record
from .verdicts import judge

__all__ = ["FIG5_MLP_RECORDS", "FIG5_RECORDS", "centred_floor", "fig5_claims"]

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


_PER_BATCH = " (t over batches)"

FLAT_REASON = (
    "wording: our rule for 'the gap decreases by adding BN layers and stabilizes at a term that "
    "is constant with regard to depth' (DJB21 Sec. 6 on Fig. 5): the BN level ({level:.4f}) "
    "changes by at most {plateau_drift:.0%} across layers {plateau_window[0]}.."
    "{plateau_window[1]}, i.e. |slope| <= {plateau_drift:g} x level / {window_length} = "
    "{margin:.3g} per layer (orthogonality/fig5/plateau_drift, as fig2a)"
)

FIG5_RECORDS = (
    Record(
        "vanilla_grows",
        "{what}: the vanilla gap V grows with depth: mean per-batch slope of V over layers "
        "{growth_window[0]}..{growth_window[1]} is above 0" + _PER_BATCH,
        SOURCE,
        "paper",
        "grow",
        ">=",
        0.0,
    ),
    Record(
        "bn_decreases",
        "{what}: BN lowers the gap: mean per-batch (mean V over layers "
        "{plateau_window[0]}..{plateau_window[1]} - V of the input) is below 0" + _PER_BATCH,
        SOURCE,
        "paper",
        "fall",
        "<=",
        0.0,
    ),
    Record(
        "bn_flat",
        "{what}: the BN gap is depth independent: mean per-batch slope of V over layers "
        "{plateau_window[0]}..{plateau_window[1]} is 0 within {margin:.3g} per layer (the level "
        "{level:.4f} changes by at most {plateau_drift:.0%} across the window)" + _PER_BATCH,
        SOURCE,
        "paper",
        "flat",
        "within",
        0.0,
        tolerance="margin",
        note="BN plateau level {level:.4f} +- {level_se:.4f} (mean V over the window). Margin: "
        "orthogonality/fig5/plateau_drift.",
        tolerance_reason=FLAT_REASON,
        requires=("flatness_power",),
    ),
    Record(
        "flatness_power",
        "{what}, control of bn_flat: the same flatness test rejects the vanilla net: its mean "
        "per-batch slope over layers {plateau_window[0]}..{plateau_window[1]} exceeds the "
        "flatness margin {margin:.3g}" + _PER_BATCH,
        f"{SOURCE} (our control)",
        "control",
        "drift",
        ">=",
        "margin",
        tolerance_reason=FLAT_REASON,
    ),
    Record(
        "bn_below_vanilla",
        "{what}: the BN plateau is below the vanilla gap: mean per-batch (BN - vanilla) of mean V "
        "over layers {plateau_window[0]}..{plateau_window[1]} is below 0" + _PER_BATCH,
        SOURCE,
        "paper",
        "below",
        "<=",
        0.0,
    ),
)

FIG5_MLP_RECORDS = (
    Record(
        "bn_floor",
        "{what}: every BN representation is centred over the batch, so V >= 1/sqrt(n(n-1)) = "
        "{floor:.4f}; measured is the least BN gap over all batches and layers >= 2 (exact)",
        f"{SOURCE} (our derivation)",
        "identity",
        "least",
        ">=",
        "floor",
        tolerance="float_tolerance",
        tolerance_reason="round_off: the forward passes run in float32 (unit round-off 6e-8) "
        "through {depth_text}; orthogonality/fig5/float_tolerance = {float_tolerance:g}",
        note="Float-precision tolerance: the forward passes run in float32.",
    ),
)


def _architecture_context(
    rows: pd.DataFrame, growth_window: tuple[int, int], plateau_window: tuple[int, int]
) -> dict:
    bn, van = rows[rows["network"] == "BN"], rows[rows["network"] == "vanilla"]
    bn_level = _per_batch(bn, plateau_window)
    bn_input = bn[bn["layer"] == 1].set_index("batch")["gap"]
    level, level_se = mean_se(bn_level.to_numpy())
    return dict(
        grow=t_mean(_slopes(van, growth_window)),
        fall=t_mean((bn_level - bn_input).to_numpy()),
        flat=t_mean(_slopes(bn, plateau_window)),
        drift=t_mean(_slopes(van, plateau_window)),
        below=t_mean((bn_level - _per_batch(van, plateau_window)).to_numpy()),
        level=level,
        level_se=level_se,
        least=exact(float(np.min(bn[bn["layer"] >= 2]["gap"].to_numpy()))),
        details={"bn_flat": {"level": level, "level_se": level_se}},
    )


def fig5_claims(
    table: pd.DataFrame,
    batch_size: int,
    growth_window: tuple[int, int],
    plateau_window: tuple[int, int],
    plateau_drift: float,
    float_tolerance: float,
) -> list[Claim]:
    """Vanilla gap grows with depth; the BN gap falls to a depth-independent level.

    Per architecture, t intervals over batches (i.i.d. (network, data) draws; the BN and vanilla
    nets of a batch share weights and images, so differences are paired). ``bn_flat`` is an
    equivalence test with the margin ``plateau_drift`` x level / window length per layer;
    ``flatness_power`` (its control) needs the vanilla net's slope above that margin, so the
    flatness test can detect a drift of that size. ``bn_floor`` (MLP only): the least BN gap
    over all batches and layers >= 2 is at least 1 / sqrt(n (n - 1)), a float-precision check
    that torch BN is centred (the ConvNet's BatchNorm2d centres each channel over batch and
    pixels, so the floor does not bind there).

    Args:
        table: columns architecture, network (BN | vanilla), batch, layer (1 = input), gap.
        batch_size: n.
        growth_window, plateau_window: closed layer windows.
        plateau_drift: the flatness margin (relative change of the level across the window).
        float_tolerance: allowed rounding below the floor (float32 forward passes).
    """
    claims: list[Claim] = []
    for arch in sorted(table["architecture"].unique()):
        context = dict(
            what=f"{arch}, n={batch_size}",
            growth_window=growth_window,
            plateau_window=plateau_window,
            plateau_drift=plateau_drift,
            floor=centred_floor(batch_size),
            float_tolerance=float_tolerance,
        ) | _architecture_context(
            table[table["architecture"] == arch], growth_window, plateau_window
        )
        context["window_length"] = plateau_window[1] - plateau_window[0]
        context["depth_text"] = f"{int(table['layer'].max())} layers"
        context["margin"] = (
            plateau_drift * context["level"] / (plateau_window[1] - plateau_window[0])
        )
        records = FIG5_RECORDS + (FIG5_MLP_RECORDS if arch == "mlp" else ())
        claims += judge(records, context, f"fig5.{arch}")
    return claims
