"""What Conjecture F.1's simulation (``conjecture_simulations``) and its judges
(``conjecture_judges``) share, torch-free: the odd activations."""

from __future__ import annotations

__all__ = ["ODD_ACTIVATIONS"]


ODD_ACTIVATIONS = ("linear", "tanh", "sin")
"""Odd F: the invariant law is invariant under column sign flips, so K = I / n exactly (F.2)."""
