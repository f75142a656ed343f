"""What the initialization theorems' measurement (``init_theorems``) and its judges
(``init_theorem_judges``) share, torch-free: the settings both read."""

from __future__ import annotations

__all__ = [
    "DIRICHLET_ALPHAS",
    "FLOAT_TOLERANCE",
    "INIT_BATCH_FACTOR",
    "MATRIX_KINDS",
    "STRICT_MIN_V2",
]


FLOAT_TOLERANCE = 1e-12
"""Round-off allowance of identities between O(1) quantities computed in float64 from an SVD:
the sums over n <= 256 terms of products of singular values carry relative errors ~ n eps ~ 6e-14,
so 1e-12 leaves a factor ~20 while a wrong formula errs by O(V) >= 1e-4 here."""


STRICT_MIN_V2 = 1e-8
"""Spectra with V(H)^2 below this are too close to flat for a relative margin: the margin's
round-off (~1e-14) would be 1e-6 of V(H)^2 or more."""


DIRICHLET_ALPHAS = (0.5, 1.0, 10.0, 1000.0)
"""Random normalized squared spectra p = sigma^2 ~ Dirichlet(alpha 1_n): spread (0.5, 1) to nearly
flat (1000). alpha >= 0.5 keeps sigma_n^2 far above round-off (DJB21 App. E assumes A_1, a
positive sigma_n); alpha = 0.1 would put some sigma_n^2 below 1e-25, where the strict margin
2 sqrt(sigma_n^2) drowns in round-off."""


MATRIX_KINDS = ("gaussian", "correlated", "near_isotropic")
"""Random H of part (b): i.i.d. N(0, 1); N(0, 1) plus a common random row offset 2 m, m ~ N(0, I_d)
(correlated samples, large V); orthonormal columns (or rows when n > d) plus N(0, 1e-4 / max(d, n))
noise (small but nonzero V)."""


INIT_BATCH_FACTOR = 3
"""n = 3 width samples in the initialization batch, as in the authors' ``improved_init`` [code]."""
