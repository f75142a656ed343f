"""Thesis Lemma 4.2: the isometry I(M) = det(M)^{1/n} / (tr(M)/n) (Def. 4.1, Eq. (4.2)) is scale
invariant, lies in [0, 1], is 1 only at c I_n and 0 only at singular M.

The lemma is deterministic, so it is checked on random PSD matrices (n in ``n_range``,
``n_cases`` per family) to float64 round-off. Round-off is measured in units of the first-order
eigenvalue perturbation bound: an eigensolver with backward error ~ n eps ||M|| moves log lambda_i
by at most ~ n eps kappa(M), hence the gap -log I by at most n eps kappa(M) (``roundoff_units`` of
them are allowed).

``lemma4_2`` measures (random streams ``seeding.generator("isometry.lemma4_2", 0, <family>)``);
``lemma4_2_claims`` judges its table.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import torch

from ... import isometry as iso
from ... import seeding
from ...claims import Claim, evaluate
from ...compute import resolve_device
from .random_cases import DTYPE, EPS, condition_number, haar_orthogonal, sizes

__all__ = ["EXPERIMENT_ID", "FAMILIES", "lemma4_2", "lemma4_2_claims"]

EXPERIMENT_ID = "isometry.lemma4_2"
"""Random-stream address (``seeding``); the stream name is the case family."""

FAMILIES = ("wishart", "spectrum", "identity", "near_identity", "singular")
"""The random matrix families of Lemma 4.2's cases (see ``lemma4_2``)."""

SOURCE = "Thesis Lemma 4.2, Def. 4.1, Eq. (4.2)"


def _delta_range(log10_delta_range: Sequence[float]) -> tuple[float, float]:
    lo, hi = (float(v) for v in log10_delta_range)
    return lo, hi


def _cases(family: str, n_cases: int, n_range, settings: dict, device) -> list[dict]:
    """Random PSD matrices of one family, grouped by n; each group: matrices and known facts."""
    g = seeding.generator(EXPERIMENT_ID, 0, family, device)
    kw = dict(generator=g, dtype=DTYPE, device=device)
    n_of_case = sizes(seeding.generator(EXPERIMENT_ID, 0, f"{family}.sizes"), n_cases, n_range)
    groups = []
    for n in n_of_case.unique().tolist():
        c = int((n_of_case == n).sum())
        q = haar_orthogonal(g, c, n, device)
        if family == "wishart":  # B B^T, B n x 2n with spread column norms
            spread = torch.exp(torch.rand(c, 1, 1, **kw) * torch.randn(c, 1, 2 * n, **kw))
            b = torch.randn(c, n, 2 * n, **kw) * spread
            m = b @ b.mT
            groups.append(dict(n=n, m=m))
            continue
        if family == "spectrum":  # Q diag(lambda) Q^T, log10 kappa up to max_log10_condition
            span = torch.rand(c, 1, **kw) * settings["max_log10_condition"]
            lam = 10.0 ** (-span * torch.rand(c, n, **kw))
        elif family == "identity":  # c Q I Q^T
            lam = torch.ones(c, n, dtype=DTYPE, device=device)
        elif family == "near_identity":  # Q diag(1 + delta, 1, ..., 1) Q^T
            lo, hi = settings["log10_delta_range"]
            delta = 10.0 ** (lo + (hi - lo) * torch.rand(c, **kw))
            lam = torch.ones(c, n, dtype=DTYPE, device=device)
            lam[:, 0] += delta
        elif family == "singular":  # rank k < n: lambda_{k+1..n} = 0
            rank = torch.randint(1, n, (c, 1), generator=g, device=device)
            lam = (torch.arange(n, device=device) < rank).to(DTYPE) * (0.5 + torch.rand(c, n, **kw))
        else:
            raise ValueError(f"unknown family {family!r}")
        scale = 10.0 ** (12.0 * torch.rand(c, 1, 1, **kw) - 6.0)
        m = scale * (q * lam[:, None, :]) @ q.mT
        m = (m + m.mT) / 2
        groups.append(dict(n=n, m=m, lam=lam))
    return groups


