"""Dan+20 Eq. (52) on the BN chain of Eq. (1): the invariance identity behind Lemma 13.

With g = ||M||_F^2 the invariance of nu_gamma gives Eq. (52):
E[2 d^2 - 2 ||M||_F^2 - 8 Tr(M^3) + 8 Tr(diag(M^2)^2)] + O(gamma) = 0, i.e. the ergodic average of
delta_F / (2 d^2) (Lemma 7's one-step drift, ``metrics.frobenius_drift``, normalized) tends to 0
as gamma -> 0. Torch-free: the table reads the cached ``bn_chain`` simulation's recorded traces.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...claims import Claim, evaluate
from ...stats import mean_se
from ...trace_identities import frobenius_drift_from_traces

__all__ = ["eq52_claims", "eq52_table"]

SOURCE = "Dan+20 Eq. (52) (proof of Lemma 13)"


def eq52_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (gamma, width): the mean over runs of the per-run ergodic average of
    delta_F / (2 d^2) = 1 - (||M||_F^2 + 4 Tr M^3 - 4 Tr diag(M^2)^2) / d^2, with its SE over runs.

    Args:
        frame: the ``bn_chain`` simulation in long form (gamma, width, run, layer, statistics).
    """
    d = frame["width"].to_numpy(float)
    drift = frobenius_drift_from_traces(
        d, frame["frobenius_m_squared"], frame["trace_m_cubed"], frame["trace_diag_m2_squared"]
    ) / (2 * d**2)
    per_run = frame.assign(normalized_drift=drift).groupby(["gamma", "width", "run"])
    runs = per_run["normalized_drift"].mean().reset_index()
    rows = [
        (gamma, width, *mean_se(g["normalized_drift"].to_numpy()), len(g))
        for (gamma, width), g in runs.groupby(["gamma", "width"], sort=True)
    ]
    return pd.DataFrame(rows, columns=["gamma", "width", "mean_drift", "se", "runs"])


def eq52_claims(table: pd.DataFrame, tolerance: float) -> list[Claim]:
    """At the smallest finite gamma the average normalized drift is within ``tolerance`` of 0 at
    every width; and it is smaller in size there than at the largest finite gamma (the O(gamma)
    term shrinks), at every width."""
    finite = table[np.isfinite(table["gamma"].to_numpy(float))]
    gammas = sorted(finite["gamma"].unique())
    if not gammas:
        return []
    small = finite[finite["gamma"] == gammas[0]].set_index("width")
    worst = small["mean_drift"].abs().idxmax()
    claims = [
        evaluate(
            id="rank_collapse.eq52.small_gamma_near_zero",
            statement=(
                f"Eq. (52): at gamma = {gammas[0]:g} the ergodic average of delta_F / (2 d^2) is "
                f"within {tolerance:g} of 0 at every width; measured is the largest |average| "
                f"(d = {int(worst)})"
            ),
            source=SOURCE,
            measured=abs(small.loc[worst, "mean_drift"]), measured_se=small.loc[worst, "se"],
            relation="<=", bound=0.0, tolerance=tolerance,
        )
    ]  # fmt: skip
    if len(gammas) > 1:
        large = finite[finite["gamma"] == gammas[-1]].set_index("width")
        ratio = small["mean_drift"].abs() / large["mean_drift"].abs()
        width = ratio.idxmax()
        claims.append(
            evaluate(
                id="rank_collapse.eq52.shrinks_with_gamma",
                statement=(
                    f"the O(gamma) term of Eq. (52) shrinks: |average delta_F / (2 d^2)| at gamma "
                    f"= {gammas[0]:g} is below its value at gamma = {gammas[-1]:g} at every width; "
                    f"measured is the largest ratio of the two (d = {int(width)})"
                ),
                source=SOURCE,
                measured=ratio.loc[width] if math.isfinite(ratio.loc[width]) else math.nan,
                relation="<=", bound=1.0,
            )
        )  # fmt: skip
    return claims
