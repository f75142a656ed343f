"""What the ch. 6 training simulations (``training_simulations``), their judges
(``training_judges``) and figures share, torch-free: the names of the control and of the network
whose weights the orthogonality figures follow."""

from __future__ import annotations

__all__ = ["CONTROL", "ORTHOGONALITY_NETWORK"]


CONTROL = "unshaped sin"
"""The unshaped control of Figs. 6.4, C.5-C.8 (sin without gain, gamma = 0)."""


ORTHOGONALITY_NETWORK = "shaped tanh"
"""Fig. 6.6's network (tanh, gained); Figs. C.3, C.4 draw every ``SHAPED`` network."""