def lemma4_2(
    *,
    n_cases: int = 2000,
    n_range: Sequence[int] = (2, 50),
    max_log10_condition: float = 8.0,
    log10_delta_range: Sequence[float] = (-2.0, 0.0),
    device: str = "auto",
) -> pd.DataFrame:
    """Thesis Lemma 4.2 on random PSD matrices, ``n_cases`` per family: the measured table.

    Families: ``wishart`` (B B^T, scale invariance: I(cM) vs I(M), c = 10^U(-6, 6)),
    ``spectrum`` (Q diag(lambda) Q^T, kappa up to 10^``max_log10_condition``: I equals the GM/AM
    of lambda, and is never 0), ``identity`` (c Q Q^T: I = 1), ``near_identity`` (c Q diag(1 +
    delta, 1, ..) Q^T, delta = 10^U(``log10_delta_range``): the gap against its closed form
    log(1 + delta/n) - log(1 + delta)/n > 0), ``singular`` (rank < n: I = 0 exactly).

    Returns:
        one row per matrix: family, n, isometry, gap (-log I), reference_gap (the gap of cM, or
        the closed form from lambda; NaN for singular M), kappa (condition number), roundoff
        (n eps kappa) and gap_error (|gap - reference_gap|).
    """
    device = resolve_device(device)
    lo, hi = _delta_range(log10_delta_range)
    if not lo <= hi <= 0.0 or max_log10_condition < 0:
        raise ValueError(
            f"log10_delta_range must be [lo, hi] with lo <= hi <= 0 and max_log10_condition >= 0,"
            f" got {log10_delta_range}, {max_log10_condition}"
        )
    settings = dict(max_log10_condition=max_log10_condition, log10_delta_range=(lo, hi))
    rows = []
    for family in FAMILIES:
        for group in _cases(family, n_cases, n_range, settings, device):
            n, m = group["n"], group["m"]
            gap = iso.isometry_gap(m)
            value = torch.exp(-gap)
            c = m.shape[0]
            extra = {}
            if family == "wishart":
                g = seeding.generator(EXPERIMENT_ID, 0, f"scale.n{n}", device)
                factor = 10.0 ** (12.0 * torch.rand(c, 1, 1, generator=g, dtype=DTYPE) - 6.0)
                kappa = condition_number(m)
                extra = dict(reference_gap=iso.isometry_gap(factor.to(device) * m), kappa=kappa)
            elif family != "singular":
                lam = group["lam"]
                closed = lam.mean(-1).log() - lam.log().mean(-1)
                extra = dict(reference_gap=closed, kappa=lam.amax(-1) / lam.amin(-1))
            for i in range(c):
                rows.append(
                    dict(
                        family=family,
                        n=n,
                        isometry=value[i].item(),
                        gap=gap[i].item(),
                        **{k: v[i].item() for k, v in extra.items()},
                    )
                )
    table = pd.DataFrame(rows)
    table["roundoff"] = table["n"] * EPS * table["kappa"]
    table["gap_error"] = (table["gap"] - table["reference_gap"]).abs()
    return table


