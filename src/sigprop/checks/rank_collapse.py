"""Claims of Dan+20 (seeds 000-002), from the plotted tables."""

from __future__ import annotations

import math

import pandas as pd

from ..claims import Claim, evaluate

__all__ = ["fig2_claims"]

SOURCE_FIG2 = "Dan+20 Fig. 2 and Sec. 1.1"


def _run_mean(table: pd.DataFrame, by: list[str], y: str) -> pd.DataFrame:
    """Mean, standard error and count of y over runs, per group."""
    grouped = table.groupby(by)[y]
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    out["se"] = out["std"] / out["count"].pow(0.5)
    return out


def fig2_claims(table: pd.DataFrame, width: int, vanilla_rank_tolerance: float) -> list[Claim]:
    """BN keeps rank above sqrt(d) at every depth; vanilla collapses toward rank one.

    Args:
        table: columns network (BN | vanilla), activation, run, depth, rank.
        width: d; the BN floor is sqrt(d) (Dan+20 Thm. 2, Fig. 2 caption).
        vanilla_rank_tolerance: how far above 1 the deepest vanilla rank may be (integer ranks).
    """
    means = _run_mean(table, ["network", "activation", "depth"], "rank")
    claims = []
    for act in sorted(table["activation"].unique()):
        bn = means.query("network == 'BN' and activation == @act")
        worst = bn.loc[bn["mean"].idxmin()]
        claims.append(
            evaluate(
                id=f"rank_collapse.fig2.bn_{act}_above_sqrt_d",
                statement=(
                    f"{act} BN MLP, d={width}: the mean numerical rank of the last hidden layer "
                    f"stays >= sqrt(d) = {math.sqrt(width):.2f} at every depth "
                    f"1..{int(bn['depth'].max())}; "
                    f"measured is its minimum over depths (at depth {int(worst['depth'])})"
                ),
                source=SOURCE_FIG2,
                measured=worst["mean"],
                measured_se=worst["se"],
                relation=">=",
                bound=math.sqrt(width),
            )
        )
        vanilla = means.query("network == 'vanilla' and activation == @act")
        deepest = vanilla.loc[vanilla["depth"].idxmax()]
        claims.append(
            evaluate(
                id=f"rank_collapse.fig2.vanilla_{act}_collapse",
                statement=(
                    f"{act} vanilla MLP, d={width}: the mean numerical rank at the deepest layer "
                    f"L={int(deepest['depth'])} has collapsed toward 1"
                ),
                source=SOURCE_FIG2 + "; Lemma 3",
                measured=deepest["mean"],
                measured_se=deepest["se"],
                relation="<=",
                bound=1.0,
                tolerance=vanilla_rank_tolerance,
            )
        )
    return claims
