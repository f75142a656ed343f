"""Thesis Table C.1 (app. C.4): the table from the per-batch ranks, its markdown, its claims.

The printed table is kept here as data (``PRINTED_RANK``, ``PRINTED_COSINE``) with its source, so
the generated markdown shows it beside the measured rows and the claims compare with it.
"""

from __future__ import annotations

import math

import pandas as pd

from ... import stats
from ...claims import Claim, Record, judge_records
from .verdicts import least_favourable, welch_from_summaries

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


def _printed_difference(row) -> stats.Measurement:
    """Our mean float32 Gram rank minus the printed mean, with the Welch SE of two means
    (printed std over ``PRINTED_BATCHES``, ours over ``batches``)."""
    return welch_from_summaries(
        row["gram_rank_f32_mean"], row["gram_rank_f32_std"], int(row["batches"]),
        row["printed_mean"], row["printed_std"], PRINTED_BATCHES,
    )  # fmt: skip


TABLE_C1 = (
    Record("full_rank", "Every batch has full rank n in float64 (rank of X, singular values "
           "above sigma_1 max(D, n) eps64): measured = max over cells of n - min rank (a count "
           "over the sample)", f"{SOURCE}; premise of Thm. 6.5 (non-degenerate batches)",
           "paper", "full_rank", "<=", 0.0,
           note="integer ranks, tolerance 0; smallest sigma_n / tolerance over all batches is "
           "10^{worst_margin:.1f}; both normalizations"),
    Record("duplicate_control", "Negative control: a batch with its last image replaced by its "
           "first has float64 rank exactly n - 1 (max |rank - (n - 1)| over the control "
           "batches)", SOURCE, "control", "duplicate", "<=", 0.0,
           note="{control_batches} control batches per cell"),
    Record("float32_deficit", "At the largest n = {n_max} the float32 Gram rank is below n (mean "
           "deficit, t over batches, >= 1 for every dataset and normalization; the least "
           "favourable) although the batch has full rank: the printed deficits are numerical",
           SOURCE, "paper", "deficit", ">=", 1.0),
    Record("deficit_is_tolerance", "The float32 Gram rank equals #{{sigma_i(X)^2 > n eps32 "
           "sigma_1(X)^2}} (the default tolerance applied to the squared float64 spectrum): max "
           "over cells of the mean |difference| per batch", SOURCE, "setup", "rule", "<=", 0.0,
           "rule_tolerance",
           note="our explanation of the printed deficits, a check of our setup: float32 rounding "
           "of the Gram (relative ~D eps32) can move a singular value lying next to the threshold "
           "across it; the tolerance allows that in a few batches"),
)  # fmt: skip


def _rank_record(dataset: str, n: int) -> Record:
    return Record(
        f"printed_rank_{dataset}_n{n}",
        f"Table C.1, {dataset}, n = {n}: the mean float32 Gram rank of raw [0, 1] pixels "
        "reproduces the printed mean within +-{rank_margin:g} (Welch interval of our mean minus "
        "the printed one, printed std over 100 batches)",
        SOURCE,
        "paper",
        f"rank_{dataset}_{n}",
        "within",
        0.0,
        "rank_margin",
        printed=f"printed_{dataset}_{n}",
        note=f"ours {{ours_{dataset}_{n}:.4g}}; with normalized pixels {{norm_{dataset}_{n}}}",
    )


def _cosine_record(dataset: str) -> Record:
    return Record(
        f"printed_cosine_{dataset}",
        f"The mean cosine similarity of raw [0, 1] pixels in a batch of {PRINTED_COSINE_N} "
        f"({dataset}; t over batches) equals the printed {{cos_printed_{dataset}:.2f}} within "
        "+-{cosine_tolerance:g} (its rounding + the declared cosine margin)",
        SOURCE,
        "paper",
        f"cos_{dataset}",
        "within",
        f"cos_printed_{dataset}",
        "cosine_tolerance",
        printed=f"cos_printed_{dataset}",
        note=f"the seed prints one batch's value; mean by normalization: {{cos_norms_{dataset}}}",
    )


def _printed_context(table: pd.DataFrame, c: dict) -> list[Record]:
    records = []
    for dataset, g in table.groupby("dataset", sort=False):
        if dataset not in PRINTED_RANK:
            continue
        raw = g[(g["normalization"] == "raw") & g["printed_mean"].notna()]
        normed = g[(g["normalization"] != "raw") & g["printed_mean"].notna()].set_index("n")
        for _, row in raw.iterrows():
            n = int(row["n"])
            c[f"rank_{dataset}_{n}"] = _printed_difference(row)
            c[f"printed_{dataset}_{n}"] = float(row["printed_mean"])
            c[f"ours_{dataset}_{n}"] = float(row["gram_rank_f32_mean"])
            c[f"norm_{dataset}_{n}"] = (
                f"{normed.loc[n, 'gram_rank_f32_mean']:.4g}" if n in normed.index else "n/a"
            )
            records.append(_rank_record(dataset, n))
        rows = g[g["printed_cosine"].notna()].set_index("normalization")
        if "raw" in rows.index:
            r = rows.loc["raw"]
            c[f"cos_{dataset}"] = stats.from_se(
                r["mean_cosine_mean"], r["mean_cosine_std"] / math.sqrt(r["batches"]),
                df=int(r["batches"]) - 1, n=int(r["batches"]),
            )  # fmt: skip
            c[f"cos_printed_{dataset}"] = float(r["printed_cosine"])
            c[f"cos_norms_{dataset}"] = ", ".join(
                f"{k} {v:.3f}" for k, v in rows["mean_cosine_mean"].items()
            )
            records.append(_cosine_record(dataset))
    return records


def table_c1_claims(
    table: pd.DataFrame,
    rank_margin: float,
    cosine_margin: float,
    rule_tolerance: float,
    printed_rounding: float,
) -> list[Claim]:
    """Claims of Thesis Table C.1 / app. C.4 (config/README.md, ``gradients.table_c1_check``):
    one claim per printed row (every n of every dataset the table prints).

    Args:
        table: from ``table_c1``.
        rank_margin: the declared margin of a printed mean rank (ranks are integers per batch).
        cosine_margin: the declared margin of the printed mean cosine (one batch in the seed).
        rule_tolerance: allowed mean |float32 Gram rank - threshold rank| per batch.
        printed_rounding: half a unit of the printed last digit (0.005).
    """
    largest = table[table["n"] == table["n"].max()]
    deficits = {
        i: stats.from_se(r.n - r.gram_rank_f32_mean, r.gram_rank_f32_std / math.sqrt(r.batches),
                         df=r.batches - 1, n=int(r.batches))
        for i, r in largest.iterrows()
    }  # fmt: skip
    c = {
        "rank_margin": rank_margin,
        "cosine_tolerance": cosine_margin + printed_rounding,
        "rule_tolerance": rule_tolerance,
        "worst_margin": float(table["log10_margin_min"].min()),
        "control_batches": int(table["control_batches"].min()),
        "n_max": int(table["n"].max()),
        "full_rank": stats.exact((table["n"] - table["rank_f64_min"]).max()),
        "duplicate": stats.exact(table["control_error"].max()),
        "deficit": least_favourable(deficits, ">=")[1],
        "rule": stats.exact(table["rule_difference"].max()),
    }
    records = [*TABLE_C1, *_printed_context(table, c)]
    return judge_records(records, c, prefix="gradients.table_c1.")