def lemma4_2_claims(
    table: pd.DataFrame,
    *,
    max_log10_condition: float,
    log10_delta_range: Sequence[float],
    roundoff_units: float,
    deficit_rtol: float,
    **_settings,
) -> list[Claim]:
    """The seven claims of Lemma 4.2 from ``lemma4_2``'s table.

    Args:
        table: the measured table (one row per matrix).
        max_log10_condition, log10_delta_range: the measurement's settings (for the statements).
        roundoff_units: allowed gap error in units of n eps kappa(M).
        deficit_rtol: relative error allowed on the near-identity gap.
    """
    lo, hi = _delta_range(log10_delta_range)
    fam = {f: table[table["family"] == f] for f in FAMILIES}
    scale_units = (fam["wishart"]["gap_error"] / fam["wishart"]["roundoff"]).max()
    closed_units = (fam["spectrum"]["gap_error"] / fam["spectrum"]["roundoff"]).max()
    nonsingular = table[table["family"] != "singular"]
    ident = fam["identity"]
    near = fam["near_identity"]
    near_rel = (near["gap_error"] / near["reference_gap"]).max()
    unit = roundoff_units * EPS * float(table["n"].max())
    return [
        evaluate(
            id="isometry.lemma4_2.scale_invariance",
            statement=(
                f"I(cM) = I(M) for {len(fam['wishart'])} random Wishart M and c = 10^U(-6, 6): the "
                f"largest |gap(cM) - gap(M)| is within {roundoff_units:g} round-off unit(s) "
                "n eps kappa(M)"
            ),
            source=SOURCE + " part 1",
            measured=scale_units,
            relation="<=",
            bound=0.0,
            tolerance=roundoff_units,
            note=f"max absolute gap difference {fam['wishart']['gap_error'].max():.3g}",
        ),
        evaluate(
            id="isometry.lemma4_2.gm_over_am",
            statement=(
                f"I(M) = GM/AM of M's eigenvalues (Eq. (4.2) in eigenvalues) for "
                f"{len(fam['spectrum'])} M = Q diag(lambda) Q^T with kappa up to "
                f"1e{max_log10_condition:g}, within {roundoff_units:g} round-off unit(s)"
            ),
            source=SOURCE + " (proof)",
            measured=closed_units,
            relation="<=",
            bound=0.0,
            tolerance=roundoff_units,
            note=f"max absolute gap error {fam['spectrum']['gap_error'].max():.3g}",
        ),
        evaluate(
            id="isometry.lemma4_2.unit_range",
            statement=(
                f"I(M) <= 1 on all {len(table)} cases (I >= 0 holds by construction, I = "
                f"exp(-gap)), within {roundoff_units:g} x n_max eps"
            ),
            source=SOURCE + " part 2",
            measured=table["isometry"].max(),
            relation="<=",
            bound=1.0,
            tolerance=unit,
            note=f"min I = {table['isometry'].min():.3g}",
        ),
        evaluate(
            id="isometry.lemma4_2.one_at_identity",
            statement=(
                f"I(c Q I_n Q^T) = 1 for {len(ident)} random c, Q: the largest |1 - I| is within "
                f"{roundoff_units:g} x n_max eps"
            ),
            source=SOURCE + " part 3 (M = c I_n; the thesis says M = I_n)",
            measured=(1.0 - ident["isometry"]).abs().max(),
            relation="<=",
            bound=0.0,
            tolerance=unit,
        ),
        evaluate(
            id="isometry.lemma4_2.below_one_off_identity",
            statement=(
                f"off c I_n, I < 1: for {len(near)} M = c Q diag(1 + delta, 1, .., 1) Q^T, "
                "delta in "
                f"[1e{lo:g}, 1e{hi:g}], the gap equals log(1 + delta/n) - log(1 + delta)/n > 0 "
                f"within relative {deficit_rtol:g}"
            ),
            source=SOURCE + " part 3 (only if)",
            measured=near_rel,
            relation="<=",
            bound=0.0,
            tolerance=deficit_rtol,
            note=(
                f"smallest closed-form gap {near['reference_gap'].min():.3g}, largest measured I "
                f"{near['isometry'].max():.12f}; tolerance: 100 x n eps / min gap"
            ),
        ),
        evaluate(
            id="isometry.lemma4_2.zero_iff_singular",
            statement=(
                f"I(M) = 0 for all {len(fam['singular'])} singular M (rank < n): measured is the "
                "number with I > 0"
            ),
            source=SOURCE + " part 4",
            measured=float((fam["singular"]["isometry"] > 0).sum()),
            relation="<=",
            bound=0.0,
            note="singular = smallest eigenvalue <= n eps lambda_max (isometry.isometry_gap)",
        ),
        evaluate(
            id="isometry.lemma4_2.positive_if_nonsingular",
            statement=(
                f"I(M) > 0 for all {len(nonsingular)} nonsingular M (kappa up to "
                f"1e{max_log10_condition:g}): measured is the number with I = 0"
            ),
            source=SOURCE + " part 4 (only if)",
            measured=float((nonsingular["isometry"] <= 0).sum()),
            relation="<=",
            bound=0.0,
            note=f"min I over nonsingular cases {nonsingular['isometry'].min():.3g}",
        ),
    ]
