"""What the spectral lemmas' measurement (``spectral_lemmas``) and its judges
(``spectral_lemma_judges``) share, torch-free: the exponent of alpha(d) for a spiked spectrum."""

from __future__ import annotations

__all__ = ["even_spread_exponent"]


def even_spread_exponent(beta: float) -> float:
    """Asymptotic exponent of alpha(d) for the spike spectrum of
    ``spectral_lemmas._spike_spectrum`` (derived).

    alpha ~ (d^(2 beta) + d)^2 / (d (d^(3 beta) + d)): d^(beta - 1) for beta >= 1/2 (the seed's
    Eq. (89)), d^(1 - 3 beta) for 1/3 <= beta < 1/2, and d^0 (alpha -> 1) for beta < 1/3, where
    the even bulk dominates both norms.
    """
    if beta >= 0.5:
        return beta - 1
    return 1 - 3 * beta if beta >= 1 / 3 else 0.0
