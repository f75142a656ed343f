"""Theorem checks of Thesis ch. 4 (isometry of normalization): Lemma 4.2, Thm. 4.3, Cor. 4.4, 4.5.

Catalog ``spec/mean_field_isometry.md`` §1.2, §2 "Chapter 4", §5, §7.1. All four results are
deterministic, so every claim is checked on random cases (n in ``n_range``, ``n_cases`` per
family) to float64 round-off. Round-off is measured in units of the first-order eigenvalue
perturbation bound: an eigensolver with backward error ~ n eps ||M|| moves log lambda_i by at
most ~ n eps kappa(M), hence the gap -log I by at most n eps kappa(M) (``roundoff_units`` of them
are allowed).

- ``lemma4_2``: I(cM) = I(M); I in [0, 1]; I = 1 iff M = c I_n; I = 0 iff M singular.
- ``theorem4_3``: unit-norm projection of the samples, I(G~) >= I(G)(1 + var(a)/abar^2)
  (Eq. (4.3)), the exact identity I(G~)/I(G) = AM(a^2)/GM(a^2), and the printed equality (4.7)
  (expected to fail: the proof drops the factor (AM(a)/GM(a))^2 >= 1).
- ``corollary4_4`` (LN, columns) and ``corollary4_5`` (BN, rows of X in R^{d x n}, d < n):
  the scaling-only operators (``ops.ln_rms``, ``ops.bn_rms``) obey the bound and the identity;
  with mean centering (``ops.ln_centered``, ``ops.bn_centered``) the corollaries fail on some
  cases: those counts are claims expected to fail (catalog: 17/2000 LN, 104/2000 BN).

Claim ids are ``isometry.<item>.<what>``; random streams ``seeding.generator(EXPERIMENT_IDS[item],
0, <family>)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd
import torch
from torch import Tensor

from .. import isometry as iso
from .. import ops, seeding
from ..claims import Claim, evaluate
from ..compute import resolve_device
from . import TheoremCheck

__all__ = [
    "DTYPE",
    "EXPERIMENT_IDS",
    "corollary4_4",
    "corollary4_5",
    "lemma4_2",
    "theorem4_3",
]

DTYPE = torch.float64
"""All checks run in float64."""

EPS = torch.finfo(DTYPE).eps

EXPERIMENT_IDS = {
    "lemma4_2": "isometry.lemma4_2",
    "theorem4_3": "isometry.theorem4_3",
    "corollary4_4": "isometry.corollary4_4",
    "corollary4_5": "isometry.corollary4_5",
}
"""Random-stream addresses (``seeding``); the stream name is the case family."""

SOURCE_LEMMA = "Thesis Lemma 4.2, Def. 4.1, Eq. (4.2)"
SOURCE_THM = "Thesis Thm. 4.3, Eq. (4.3)-(4.7)"
SOURCE_LN = "Thesis Cor. 4.4 (LN)"
SOURCE_BN = "Thesis Cor. 4.5 (BN); Thesis Eq. (6.4)"


def _check_range(n_range: Sequence[int], lo: int = 2) -> tuple[int, int]:
    n_min, n_max = (int(v) for v in n_range)
    if not lo <= n_min <= n_max:
        raise ValueError(
            f"n_range must be [n_min, n_max] with {lo} <= n_min <= n_max, got {n_range}"
        )
    return n_min, n_max


def _sizes(g: torch.Generator, count: int, n_range: Sequence[int]) -> Tensor:
    n_min, n_max = _check_range(n_range)
    if count < 1:
        raise ValueError(f"n_cases must be >= 1, got {count}")
    return torch.randint(n_min, n_max + 1, (count,), generator=g)


def _orthogonal(g: torch.Generator, c: int, n: int, device) -> Tensor:
    """c Haar-distributed orthogonal n x n matrices (QR of a Gaussian, signs fixed)."""
    q, r = torch.linalg.qr(torch.randn(c, n, n, generator=g, dtype=DTYPE, device=device))
    return q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))[..., None, :]


def _kappa(m: Tensor) -> Tensor:
    lam = torch.linalg.eigvalsh(m)
    return lam[..., -1] / lam[..., 0]


# ---------------------------------------------------------------------------------------------
# Lemma 4.2


def _lemma_cases(family: str, n_cases: int, n_range, settings: dict, device) -> list[dict]:
    """Random PSD matrices of one family, grouped by n; each group: matrices and known facts."""
    g = seeding.generator(EXPERIMENT_IDS["lemma4_2"], 0, family, device)
    kw = dict(generator=g, dtype=DTYPE, device=device)
    sizes = _sizes(
        seeding.generator(EXPERIMENT_IDS["lemma4_2"], 0, f"{family}.sizes"), n_cases, n_range
    )
    groups = []
    for n in sizes.unique().tolist():
        c = int((sizes == n).sum())
        q = _orthogonal(g, c, n, device)
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
    roundoff_units: float = 4.0,
    deficit_rtol: float = 1e-6,
    device: str = "auto",
) -> TheoremCheck:
    """Thesis Lemma 4.2 on random PSD matrices, ``n_cases`` per family.

    Families: ``wishart`` (B B^T, scale invariance: I(cM) vs I(M), c = 10^U(-6, 6)),
    ``spectrum`` (Q diag(lambda) Q^T, kappa up to 10^``max_log10_condition``: I equals the GM/AM
    of lambda, and is never 0), ``identity`` (c Q Q^T: I = 1), ``near_identity`` (c Q diag(1 +
    delta, 1, ..) Q^T, delta = 10^U(``log10_delta_range``): the gap equals its closed form
    log(1 + delta/n) - log(1 + delta)/n > 0 to relative ``deficit_rtol``, so I < 1 off c I_n),
    ``singular`` (rank < n: I = 0 exactly).
    """
    device = resolve_device(device)
    lo, hi = (float(v) for v in log10_delta_range)
    if not lo <= hi <= 0.0 or max_log10_condition < 0:
        raise ValueError(
            f"log10_delta_range must be [lo, hi] with lo <= hi <= 0 and max_log10_condition >= 0,"
            f" got {log10_delta_range}, {max_log10_condition}"
        )
    settings = dict(max_log10_condition=max_log10_condition, log10_delta_range=(lo, hi))
    families = ("wishart", "spectrum", "identity", "near_identity", "singular")
    rows = []
    for family in families:
        for group in _lemma_cases(family, n_cases, n_range, settings, device):
            n, m = group["n"], group["m"]
            gap = iso.isometry_gap(m)
            value = torch.exp(-gap)
            c = m.shape[0]
            extra = {}
            if family == "wishart":
                g = seeding.generator(EXPERIMENT_IDS["lemma4_2"], 0, f"scale.n{n}", device)
                factor = 10.0 ** (12.0 * torch.rand(c, 1, 1, generator=g, dtype=DTYPE) - 6.0)
                kappa = _kappa(m)
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
    table["roundoff"] = table["n"] * EPS * table.get("kappa", math.nan)
    table["gap_error"] = (table["gap"] - table["reference_gap"]).abs()
    fam = {f: table[table["family"] == f] for f in families}
    scale_units = (fam["wishart"]["gap_error"] / fam["wishart"]["roundoff"]).max()
    closed_units = (fam["spectrum"]["gap_error"] / fam["spectrum"]["roundoff"]).max()
    nonsingular = table[table["family"] != "singular"]
    ident = fam["identity"]
    near = fam["near_identity"]
    near_rel = (near["gap_error"] / near["reference_gap"]).max()
    unit = roundoff_units * EPS * float(table["n"].max())
    claims = [
        evaluate(
            id="isometry.lemma4_2.scale_invariance",
            statement=(
                f"I(cM) = I(M) for {len(fam['wishart'])} random Wishart M and c = 10^U(-6, 6): the "
                f"largest |gap(cM) - gap(M)| is within {roundoff_units:g} round-off unit(s) "
                "n eps kappa(M)"
            ),
            source=SOURCE_LEMMA + " part 1",
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
            source=SOURCE_LEMMA + " (proof)",
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
            source=SOURCE_LEMMA + " part 2",
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
            source=SOURCE_LEMMA + " part 3 (M = c I_n; the thesis says M = I_n)",
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
            source=SOURCE_LEMMA + " part 3 (only if)",
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
            source=SOURCE_LEMMA + " part 4",
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
            source=SOURCE_LEMMA + " part 4 (only if)",
            measured=float((nonsingular["isometry"] <= 0).sum()),
            relation="<=",
            bound=0.0,
            note=f"min I over nonsingular cases {nonsingular['isometry'].min():.3g}",
        ),
    ]
    return TheoremCheck(table=table, claims=claims)


# ---------------------------------------------------------------------------------------------
# Theorem 4.3 and Corollaries 4.4, 4.5


def _sample_cases(
    item: str,
    n_cases: int,
    n_range: Sequence[int],
    max_dim_ratio: float,
    norm_spread: float,
    equal_norm_fraction: float,
    offset_scale: float,
    device,
) -> list[tuple[int, int, Tensor]]:
    """Random vectors grouped by (k, m): ``c`` sets of k vectors in R^m, shape (c, m, k).

    k uniform in ``n_range``, m uniform in [k + 1, max(k + 1, max_dim_ratio k)] (m > k keeps the
    vectors independent after a mean centering). Vector i is exp(s z_i) (g_i + mu_i 1) /
    ||g_i + mu_i 1||, g_i standard normal, mu_i ~ N(0, t^2), s ~ U(0, norm_spread) (s = 0 for
    a fraction ``equal_norm_fraction``: equal norms, where Thm. 4.3 is an equality), t ~ U(0,
    offset_scale): its norm is exactly a_i = exp(s z_i), and its mean is ~ mu_i.
    """
    if max_dim_ratio < 1 or norm_spread < 0 or offset_scale < 0:
        raise ValueError(
            f"need max_dim_ratio >= 1, norm_spread >= 0, offset_scale >= 0, got "
            f"{max_dim_ratio}, {norm_spread}, {offset_scale}"
        )
    if not 0 <= equal_norm_fraction <= 1:
        raise ValueError(f"equal_norm_fraction must be in [0, 1], got {equal_norm_fraction}")
    g = seeding.generator(EXPERIMENT_IDS[item], 0, "cases")
    k = _sizes(g, n_cases, n_range)
    top = torch.clamp((max_dim_ratio * k).floor().long(), min=k + 1)
    m = k + 1 + (torch.rand(n_cases, generator=g, dtype=DTYPE) * (top - k)).floor().long()
    m = torch.minimum(m, top)
    gd = seeding.generator(EXPERIMENT_IDS[item], 0, "vectors", device)
    kw = dict(generator=gd, dtype=DTYPE, device=device)
    groups = []
    for km in torch.unique(torch.stack([k, m], -1), dim=0).tolist():
        kk, mm = km
        c = int(((k == kk) & (m == mm)).sum())
        v = torch.randn(c, mm, kk, **kw)
        v = v + torch.randn(c, 1, kk, **kw) * offset_scale * torch.rand(c, 1, 1, **kw)
        s = norm_spread * torch.rand(c, 1, 1, **kw)
        s = torch.where(torch.rand(c, 1, 1, **kw) < equal_norm_fraction, 0.0, s)
        a = torch.exp(s * torch.randn(c, 1, kk, **kw))
        groups.append((kk, mm, a * v / torch.linalg.vector_norm(v, dim=-2, keepdim=True)))
    return groups


def _normalization_table(
    groups, operators: dict[str, Callable[[Tensor], Tensor]], rows_are_vectors: bool
) -> pd.DataFrame:
    """Per case and operator: gaps before and after, the Thm. 4.3 factors, round-off scale.

    ``rows_are_vectors`` (Cor. 4.5): X = y^T has the vectors as rows, C = X X^T; otherwise (Thm.
    4.3, Cor. 4.4) the vectors are the columns of x = y and G = x^T x.
    """
    rows = []
    for k, m, y in groups:
        x = y.mT if rows_are_vectors else y
        as_gram = (lambda h: iso.gram(h.mT)) if rows_are_vectors else iso.gram
        a = torch.linalg.vector_norm(y, dim=-2)  # norms of the k vectors
        before = as_gram(x)
        gap = iso.isometry_gap(before)
        kappa = _kappa(before)
        log_factor = iso.norm_variation(a).log()
        log_amgm = iso.am_over_gm(a.square()).log()
        for name, op in operators.items():
            after = as_gram(op(x))
            gap_after = iso.isometry_gap(after)
            roundoff = k * EPS * (kappa + _kappa(after))
            for i in range(y.shape[0]):
                rows.append(
                    dict(
                        operator=name,
                        vectors=k,
                        dim=m,
                        gap_before=gap[i].item(),
                        gap_after=gap_after[i].item(),
                        log_gain=(gap[i] - gap_after[i]).item(),
                        log_norm_variation=log_factor[i].item(),
                        log_am_gm_a2=log_amgm[i].item(),
                        roundoff=roundoff[i].item(),
                    )
                )
    table = pd.DataFrame(rows)
    table["bound_margin"] = table["log_gain"] - table["log_norm_variation"]
    table["identity_error"] = (table["log_gain"] - table["log_am_gm_a2"]).abs()
    return table


def _scaling_claims(
    table: pd.DataFrame, prefix: str, what: str, source: str, units: float, note: str
) -> list[Claim]:
    """Bound (4.3) and the exact AM/GM identity for a scaling-only normalization."""
    return [
        evaluate(
            id=f"{prefix}bound",
            statement=(
                f"{what}: I(G~) >= I(G)(1 + var(a)/abar^2) on {len(table)} random cases; measured "
                "is min over cases of [log I(G~) - log I(G) - log(1 + var(a)/abar^2)] in units of "
                f"n eps (kappa(G) + kappa(G~)), >= 0 within {units:g} unit(s)"
            ),
            source=source,
            measured=(table["bound_margin"] / table["roundoff"]).min(),
            relation=">=",
            bound=0.0,
            tolerance=units,
            note=(
                f"min log I(G~)/I(G) = {table['log_gain'].min():.3g} (isometry never decreases); "
                f"min absolute margin {table['bound_margin'].min():.3g}; " + note
            ),
        ),
        evaluate(
            id=f"{prefix}exact_identity",
            statement=(
                f"{what}: I(G~)/I(G) = AM(a^2)/GM(a^2) = (1 + var(a)/abar^2)(AM(a)/GM(a))^2 on "
                f"{len(table)} random cases; measured is the largest |log-ratio error| in units "
                f"of n eps (kappa(G) + kappa(G~)), within {units:g}"
            ),
            source=source + " (exact form, spec mean_field_isometry §2)",
            measured=(table["identity_error"] / table["roundoff"]).max(),
            relation="<=",
            bound=0.0,
            tolerance=units,
            note=f"largest absolute log error {table['identity_error'].max():.3g}",
        ),
    ]


def _centered_claims(
    table: pd.DataFrame, prefix: str, what: str, source: str, units: float, catalog: str
) -> list[Claim]:
    """Counts of counter-examples of the corollary with mean centering (expected to fail)."""
    tol = units * table["roundoff"]
    decreases = int((table["log_gain"] < -tol).sum())
    violations = int((table["bound_margin"] < -tol).sum())
    note = (
        f"The corollary is stated for the scaling operator; with centering it fails. Catalog: "
        f"{catalog}. Worst log I(G~)/I(G) = {table['log_gain'].min():.3g}."
    )
    return [
        evaluate(
            id=f"{prefix}centered_never_decreases",
            statement=(
                f"{what} with mean centering never decreases isometry, I(G~) >= I(G), on "
                f"{len(table)} random cases: measured is the number of cases where it decreases "
                "beyond round-off (EXPECTED TO FAIL)"
            ),
            source=source + " (centred variant)",
            measured=float(decreases),
            relation="<=",
            bound=0.0,
            note=note,
            details={"cases": len(table), "decreases": decreases},
        ),
        evaluate(
            id=f"{prefix}centered_bound",
            statement=(
                f"{what} with mean centering obeys I(G~) >= I(G)(1 + var(a)/abar^2), a = norms "
                f"before, on {len(table)} random cases: measured is the number of violations "
                "(EXPECTED TO FAIL)"
            ),
            source=source + " (centred variant)",
            measured=float(violations),
            relation="<=",
            bound=0.0,
            note=note,
            details={"cases": len(table), "violations": violations},
        ),
    ]


def theorem4_3(
    *,
    n_cases: int = 2000,
    n_range: Sequence[int] = (2, 50),
    max_dim_ratio: float = 3.0,
    norm_spread: float = 1.5,
    equal_norm_fraction: float = 0.1,
    offset_scale: float = 2.0,
    roundoff_units: float = 4.0,
    device: str = "auto",
) -> TheoremCheck:
    """Thesis Thm. 4.3: normalizing samples to the sphere never lowers the isometry of the Gram.

    x_i -> x_i / ||x_i|| via ``ops.ln_rms`` (the sqrt(d)-sphere; I is scale invariant). Claims:
    the bound (4.3), the exact identity I(G~)/I(G) = AM(a^2)/GM(a^2), and the printed equality
    (4.7) I(G~)/I(G) = 1 + var(a)/abar^2, which is expected to FAIL (the step (4.6) -> (4.7) drops
    the factor (AM(a)/GM(a))^2 >= 1; (4.6) also prints (1/d) sum a_i^2 for (1/n) sum a_i^2).
    """
    device = resolve_device(device)
    groups = _sample_cases(
        "theorem4_3", n_cases, n_range, max_dim_ratio, norm_spread, equal_norm_fraction,
        offset_scale, device,
    )  # fmt: skip
    table = _normalization_table(groups, {"sphere": ops.ln_rms}, rows_are_vectors=False)
    prefix = "isometry.theorem4_3."
    claims = _scaling_claims(
        table, prefix, "unit-norm projection x_i / ||x_i||", SOURCE_THM, roundoff_units,
        "population variance (1/n), as Eq. (4.3).",
    )  # fmt: skip
    printed_gap = (table["log_gain"] - table["log_norm_variation"]).abs()
    claims.append(
        evaluate(
            id=f"{prefix}printed_equality_4_7",
            statement=(
                "the proof's last step (4.6) -> (4.7): I(G~)/I(G) = 1 + var(a)/abar^2 exactly; "
                "measured is the largest |log I(G~)/I(G) - log(1 + var(a)/abar^2)| = 2 log(AM(a)/"
                f"GM(a)) over {len(table)} cases in units of n eps (kappa(G) + kappa(G~)), 0 "
                f"within {roundoff_units:g} unit(s) (EXPECTED TO FAIL)"
            ),
            source=SOURCE_THM + " (printed equality (4.7); erratum)",
            measured=(printed_gap / table["roundoff"]).max(),
            relation="<=",
            bound=0.0,
            tolerance=roundoff_units,
            note=(
                f"largest absolute log gap {printed_gap.max():.3g}. (4.6) = (AM(a)/GM(a))^2 "
                "(1 + var(a)/abar^2) >= (4.7): the inequality (4.3) "
                "holds, the printed '=' does not (equality only for equal norms). (4.6) also "
                "prints (1/d) sum a_i^2 where (1/n) sum a_i^2 is meant."
            ),
        )
    )
    return TheoremCheck(table=table, claims=claims)


def corollary4_4(
    *,
    n_cases: int = 2000,
    n_range: Sequence[int] = (2, 50),
    max_dim_ratio: float = 3.0,
    norm_spread: float = 1.5,
    equal_norm_fraction: float = 0.1,
    offset_scale: float = 2.0,
    roundoff_units: float = 4.0,
    device: str = "auto",
) -> TheoremCheck:
    """Thesis Cor. 4.4: LN of n samples in R^d (d > n) and the bound of Thm. 4.3.

    LN as the thesis reads it, the projection onto the sqrt(d)-sphere (``ops.ln_rms`` = RMSNorm):
    bound and exact identity to round-off. LN with mean centering (``ops.ln_centered``): the
    numbers of cases where isometry decreases, and where the bound fails, are claims expected
    to fail (spec mean_field_isometry §2, §7.1).
    """
    device = resolve_device(device)
    groups = _sample_cases(
        "corollary4_4", n_cases, n_range, max_dim_ratio, norm_spread, equal_norm_fraction,
        offset_scale, device,
    )  # fmt: skip
    ops_ = {"ln_rms": ops.ln_rms, "ln_centered": ops.ln_centered}
    table = _normalization_table(groups, ops_, rows_are_vectors=False)
    prefix = "isometry.corollary4_4."
    claims = _scaling_claims(
        table[table["operator"] == "ln_rms"], prefix + "scaling_", "LN = RMSNorm (ops.ln_rms)",
        SOURCE_LN, roundoff_units, "LN as the projection onto the sqrt(d)-sphere.",
    )  # fmt: skip
    claims += _centered_claims(
        table[table["operator"] == "ln_centered"], prefix, "LN (ops.ln_centered)", SOURCE_LN,
        roundoff_units, "isometry decreased in 17/2000 random cases",
    )  # fmt: skip
    return TheoremCheck(table=table, claims=claims)


def corollary4_5(
    *,
    n_cases: int = 2000,
    n_range: Sequence[int] = (2, 50),
    max_dim_ratio: float = 3.0,
    norm_spread: float = 1.5,
    equal_norm_fraction: float = 0.1,
    offset_scale: float = 2.0,
    roundoff_units: float = 4.0,
    device: str = "auto",
) -> TheoremCheck:
    """Thesis Cor. 4.5: BN of X in R^{d x n} (d < n; d in ``n_range``), C = X X^T, a_i = ||X_i.||.

    BN as the thesis's theory reads it, the row scaling diag(X X^T)^{-1/2} X (Eq. (6.4)) =
    ``ops.bn_rms`` up to the factor sqrt(n): bound and identity to round-off. BN with centering
    (``ops.bn_centered``): counter-example counts, expected to fail. abar is printed with 1/n;
    we use 1/d (the mean of the d row norms), the evident intent.
    """
    device = resolve_device(device)
    groups = _sample_cases(
        "corollary4_5", n_cases, n_range, max_dim_ratio, norm_spread, equal_norm_fraction,
        offset_scale, device,
    )  # fmt: skip
    ops_ = {"bn_rms": ops.bn_rms, "bn_centered": ops.bn_centered}
    table = _normalization_table(groups, ops_, rows_are_vectors=True)
    table = table.rename(columns={"vectors": "d", "dim": "n"})
    prefix = "isometry.corollary4_5."
    claims = _scaling_claims(
        table[table["operator"] == "bn_rms"], prefix + "scaling_",
        "BN = row scaling diag(X X^T)^{-1/2} X (ops.bn_rms), C = X X^T", SOURCE_BN,
        roundoff_units, "abar = (1/d) sum_i a_i (printed with 1/n: typo).",
    )  # fmt: skip
    claims += _centered_claims(
        table[table["operator"] == "bn_centered"], prefix, "BN (ops.bn_centered)", SOURCE_BN,
        roundoff_units, "isometry decreased in 104/2000 random cases",
    )  # fmt: skip
    return TheoremCheck(table=table, claims=claims)
