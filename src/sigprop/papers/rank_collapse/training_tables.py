"""Tables of Dan+20 Fig. 1 from its training curves (torch-free): what the figure plots and its
judges read."""

from __future__ import annotations

import pandas as pd

from ...training.curves import chosen_learning_rates, initial_rows

__all__ = ["fig1_panels"]


def fig1_panels(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows Fig. 1 plots: at initialization (point 0; one learning rate, since the grid
    points of a run share their initial network) and after training at the chosen rate."""
    init = initial_rows(table)
    final = table[table["point"] == table["point"].max()]
    return init, final.merge(chosen_learning_rates(final), on=["network", "depth", "lr"])
