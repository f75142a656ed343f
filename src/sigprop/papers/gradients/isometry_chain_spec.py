"""What Thesis Fig. 6.1's simulation (``isometry_decay``), its judges (``isometry_chain_judges``)
and its figure share, torch-free: the rates k of Thm. 6.1 and the authors' plotted constant."""

from __future__ import annotations

__all__ = ["AUTHORS_C", "PLOTTED_WIDTHS", "authors_rate", "proof_rate"]

AUTHORS_C = 0.015
"""The hand-set C of the dashed "theory" curves of Fig. 6.1 (authors' notebook)."""
PLOTTED_WIDTHS = (50, 100)
"""The widths d = n of Thesis Fig. 6.1 (the dashed curves are drawn at these only)."""


def proof_rate(d, psi0):
    """k = max(2 d^2, 32 d^3 psi_0), the rate of the proof of Thm. 6.1, Eq. (C.72)-(C.75);
    floats, or tensors elementwise (without importing torch)."""
    floor, rate = 2.0 * d * d, 32.0 * d**3 * psi0
    return rate.clamp(min=floor) if hasattr(rate, "clamp") else max(floor, rate)


def authors_rate(d: int, psi0: float, c: float = AUTHORS_C) -> float:
    """k = C d^2 (1 + d psi_0) of Thm. 6.1, Eq. (6.6), with the authors' plotted C (Fig. 6.1)."""
    return c * d * d * (1.0 + d * psi0)
