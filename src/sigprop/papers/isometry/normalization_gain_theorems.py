"""Thesis Thm. 4.3 and Cors. 4.4, 4.5: normalizing samples never lowers the isometry of the Gram.

All three results are deterministic, so every claim is checked on random cases (n in
``n_range``, ``n_cases`` of them) to float64 round-off, in units of n eps (kappa(G) + kappa(G~))
(first-order eigenvalue perturbation; ``roundoff_units`` of them are allowed).

- ``theorem4_3``: unit-norm projection of the samples, I(G~) >= I(G)(1 + var(a)/abar^2)
  (Eq. (4.3)), the exact identity I(G~)/I(G) = AM(a^2)/GM(a^2), and the printed equality (4.7)
  (expected to fail: the proof drops the factor (AM(a)/GM(a))^2 >= 1).
- ``corollary4_4`` (LN, columns) and ``corollary4_5`` (BN, rows of X in R^{d x n}, d < n):
  the scaling-only operators (``ops.ln_rms``, ``ops.bn_rms``) obey the bound and the identity;
  with mean centering (``ops.ln_centered``, ``ops.bn_centered``) the corollaries fail on some
  cases: those counts are claims expected to fail.

Each item has a measurement (``theorem4_3``, ...: the table, one row per case and operator) and a
judge (``normalization_gain_judges.theorem4_3_claims``, ..., torch-free). Claim ids are
``isometry.<item>.<what>``; random streams ``seeding.generator(EXPERIMENT_IDS[item], 0, "cases" |
"vectors")``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import torch
from torch import Tensor

from ...engine import gram_isometry as iso
from ...engine import ops, seeding
from ...engine.devices import resolve_device
from .random_cases import DTYPE, EPS, condition_number, sizes

__all__ = [
    "EXPERIMENT_IDS",
    "corollary4_4",
    "corollary4_5",
    "theorem4_3",
]

EXPERIMENT_IDS = {
    "theorem4_3": "isometry.theorem4_3",
    "corollary4_4": "isometry.corollary4_4",
    "corollary4_5": "isometry.corollary4_5",
}
"""Random-stream addresses (``seeding``)."""


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
    k = sizes(g, n_cases, n_range)
    top = torch.clamp((max_dim_ratio * k).floor().long(), min=k + 1)
    m = k + 1 + (torch.rand(n_cases, generator=g, dtype=DTYPE) * (top - k)).floor().long()
    m = torch.minimum(m, top)
    gd = seeding.generator(EXPERIMENT_IDS[item], 0, "vectors")
    draws = seeding.Draws(gd, DTYPE, device)
    groups = []
    for km in torch.unique(torch.stack([k, m], -1), dim=0).tolist():
        kk, mm = km
        c = int(((k == kk) & (m == mm)).sum())
        v = draws.randn(c, mm, kk)
        v = v + draws.randn(c, 1, kk) * offset_scale * draws.rand(c, 1, 1)
        s = norm_spread * draws.rand(c, 1, 1)
        s = torch.where(draws.rand(c, 1, 1) < equal_norm_fraction, 0.0, s)
        a = torch.exp(s * draws.randn(c, 1, kk))
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
        kappa = condition_number(before)
        log_factor = iso.norm_variation(a).log()
        log_amgm = iso.am_over_gm(a.square()).log()
        for name, op in operators.items():
            after = as_gram(op(x))
            gap_after = iso.isometry_gap(after)
            roundoff = k * EPS * (kappa + condition_number(after))
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


def _measurement(item: str, operators: dict[str, str], rows_are_vectors: bool, doc: str):
    """The measurement of ``item``: ``_normalization_table`` of its random cases
    (``_sample_cases``) under ``operators`` (label -> name of the ``ops`` function, looked up at
    the call); with ``rows_are_vectors`` the columns ``vectors``, ``dim`` are named ``d``, ``n``."""

    def measure(
        *,
        n_cases: int,
        n_range: Sequence[int],
        max_dim_ratio: float,
        norm_spread: float,
        equal_norm_fraction: float,
        offset_scale: float,
        device: str = "auto",
    ) -> pd.DataFrame:
        device = resolve_device(device)
        groups = _sample_cases(
            item, n_cases, n_range, max_dim_ratio, norm_spread, equal_norm_fraction,
            offset_scale, device,
        )  # fmt: skip
        ops_ = {label: getattr(ops, name) for label, name in operators.items()}
        table = _normalization_table(groups, ops_, rows_are_vectors)
        return table.rename(columns={"vectors": "d", "dim": "n"}) if rows_are_vectors else table

    measure.__name__ = measure.__qualname__ = item
    measure.__doc__ = doc
    return measure


theorem4_3 = _measurement(
    "theorem4_3", {"sphere": "ln_rms"}, False,
    """Thesis Thm. 4.3: x_i -> x_i / ||x_i|| via ``ops.ln_rms`` (the sqrt(d)-sphere; I is scale
    invariant); one row per case with the gaps before and after, the factors of Eq. (4.3) and the
    round-off scale (``_normalization_table``).""",
)  # fmt: skip

corollary4_4 = _measurement(
    "corollary4_4", {"ln_rms": "ln_rms", "ln_centered": "ln_centered"}, False,
    """Thesis Cor. 4.4: LN of n samples in R^d (d > n); one row per (case, operator).

    LN as the thesis reads it, the projection onto the sqrt(d)-sphere (``ops.ln_rms`` = RMSNorm),
    and LN with mean centering (``ops.ln_centered``).
    """,
)  # fmt: skip

corollary4_5 = _measurement(
    "corollary4_5", {"bn_rms": "bn_rms", "bn_centered": "bn_centered"}, True,
    """Thesis Cor. 4.5: BN of X in R^{d x n} (d < n; d in ``n_range``), C = X X^T, a_i = ||X_i.||;
    one row per (case, operator), columns ``d`` (rows) and ``n`` (samples).

    BN as the thesis's theory reads it, the row scaling diag(X X^T)^{-1/2} X (Eq. (6.4)) =
    ``ops.bn_rms`` up to the factor sqrt(n), and BN with centering (``ops.bn_centered``).
    """,
)  # fmt: skip
