"""Claims of Thesis Props. 5.1/5.2 and Thm. 5.15 at finite width from the table
``finite_width.prop5_1`` measures: the error shrinks like d^{-1/2}, the two weight laws agree, and
the wrong-kernel control does not converge.

Torch-free: a judge job imports only this module.
"""

from __future__ import annotations

import math

import pandas as pd

from ...claims import Claim, evaluate

__all__ = ["prop5_1_claims"]


def prop5_1_claims(
    table: pd.DataFrame,
    *,
    widths: list[int],
    depth: int,
    laws: list[str],
    slope_z: float,
    slope_slack: float,
    agree_z: float,
    control_slope: float,
    **_settings,
) -> list[Claim]:
    """Prop. 5.1 / 5.2 slopes per law, the laws' agreement and the wrong-kernel control.

    Args:
        table: ``prop5_1``'s table.
        widths, depth, laws: the measurement's settings.
        slope_z, slope_slack: |slope + 1/2| <= slope_z SE + slope_slack.
        agree_z: max |difference of the laws' mean layer-averaged cosine| / SE.
        control_slope: the post-LN chain against the un-centred kappa must have slope above this.
    """
    claims = []
    table = table.assign(excess=(table["slope"] + 0.5).abs() - slope_z * table["slope_se"])
    setup = f"{depth} layers, errors averaged over layers, slope of log mean error vs log d"
    for law in laws:
        t = table[table["law"] == law]
        worst = t.loc[t["excess"].idxmax()]
        prop = "Prop. 5.1" if law == "gaussian" else "Prop. 5.2"
        claims.append(
            evaluate(
                id=f"isometry.prop5_1.slope_{law}",
                statement=(
                    f"{prop} / Thm. 5.15 at finite width, {law} weights of variance 1/d: the "
                    "error |rho_l - kappa_psi^l(rho_0)| shrinks like d^{-1/2}; max over "
                    f"(activation, norm) of |slope + 1/2| - {slope_z} SE ({setup})"
                ),
                source=f"Thesis {prop}, Thm. 5.15 (mean field)",
                measured=worst["excess"],
                relation="<=",
                bound=slope_slack,
                measured_se=worst["slope_se"],
                note=(
                    f"worst {worst['activation']}/{worst['norm']}: slope {worst['slope']:.3f} +- "
                    f"{worst['slope_se']:.3f}; slack for the O(1/d) bias at small d"
                ),
            )
        )
    if len(laws) >= 2:
        g0, g1 = laws[:2]
        first = table[table["law"] == g0].set_index(["activation", "norm"])
        second = table[table["law"] == g1].set_index(["activation", "norm"])
        stats = []
        for d in widths:
            for a, norm in first.index:
                m0, s0 = first.loc[(a, norm), [f"mean_cosine_d{d}", f"mean_cosine_se_d{d}"]]
                m1, s1 = second.loc[(a, norm), [f"mean_cosine_d{d}", f"mean_cosine_se_d{d}"]]
                stats.append((abs(m0 - m1) / math.hypot(s0, s1), a, norm, d))
        z, a, norm, d = max(stats)
        claims.append(
            evaluate(
                id="isometry.prop5_1.laws_agree",
                statement=(
                    f"Prop. 5.2: {g0} and {g1} weights give the same cosine curve: max over "
                    "(activation, norm, d) of |difference of the mean layer-averaged cosine| / SE"
                ),
                source="Thesis Prop. 5.2",
                measured=z,
                relation="<=",
                bound=agree_z,
                note=f"worst {a}/{norm} at d = {d}; {len(stats)} comparisons, Bonferroni-style z",
            )
        )
    ctrl = table.dropna(subset=["slope_wrong_kernel"]) if "slope_wrong_kernel" in table else None
    if ctrl is not None and len(ctrl):
        claims.append(
            evaluate(
                id="isometry.prop5_1.control_wrong_kernel",
                statement=(
                    "negative control: the post-LN chain of a non-centred phi compared with the "
                    "un-centred kernel kappa (not kappa_psi) does not converge with d: min slope "
                    "of the error vs log d"
                ),
                source="Thesis Thm. 5.15 proof (post-LN effective activation)",
                measured=ctrl["slope_wrong_kernel"].min(),
                relation=">=",
                bound=control_slope,
                note="cases: " + ", ".join(f"{r.law}/{r.activation}" for r in ctrl.itertuples()),
            )
        )
    return claims
