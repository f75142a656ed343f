"""Tables of the DJB21 training figures, torch-free: what the figures plot and the judges read."""

from __future__ import annotations

import pandas as pd

from ...training.curves import curves_at_chosen_rates
from .training_spec import XAVIER

__all__ = ["gap_and_loss"]


def gap_and_loss(table: pd.DataFrame, network: str = XAVIER) -> pd.DataFrame:
    """Per (depth, run): the gap V(H_L) at initialization and the final training loss, the
    points of Fig. 3a (at the chosen step size)."""
    curves = curves_at_chosen_rates(table, "train_loss")
    rows = curves[curves["network"] == network]
    first = rows[rows["point"] == 0].set_index(["depth", "run"])["orthogonality_gap"]
    last = rows[rows["point"] == rows["point"].max()].set_index(["depth", "run"])["train_loss"]
    return pd.DataFrame({"gap_at_init": first, "final_loss": last}).reset_index()
