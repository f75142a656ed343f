"""The curves of the depth sweep (``depth_sweep``, Thesis Figs. 6.2, 6.3, C.9, C.10) by name:
torch-free, so the item table names one simulation per variant without importing torch."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["VARIANTS", "Variant", "simulation_name"]


@dataclass(frozen=True)
class Variant:
    """One curve: the network law and whether the batch is the degenerate (repeated) one."""

    init: str = "orthogonal"
    norm: str = "bn_rms"
    activation: str = "linear"
    degenerate: bool = False


VARIANTS: dict[str, Variant] = {
    # Fig. 6.3 blue, Fig. 6.2 non-degenerate, Fig. C.9 identity: orthogonal, theory BN x sqrt(n).
    "orthogonal": Variant(),
    # Fig. 6.3 orange ("Normal"): xavier_normal weights.
    "gaussian": Variant(init="gaussian"),
    # Fig. 6.2 orange: repeated samples (Remark 6.6).
    "degenerate": Variant(degenerate=True),
    # Fig. C.9: sin and tanh without gain.
    "sin": Variant(activation="sin"),
    "tanh": Variant(activation="tanh"),
    # Fig. C.10: with mean reduction (factor sqrt n) vs Eq. (6.4) exactly (factor 1).
    "mean_reduction": Variant(norm="bn_centered"),
    "no_mean_reduction": Variant(norm="bn_unit"),
}
"""The seed's curves by name (Thesis Figs. 6.2, 6.3, C.9, C.10)."""


def simulation_name(variant: str) -> str:
    """The registry simulation of one variant: ``depth_<variant>``."""
    return f"depth_{variant}"
