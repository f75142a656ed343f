"""Thesis Table C.1 (app. C.4): the table from the per-batch ranks, its markdown, its claims.

The printed table is kept here as data (``PRINTED_RANK``, ``PRINTED_COSINE``) with its source, so
the generated markdown shows it beside the measured rows and the claims compare with it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...claims import Claim, evaluate

__all__ = [
    "PRINTED_BATCHES",
    "PRINTED_COSINE",
    "PRINTED_COSINE_N",
    "PRINTED_RANK",
    "SOURCE",
    "markdown",
    "table_c1",
    "table_c1_claims",
]

SOURCE = "Thesis app. C.4, Table C.1 (seed 004, lines 2558-2572; Meterez, Joudaki et al. 2024)"

PRINTED_BATCHES = 100
"""Batches behind each printed mean +- std (app. C.4)."""

PRINTED_RANK: dict[str, dict[int, tuple[float, float]]] = {
    "cifar10": {
        16: (16.0, 0.0),
        32: (32.0, 0.0),
        64: (64.0, 0.0),
        128: (127.99, 0.09),
        256: (221.06, 2.89),
        512: (203.70, 3.58),
    },
    "mnist": {
        16: (16.0, 0.0),
        32: (32.0, 0.0),
        64: (64.0, 0.0),
        128: (128.00, 0.00),
        256: (250.48, 1.53),
        512: (318.04, 2.82),
    },
    "fashion_mnist": {
        16: (16.0, 0.0),
        32: (32.0, 0.0),
        64: (64.0, 0.0),
        128: (128.00, 0.00),
        256: (238.19, 3.27),
        512: (275.37, 4.20),
    },
    "cifar100": {
        16: (16.0, 0.0),
        32: (32.0, 0.0),
        64: (64.0, 0.0),
        128: (127.92, 0.27),
        256: (218.11, 3.69),
        512: (201.51, 3.95),
    },
}
"""Thesis Table C.1 as printed: dataset -> n -> (mean, std) of the rank over 100 batches."""

PRINTED_COSINE_N = 512
PRINTED_COSINE: dict[str, float] = {
    "cifar10": 0.81,
    "mnist": 0.40,
    "fashion_mnist": 0.58,
    "cifar100": 0.81,
}
"""App. C.4 text: "the average cosine similarity between samples in a 512 size batch"."""

_MEASURES = ["gram_rank_f32", "rank_f64", "threshold_rank", "quantization_rank", "mean_cosine"]


def table_c1(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, normalization, n): mean and std (ddof 1, over batches) of each measure, the
    extremes the claims need, and the printed values (NaN where the seed prints none).

    Args:
        frame: ``batch_rank.table_c1`` in long form (one row per batch).
    """
    rows = []
    for (dataset, normalization, n), g in frame.groupby(
        ["dataset", "normalization", "n"], sort=False
    ):
        row = {"dataset": dataset, "normalization": normalization, "n": int(n), "batches": len(g)}
        for q in _MEASURES:
            row[f"{q}_mean"] = g[q].mean()
            row[f"{q}_std"] = g[q].std(ddof=1)
        row["rank_f64_min"] = g["rank_f64"].min()
        row["log10_margin_min"] = g["log10_margin"].min()
        row["rule_difference"] = (g["gram_rank_f32"] - g["threshold_rank"]).abs().mean()
        control = g["control_rank"].dropna()
        row["control_batches"] = len(control)
        row["control_error"] = (control - (n - 1)).abs().max() if len(control) else math.nan
        printed = PRINTED_RANK.get(dataset, {}).get(int(n), (math.nan, math.nan))
        row["printed_mean"], row["printed_std"] = printed
        cosine = PRINTED_COSINE.get(dataset, math.nan) if n == PRINTED_COSINE_N else math.nan
        row["printed_cosine"] = cosine
        rows.append(row)
    return pd.DataFrame(rows)


def _pm(mean: float, std: float, digits: int = 2) -> str:
    return "" if math.isnan(mean) else f"{mean:.{digits}f} ± {std:.{digits}f}"


