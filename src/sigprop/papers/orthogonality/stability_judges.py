"""Claims of DJB21 App. B.1 "Stability analysis without A1" (Thesis App. A.2): the
``judge_stability`` half of ``drift_theorems`` (item ``stability``). Torch-free."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from ...verdicts.claims import Claim, Record
from .drift_spec import case_text, check_cases
from .drift_theorem_judges import best_of, worst_of
from .verdicts import judge, worst

__all__ = ["STABILITY_CASE_RECORDS", "STABILITY_CONTROL_RECORDS", "judge_stability"]

SOURCE_STABILITY = "DJB21 App. B.1 'Stability analysis without A1' (Thesis App. A.2)"

STABILITY_CASE_RECORDS = (
    Record(
        "bound_{start}_n{n}_d{d}",
        "n={n}, d={d}, H_0 {start_text}: the running average (1/l) sum_(k<=l) V_hat_k "
        "(1/n - V_hat_k) stays below 3 E V_hat(H_0)/(2l) + 3/(2 sqrt d) for l = 1..{depth}; "
        "measured is the mean minus right side at the layer whose interval (t over {n_runs} "
        "runs) reaches highest",
        SOURCE_STABILITY,
        "paper",
        "excess",
        "<=",
        0.0,
        note="At l = {layer}; largest ratio of mean to right side {tightness:.3g} (the bound is "
        "loose unless d > 36 n^4). Gaussian fast path, exact in law.",
    ),
)

STABILITY_CONTROL_RECORDS = (
    Record(
        "control_floor_rate",
        "negative control: the stability bound with a floor one power of d faster, 3/(2 d) in "
        "place of 3/(2 sqrt d), fails for every case and start (cases {cases}, starts {starts}); "
        "measured is, over the cases and starts, the least of the highest-lying excess over l "
        "(t over runs)",
        SOURCE_STABILITY + " (rate of the floor)",
        "control",
        "control",
        ">=",
        0.0,
        note="Replaces control_no_floor: without any floor the bound fails by construction (the "
        "running average tends to E_stationary[sigma_n^2 (1/n - sigma_n^2)] > 0 while "
        "3 E V_hat(H_0)/(2l) -> 0). This counterfactual fails when the running average decays "
        "as fast as 1/d. Least case: {control_case}.",
    ),
)


def _case_context(rows: pd.DataFrame, n_runs: int) -> dict:
    rows = rows.sort_values("layer")
    excess, k = worst_of(rows["mean"] - rows["rhs"], rows["se"], n_runs)
    floor = rows["rhs"] - rows["rhs_no_floor"]  # 3 / (2 sqrt d)
    faster = rows["rhs_no_floor"] + floor / math.sqrt(float(rows["d"].iloc[0]))  # 3 / (2 d)
    control, _ = best_of(rows["mean"] - faster, rows["se"], n_runs)
    return dict(
        excess=excess,
        layer=int(rows["layer"].iloc[k]),
        tightness=float((rows["mean"] / rows["rhs"]).max()),
        control=control,
    )


def judge_stability(
    table: pd.DataFrame,
    *,
    cases: Sequence[Sequence[int]],
    starts: Sequence[str],
    depth: int,
    n_runs: int,
) -> list[Claim]:
    """Claims of DJB21 App. B.1 from ``measure_stability``'s table (one row per case, start and
    layer, with mean and SE over ``n_runs`` runs): per (n, d, start) the bound at its least
    favourable layer, and the control with a faster floor."""
    cases = check_cases(cases, "stability.cases")
    claims, controls = [], []
    for (n, d, start), rows in table.groupby(["n", "d", "start"], sort=False):
        context = dict(
            n=int(n),
            d=int(d),
            start=start,
            start_text=start.replace("_", "-"),
            depth=depth,
            n_runs=n_runs,
        ) | _case_context(rows, n_runs)
        controls.append((context["control"], f"n={n}, d={d}, {start}"))
        claims += judge(STABILITY_CASE_RECORDS, context, "stability")
    k = worst([m for m, _ in controls], ">=")
    context = dict(
        cases=case_text(cases),
        starts=", ".join(starts),
        control=controls[k][0],
        control_case=controls[k][1],
    )
    return claims + judge(STABILITY_CONTROL_RECORDS, context, "stability")
