"""Claims of the ``mixing`` item (Thesis Assumption 3.1, Eq. (3.4); Joudaki 2024, JDB23a).

The judge of ``mixing`` (which simulates the two groups of chains and fits the rates): the
measured table and the item's config slice in, the claims ``mean_field.mixing.<what>`` out; pure
and torch-free (judge jobs load only this module).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ...claims import Claim, evaluate

__all__ = ["FIT_COLUMNS", "SOURCE_MIX", "judge"]

SOURCE_MIX = "Thesis Assumption 3.1 (geometric ergodicity), Eq. (3.4) (JDB23a); a proxy"

FIT_COLUMNS = (
    "slope",
    "slope_se",
    "alpha",
    "fit_last_layer",
    "first_t",
    "tail_diff",
    "tail_se",
    "tail_t",
)
"""Per-case columns of the ``mixing.measure`` table (repeated on every layer row of the case)."""


def judge(
    table: pd.DataFrame,
    *,
    batch_size: int,
    widths: Sequence[int],
    activations: Sequence[str],
    depth: int,
    n_runs: int,
    summaries: Sequence[str],
    merged_from: int,
    n_boot: int,
    z: float,
    **measure_settings,
) -> list[Claim]:
    """Claims of ``mixing`` from the measured table (worst case over widths, activations,
    summaries).

    ``starts_differ`` (negative control): |Delta_1| / SE_1 >= z, the groups are still apart
    after one layer, so merging is not vacuous. ``decay``: slope of log|Delta_l| vs l over its
    bootstrap SE <= -z (a case with fewer than 3 layers to fit is the worst case, and fails).
    ``merged``: the per-run averages over layers merged_from..depth differ by <= z Welch SE.

    Args:
        table: the table of ``measure``.
        batch_size, ..., z: the measurement's settings, quoted in the statements and notes.
        measure_settings: the item's other settings (unused).
    """
    keys = ["activation", "width", "summary"]
    fit = table.drop_duplicates(keys)[[*keys, *FIT_COLUMNS]].reset_index(drop=True)
    fit["decay_t"] = fit["slope"] / fit["slope_se"]
    n = int(batch_size)
    cases = f"phi in {list(activations)}, d in {list(widths)}, summaries {list(summaries)}, n = {n}"
    desc = lambda r: f"{r['activation']}, d={r['width']}, {r['summary']}"  # noqa: E731
    dt = fit["decay_t"]  # NaN (fewer than 3 layers to fit) is the worst case: fails
    worst_decay = fit.loc[dt.isna().idxmax()] if dt.isna().any() else fit.loc[dt.idxmax()]
    worst_tail = fit.loc[fit["tail_t"].idxmax()]
    worst_first = fit.loc[fit["first_t"].idxmin()]
    alphas = ", ".join(f"{desc(r)}: {r['alpha']:.3f}" for _, r in fit.iterrows())
    claims = [
        evaluate(
            id="mean_field.mixing.starts_differ",
            statement=(
                "negative control: after one layer the chains from near-collinear and from "
                f"orthogonal inputs still differ: |Delta_1| >= {z} Welch SE, closest case over "
                f"{cases}"
            ),
            source=SOURCE_MIX,
            measured=float(worst_first["first_t"]),
            relation=">=",
            bound=z,
            note=f"Closest case {desc(worst_first)}; {n_runs} runs per start.",
        ),
        evaluate(
            id="mean_field.mixing.decay",
            statement=(
                "the difference of the two starts' mean summaries decays exponentially: slope of "
                f"log|Delta_l| vs layer <= -{z} bootstrap SE, worst case over {cases}"
            ),
            source=SOURCE_MIX,
            measured=float(worst_decay["decay_t"]),
            relation="<=",
            bound=-z,
            note=(
                f"Worst case {desc(worst_decay)}: slope {worst_decay['slope']:.4f} +- "
                f"{worst_decay['slope_se']:.4f} over layers 1..{worst_decay['fit_last_layer']}. "
                f"Fitted alpha = 1 - exp(slope): {alphas}. SE: {n_boot} resamples of runs."
            ),
        ),
        evaluate(
            id="mean_field.mixing.merged",
            statement=(
                f"the starts have merged by layer {merged_from}: the per-run average of the "
                f"summary over layers {merged_from}..{depth} differs by <= {z} Welch SE, worst "
                f"case over {cases}"
            ),
            source=SOURCE_MIX,
            measured=float(worst_tail["tail_t"]),
            relation="<=",
            bound=z,
            note=(
                f"Worst case {desc(worst_tail)}: difference {worst_tail['tail_diff']:.3g} +- "
                f"{worst_tail['tail_se']:.3g}."
            ),
        ),
    ]
    return claims
