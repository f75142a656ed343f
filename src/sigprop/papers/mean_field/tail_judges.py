"""Claims of the ``lemma_b1_b2`` item (Thesis Lemmas B.1, B.2, Lemma 3.3; Joudaki 2024, JDB23a).

The judge of ``lemma_b1_b2`` (measured in ``tails``): the measured table and the item's config
slice in, the claims ``mean_field.lemma_b1_b2.<what>`` out; pure and torch-free (judge jobs load
only this module).
"""

from __future__ import annotations

import math

import pandas as pd

from ...engine.stats import exact, from_se
from ...verdicts.claims import Claim, Record, control_reason, judge_records, worst_case

__all__ = [
    "RECORDS",
    "SOURCE_33",
    "SOURCE_B",
    "STATISTICS",
    "gaussian_quantile_ratio",
    "judge",
    "tails_context",
]

SOURCE_B = "Thesis Lemmas B.1, B.2 (Eq. (B.3), (B.4)) and Eq. (B.37)-(B.40) (JDB23a)"
SOURCE_33 = "Thesis Lemma 3.3 (Eq. (3.6)) / Lemma B.3 (Eq. (B.16), (B.40)) (JDB23a)"

STATISTICS = ("b1", "b2", "l33", "ctrl")
"""The statistics of ``tail_theorems.measure``: ||C_d - C||_F (Lemma B.1), ||C^{-1} C_d - I||_F
(Lemma B.2), one layer's ||G_*^{-1} G_1 - I||_F from G_* (Lemma 3.3 proxy) and from the control
start."""


def gaussian_quantile_ratio(upper: float = 0.99, lower: float = 0.5) -> float:
    """q_upper / q_lower of a variable with P(T > s) = exp(-(s / K)^2): sqrt(ln(1-l) / ln(1-u))."""
    if not 0 < lower < upper < 1:
        raise ValueError(f"need 0 < lower < upper < 1, got lower={lower}, upper={upper}")
    return math.sqrt(math.log(1 - upper) / math.log(1 - lower))


TAIL = (
    "Lemma {lemma}: T = sqrt(d) ||.||_F / ({eps}) has a tail no heavier than Gaussian: "
    "q_{quantile:g} / q_0.5 <= sqrt(ln(1/{upper:.3g}) / ln 2) = {shape:.4g} (ratio of P(T > s) "
    "= exp(-(s/K)^2)); every case of {cases}"
)
TAIL_NOTE = (
    "interval: +- the bootstrap SE ({{n_boot}} resamples, normal) of the worst case "
    "{{{k}_worst}}; {{draws}} draws per case. The lemma's constant is hidden (~): only the "
    "shape is tested"
)
WIDTH = (
    "scales as n / sqrt(d): slope of log RMS vs log d = -1/2 within {slope_margin:g}, every "
    "case of {cases}"
)
WIDTH_NOTE = (
    "interval: the delta-method SE of log RMS from i.i.d. draws (weighted LS over widths, "
    "normal) of the worst case {{{k}_slope_worst}}; the margin is declared (config "
    "lemma_b1_b2.slope_margin)"
)

EXPONENT = (
    "wording: the deviation scale 'epsilon := Bn / sqrt(d)' of Lemma B.1 (Eq. (B.3)), with B "
    "set to ||C^-1|| B for Lemma B.2 and in the proof of Lemma B.3 (Thesis app. B.1-B.2), read "
    "as 'scales as d^(-1/2)': the exponent -1/2 to one decimal, +- {slope_margin:g}"
)
"""Why the width slopes' margin is what it is."""

