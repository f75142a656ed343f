"""Dan+20 Cor. 15 on the BN chain of Eq. (1): rank_tau at every recorded layer, not only on
average, and the corollary's own assumption that rank_tau is non-increasing along the chain.

Cor. 15: under Thm. 14, rank_tau(H_l) = Omega((1 - tau)^2 sqrt(d)) for all finite l, *assuming*
{rank_tau(H_l)} is non-increasing. The constant is Thm. 14's, (1 - tau)^2 sqrt((1 - alpha) d)
(Eq. (62), ``bn_chain_tables.theorem14_floor``), with alpha estimated from the same chain
(``bn_chain_tables.ergodic_averages``, Eq. (49)). The table (``bn_chain_tables.cor15_table``)
reads the cached ``bn_chain`` simulation.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from ...engine.stats import exact
from ...verdicts.claims import Claim, Record
from .records import judge

__all__ = ["cor15_claims"]

SOURCE = "Dan+20 Cor. 15 (with Thm. 14, Eq. (62))"


COR15 = (
    Record(
        "min_rank_tau{tau:g}",
        "rank_{tau:g}(H_l) >= (1 - tau)^2 sqrt((1 - alpha_hat) d) at every recorded layer of "
        "every chain (not only on average, Thm. 14): measured is the smallest min_l rank_tau / "
        "bound over chains ({where})",
        SOURCE, "paper", "worst", ">=", 1.0,
        note="a property of the sample (the smallest over all {chains} chains and their "
        "recorded layers), so exact; the bound uses each chain's own alpha_hat",
    ),
    Record(
        "monotone_tau{tau:g}",
        "the assumption of Cor. 15 as stated, rank_{tau:g}(H_l) non-increasing in l: some chain "
        "raises rank_tau in at most {min_increase_fraction:g} of the steps between recorded "
        "layers; measured is the smallest fraction of raising steps over chains ({rarest})",
        SOURCE + " (assumption, as stated); catalog note: it fails in simulation", "erratum",
        "rarest_fraction", "<=", "min_increase_fraction",
        pair="rank_collapse.cor15.min_rank_tau{tau:g}",
        note="the corollary's conclusion is checked without the assumption in min_rank_tau; a "
        "property of the sample (the smallest over chains), so exact",
        tolerance_reason="wording: Cor. 15 'Assuming that {{rank_tau(H_l)}} is a monotonically "
        "no-increasing sequence': read as rank_tau rising in at most {min_increase_fraction:g} "
        "of the steps of some chain - our threshold, cor15.min_increase_fraction (our reference "
        "runs: 7-14% of steps rise)",
    ),
)  # fmt: skip


def cor15_claims(table: pd.DataFrame, min_increase_fraction: float) -> list[Claim]:
    """Per tau: the bound holds at every recorded layer of every chain (the smallest ratio over
    gamma, width and run is >= 1); and the monotonicity the corollary assumes is violated (the
    smallest fraction of rising steps over chains is >= ``min_increase_fraction``), an erratum
    paired with the first claim."""
    claims = []
    for tau, part in table.groupby("tau", sort=True):
        worst = part.loc[part["ratio"].idxmin()]
        rarest = part.loc[part["increase_fraction"].idxmin()]
        context = {
            "tau": tau, "chains": len(part), "min_increase_fraction": min_increase_fraction,
            "where": f"d={int(worst['width'])}, gamma={worst['gamma']:g}, run {int(worst['run'])}",
            "rarest": f"d={int(rarest['width'])}, gamma={rarest['gamma']:g}",
            "worst": exact(worst["ratio"]), "rarest_fraction": exact(rarest["increase_fraction"]),
        }  # fmt: skip
        records = [r if not r.pair else replace(r, pair=r.pair.format(tau=tau)) for r in COR15]
        claims += judge(records, context, "rank_collapse.cor15.")
    return claims