def _block(table: pd.DataFrame, title: str, label, measure: str, digits: int = 2) -> list[str]:
    ns = sorted(table["n"].unique())
    lines = [f"### {title}", "", "| row | " + " | ".join(f"n={n}" for n in ns) + " |"]
    lines.append("|---|" + "---|" * len(ns))
    for key, g in table.groupby(["dataset", "normalization"], sort=False):
        g = g.set_index("n")
        cells = [
            _pm(g.loc[n, f"{measure}_mean"], g.loc[n, f"{measure}_std"], digits)
            if n in g.index
            else ""
            for n in ns
        ]
        lines.append(f"| {label(*key)} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def markdown(table: pd.DataFrame, scale: str = "") -> str:
    """Thesis Table C.1 printed beside our measured rows (mean ± std over batches)."""
    ns = sorted(table["n"].unique())
    batches = int(table["batches"].iloc[0])
    lines = [
        f"# Thesis Table C.1: rank of random batches of images ({scale} scale, {batches} batches)",
        "",
        "### (a) rank of the float32 n x n Gram, `torch.linalg.matrix_rank` default tolerance",
        "",
        "| row | " + " | ".join(f"n={n}" for n in ns) + " |",
        "|---|" + "---|" * len(ns),
    ]
    for dataset, printed in PRINTED_RANK.items():
        cells = [_pm(*printed.get(int(n), (math.nan, math.nan))) for n in ns]
        lines.append(f"| {dataset}, printed | " + " | ".join(cells) + " |")
    for (dataset, normalization), g in table.groupby(["dataset", "normalization"], sort=False):
        g = g.set_index("n")
        cells = [_pm(g.loc[n, "gram_rank_f32_mean"], g.loc[n, "gram_rank_f32_std"]) for n in ns]
        lines.append(f"| {dataset}, {normalization}, measured | " + " | ".join(cells) + " |")
    lines.append("")

    def measured(d, z):
        return f"{d}, {z}"

    lines += _block(
        table,
        "(b) float64 rank of X (D x n), tolerance sigma_1 max(D, n) eps",
        measured,
        "rank_f64",
    )
    lines += _block(
        table,
        "float32 Gram rule on the exact spectrum: #{sigma_i^2 > n eps32 sigma_1^2}",
        measured,
        "threshold_rank",
    )
    lines += _block(
        table,
        "directions above a half-grey-level perturbation: #{sigma_i > (step / 2) sqrt(D n)}",
        measured,
        "quantization_rank",
    )
    lines += _block(
        table, "(c) mean cosine similarity of distinct samples", measured, "mean_cosine", 3
    )
    printed = ", ".join(f"{d} {c:.2f}" for d, c in PRINTED_COSINE.items())
    lines += [f"Printed mean cosine at n = {PRINTED_COSINE_N} (app. C.4): {printed}.", ""]
    lines += [f"Source of the printed values: {SOURCE}.", ""]
    return "\n".join(lines)


def _printed_z(g: pd.DataFrame, rounding: float) -> pd.Series:
    """|measured - printed| / se per n, se^2 = s_p^2 / 100 + s^2 / B + rounding^2."""
    se = np.sqrt(
        g["printed_std"] ** 2 / PRINTED_BATCHES
        + g["gram_rank_f32_std"] ** 2 / g["batches"]
        + rounding**2
    )
    return (g["gram_rank_f32_mean"] - g["printed_mean"]).abs() / se


def table_c1_claims(
    table: pd.DataFrame, z: float, rule_tolerance: float, printed_rounding: float
) -> list[Claim]:
    """Claims of Thesis Table C.1 / app. C.4 (config/README.md, ``gradients.table_c1_check``).

    Args:
        table: from ``table_c1``.
        z: standard errors allowed in the comparisons with printed numbers.
        rule_tolerance: allowed mean |float32 Gram rank - threshold rank| per batch.
        printed_rounding: half a unit of the printed last digit (0.005).
    """
    largest = table[table["n"] == table["n"].max()]
    worst_margin = table["log10_margin_min"].min()
    claims = [
        evaluate(
            id="gradients.table_c1.full_rank",
            statement=(
                "Every batch has full rank n in float64 (rank of X, singular values above "
                "sigma_1 max(D, n) eps64): measured = max over cells of n - min rank"
            ),
            source=f"{SOURCE}; premise of Thm. 6.5 (non-degenerate batches)",
            measured=(table["n"] - table["rank_f64_min"]).max(),
            relation="<=",
            bound=0.0,
            note=(
                f"integer ranks, tolerance 0; smallest sigma_n / tolerance over all batches is "
                f"10^{worst_margin:.1f}; both normalizations"
            ),
        ),
        evaluate(
            id="gradients.table_c1.duplicate_control",
            statement=(
                "Negative control: a batch with its last image replaced by its first has float64 "
                "rank exactly n - 1 (max |rank - (n - 1)| over the control batches)"
            ),
            source=SOURCE,
            measured=table["control_error"].max(),
            relation="<=",
            bound=0.0,
            note=f"{int(table['control_batches'].min())} control batches per cell",
        ),
        evaluate(
            id="gradients.table_c1.float32_deficit",
            statement=(
                f"At the largest n = {int(table['n'].max())} the float32 Gram rank is below n "
                "(mean deficit >= 1 for every dataset and normalization) although the batch has "
                "full rank: the printed deficits are numerical"
            ),
            source=SOURCE,
            measured=(largest["n"] - largest["gram_rank_f32_mean"]).min(),
            relation=">=",
            bound=1.0,
        ),
        evaluate(
            id="gradients.table_c1.deficit_is_tolerance",
            statement=(
                "The float32 Gram rank equals #{sigma_i(X)^2 > n eps32 sigma_1(X)^2} (the default "
                "tolerance applied to the squared float64 spectrum): max over cells of the mean "
                "|difference| per batch"
            ),
            source=SOURCE,
            measured=table["rule_difference"].max(),
            relation="<=",
            bound=0.0,
            tolerance=rule_tolerance,
            note=(
                "float32 rounding of the Gram (relative ~D eps32) can move a singular value "
                "lying next to the threshold across it; tolerance allows that in a few batches"
            ),
        ),
    ]
    for dataset, g in table.groupby("dataset", sort=False):
        if dataset not in PRINTED_RANK:
            continue
        by_norm = {
            norm: h[h["printed_mean"].notna()] for norm, h in g.groupby("normalization", sort=False)
        }
        zs = {norm: _printed_z(h, printed_rounding).max() for norm, h in by_norm.items()}
        others = ", ".join(f"{k} {v:.1f}" for k, v in zs.items())
        if "raw" in by_norm and len(by_norm["raw"]):
            raw = by_norm["raw"]
            claims.append(
                evaluate(
                    id=f"gradients.table_c1.printed_rank_{dataset}",
                    statement=(
                        f"The float32 Gram rank of raw [0, 1] pixels reproduces the printed "
                        f"{dataset} row: max over n of |measured - printed| / se <= {z:g}"
                    ),
                    source=SOURCE,
                    measured=zs["raw"],
                    relation="<=",
                    bound=z,
                    note=(
                        "se^2 = printed std^2 / 100 + our std^2 / batches + rounding^2; max z by "
                        f"normalization: {others}; n = {', '.join(map(str, raw['n']))}"
                    ),
                    details={
                        norm: {
                            str(int(n)): float(v)
                            for n, v in zip(h["n"], _printed_z(h, printed_rounding), strict=True)
                        }
                        for norm, h in by_norm.items()
                    },
                )
            )
        rows = g[g["printed_cosine"].notna()].set_index("normalization")
        if "raw" in rows.index:
            raw = rows.loc["raw"]
            spread = raw["mean_cosine_std"]
            others = ", ".join(f"{k} {v:.3f}" for k, v in rows["mean_cosine_mean"].items())
            claims.append(
                evaluate(
                    id=f"gradients.table_c1.printed_cosine_{dataset}",
                    statement=(
                        f"The mean cosine similarity of raw [0, 1] pixels in a batch of "
                        f"{PRINTED_COSINE_N} equals the printed {raw['printed_cosine']:.2f} "
                        f"(within {z:g} batch-to-batch std + rounding)"
                    ),
                    source=SOURCE,
                    measured=raw["mean_cosine_mean"],
                    measured_se=spread,
                    relation="within",
                    bound=raw["printed_cosine"],
                    tolerance=z * spread + printed_rounding,
                    note=(
                        "the seed speaks of one 512 batch, so the tolerance uses the std over "
                        f"batches (measured_se), not the SE of our mean; mean by normalization: "
                        f"{others}"
                    ),
                )
            )
    return claims
