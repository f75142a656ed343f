"""What the Jacobian theorems' measurement (``jacobian_theorems``, ``bn_jacobian``) and its
judges (``jacobian_theorem_judges``) share, torch-free: Eq. (C.108)'s contraction factor and
app. C.3's late window."""

from __future__ import annotations

__all__ = ["c108_factor", "late_window"]


def c108_factor(d: int) -> float:
    """E sqrt(psi') <= (1 - 1/(32 d^4)) sqrt(psi) for psi <= 1/(16 d), Thesis Eq. (C.108)."""
    return 1.0 - 1.0 / (32.0 * d**4)


def late_window(depth: int, late_from: float) -> tuple[int, int]:
    """Layers [late_from L, L - 1] of the late slope of Lemma C.12's cumulative sum."""
    if not 0 < late_from < 1:
        raise ValueError(f"late_from must be in (0, 1), got {late_from}")
    window = (int(late_from * depth), depth - 1)
    if window[1] - window[0] < 2:
        raise ValueError(f"depth {depth} leaves fewer than 3 layers after late_from {late_from}")
    return window
