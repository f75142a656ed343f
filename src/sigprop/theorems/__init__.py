"""Theorem checks that need no figure: settings in, measured table and claims out.

Each check function takes the keyword arguments of its config item (plus ``device``), computes
what the theorem predicts and what we measure, and returns a ``TheoremCheck``. The generic rule
script writes the table to ``results/<family>/<item>.csv`` and the claims to
``results/claims/<family>/<item>.json``. Random numbers come from ``sigprop.seeding`` with the
check's experiment id.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..claims import Claim

__all__ = ["TheoremCheck"]


@dataclass
class TheoremCheck:
    """The measured numbers of a theorem check (one row per case) and its verdicts."""

    table: pd.DataFrame
    claims: list[Claim]
