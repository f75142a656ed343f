"""What the BN-chain lemmas' measurement (``bn_chain_lemmas``) and its judges
(``bn_chain_lemma_judges``) share, torch-free: Lemma 1's tau grid and matrix kinds, the round-off
allowances, and the gamma label of claim ids and experiment ids."""

from __future__ import annotations

import math

__all__ = ["FLOAT_TOLERANCE", "MATRIX_KINDS", "R_ABOVE_ONE_MARGIN", "TAU_GRID", "gamma_tag"]

TAU_GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""The tau grid of Lemma 1 (tau in [0, 1], Eq. (3))."""

MATRIX_KINDS = ("gaussian", "low_rank_noise", "near_collinear")
"""The random-matrix kinds of Lemma 1, part 1 (``bn_chain_lemmas._random_matrices``)."""

FLOAT_TOLERANCE = 1e-9
"""Round-off allowance of exact inequalities in float64. Lemma 1 is attained with equality by
matrices whose nonzero singular values are equal (e.g. rank one, r = rank = 1); r(H) is computed
with relative error ~ d * eps ~ 1e-14, so 1e-9 leaves five orders of magnitude for round-off
while any violation larger than 1e-9 counts."""

R_ABOVE_ONE_MARGIN = 1e-12
"""Lemma 5's "r(H) > 1": r must exceed the rank-one value 1 by more than this. Rank-one states
give |r - 1| <= ~1e-15 in float64; a second singular value at the footnote-2 threshold
sigma_2 = 1e-7 d sigma_1 gives r - 1 ~ 2 (1e-7 d)^2 >= 3e-13 for d >= 4."""


def gamma_tag(gamma: float) -> str:
    """A claim-id-safe label of gamma: 0.1 -> g0p1, 1 -> g1, inf -> ginf."""
    return "ginf" if math.isinf(gamma) else "g" + f"{gamma:g}".replace(".", "p").replace("-", "m")