RECORDS = (
    Record(
        "row_norm_bound",
        "every row x = phi(BN(w)) obeys ||x||^2 <= B n (Eq. (B.37)-(B.39)); measured max "
        "||x||^2 / (B n) over all draws, {cases}",
        SOURCE_B, "identity", "row_norm", "<=", 1.0, 1e-12,
        tolerance_reason="round_off: ||BN(w)||^2 = n holds exactly; its float64 evaluation over "
        "n = {batch_size} entries errs by about n eps (2e-15 relative), and 1e-12 allows some "
        "500 times that",
        note="exact: the maximum over all draws; B = 1 for linear, tanh, relu, sin; BN makes "
        "||BN(w)||^2 = n, so this tests our BN; tolerance: float64 round-off of the row norm",
    ),
    Record("b1_tail", TAIL.replace("{lemma}", "B.1").replace("{eps}", "B n"), SOURCE_B, "paper",
           "b1_tail", "<=", "shape", note=TAIL_NOTE.format(k="b1"),
           requires=("row_norm_bound", "tail_control")),
    Record("b1_width", "Lemma B.1: ||C_d - C||_F " + WIDTH, SOURCE_B, "paper", "b1_slope",
           "within", -0.5, "slope_margin", printed=-0.5, note=WIDTH_NOTE.format(k="b1"),
           tolerance_reason=EXPONENT, requires=("row_norm_bound",)),
    Record("b2_tail", TAIL.replace("{lemma}", "B.2").replace("{eps}", "B ||C^{{-1}}|| n"),
           SOURCE_B, "paper", "b2_tail", "<=", "shape", note=TAIL_NOTE.format(k="b2"),
           requires=("row_norm_bound", "tail_control")),
    Record("b2_width", "Lemma B.2: ||C^{{-1}} C_d - I||_F " + WIDTH, SOURCE_B, "paper",
           "b2_slope", "within", -0.5, "slope_margin", printed=-0.5,
           note=WIDTH_NOTE.format(k="b2"), tolerance_reason=EXPONENT,
           requires=("row_norm_bound",)),
    Record("lemma3_3_width", "Lemma 3.3 proxy: ||G_*^{{-1}} G_1 - I||_F one layer after rows ~ "
           "N(0, G_*) " + WIDTH, SOURCE_33, "paper", "l33_slope", "within", -0.5, "slope_margin",
           printed=-0.5, note=WIDTH_NOTE.format(k="l33"), tolerance_reason=EXPONENT,
           requires=("lemma3_3_control",)),
    Record(
        "tail_control",
        "negative control: rows exp(s w), w ~ N(0, G_*), without BN (unbounded norms) have "
        "q_{quantile:g} / q_0.5 of sqrt(d) ||C_d - C||_F above {shape:.4g} in every case, so "
        "the tail claims can fail",
        SOURCE_B, "control", "exp_ratio", ">=", "shape",
        note="exact: the smallest ratio over the cases, a property of the drawn sample (no SE "
        "recorded); s = {control_scale}; at {exp_worst}",
    ),
    Record(
        "lemma3_3_control",
        "negative control: one layer from an AR(1) start (rho = {control_correlation}, not G_*), "
        "||G_*^{{-1}} G_1 - I||_F does not scale as d^(-1/2): |slope + 1/2| >= {slope_margin:g} "
        "in every case",
        SOURCE_33, "control", "ctrl_dev", ">=", "slope_margin",
        tolerance_reason=control_reason(EXPONENT, "the width claims' margin"),
        note="interval: delta-method SE (normal) of the closest case {ctrl_worst}; it fails "
        "when the width claims could not tell a wrong start",
    ),
)  # fmt: skip


def _slopes(table: pd.DataFrame, draws: int) -> dict:
    per_activation = table.drop_duplicates("activation")
    return {
        k: {
            r["activation"]: from_se(r[f"{k}_slope"], r[f"{k}_slope_se"], n=draws)
            for _, r in per_activation.iterrows()
        }
        for k in STATISTICS
    }


def tails_context(table: pd.DataFrame, *, slope_margin: float, **settings) -> dict:
    """The derived numbers of the tail claims (``RECORDS``)."""
    shape = gaussian_quantile_ratio(settings["quantile"], 0.5)
    context = {
        **settings,
        "slope_margin": float(slope_margin),
        "shape": shape,
        "upper": 1 - settings["quantile"],
        "cases": f"phi in {list(settings['activations'])}, d in {list(settings['widths'])}, "
        f"n = {int(settings['batch_size'])}",
        "row_norm": exact(float(table["max_row_norm_ratio"].max())),
    }
    name = [f"{r.activation}, d={r.width}" for r in table.itertuples()]
    for k in ("b1", "b2"):
        cases = {
            n: from_se(v, e, n=int(settings["draws"]))
            for n, v, e in zip(name, table[f"{k}_ratio"], table[f"{k}_ratio_se"], strict=True)
        }
        context[f"{k}_worst"], context[f"{k}_tail"] = worst_case(cases, "<=", shape)
    slopes = _slopes(table, int(settings["draws"]))
    for k in ("b1", "b2", "l33"):
        context[f"{k}_slope_worst"], context[f"{k}_slope"] = worst_case(
            slopes[k], "within", -0.5, slope_margin
        )
    dev = {a: from_se(abs(m.value + 0.5), m.se, n=m.n) for a, m in slopes["ctrl"].items()}
    context["ctrl_worst"], context["ctrl_dev"] = worst_case(dev, ">=", slope_margin)
    i = int(table["exp_ratio"].to_numpy().argmin())
    context["exp_ratio"] = exact(float(table["exp_ratio"].iloc[i]))
    context["exp_worst"] = name[i]
    return context


def judge(table: pd.DataFrame, *, slope_margin: float, **settings) -> list[Claim]:
    """Claims of ``lemma_b1_b2`` from the measured table (every activation and width).

    ``row_norm_bound``: max ||x_i||^2 / (B n) <= 1 (Eq. (B.38)-(B.39)), float tolerance.
    ``b1_tail``, ``b2_tail``: q_quantile / q_50 of T <= the Gaussian-shape ratio
    sqrt(ln(1 - quantile) / ln(1/2)) (interval: bootstrap SE).
    ``b1_width``, ``b2_width``, ``lemma3_3_width``: slope of log RMS ||.||_F vs log d in
    -1/2 +- ``slope_margin`` (WLS, delta-method SE).
    ``tail_control`` (negative): rows exp(s w) without BN, unbounded norms: their q ratio
    exceeds the Gaussian-shape ratio (so ``b*_tail`` can fail).
    ``lemma3_3_control`` (negative): one layer from an AR(1) start (not G_*): its slope lies
    outside -1/2 +- ``slope_margin`` (so ``lemma3_3_width`` can fail).

    Args:
        table: the table of ``measure``.
        slope_margin: the declared margin of the -1/2 slopes.
        settings: the measurement's settings, quoted in the statements and notes.
    """
    context = tails_context(table, slope_margin=slope_margin, **settings)
    return judge_records(RECORDS, context, "mean_field.lemma_b1_b2.")
