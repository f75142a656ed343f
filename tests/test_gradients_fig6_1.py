"""Thesis Fig. 6.1 claims (``isometry_chain_judges``) on synthetic decay curves."""

import numpy as np
import pandas as pd

from sigprop.papers.gradients import isometry_chain_judges as judges

SETTINGS = dict(fit_window=[10, 100], roundoff_units=8.0, authors_c=0.015,
                control_rate_per_width=0.25, theory_exponent=2.0)  # fmt: skip


def _table(beta: float, c: float = 0.5, widths=(16, 32, 50, 100), runs=3, psi0=1e-4):
    """psi_l = psi0 e^{-l / k_d}, k_d = c d^beta (scaled by run: a run-to-run spread)."""
    rows = []
    for d in widths:
        for run in range(runs):
            k = c * (d / 16) ** beta * 16 * (1 + 0.02 * (run - 1))
            for layer in range(101):
                rows.append(dict(width=d, run=run, layer=layer, psi=psi0 * np.exp(-layer / k)))
    return pd.DataFrame(rows)


def _claims(table):
    return {c.id.rsplit(".", 1)[-1]: c for c in judges.fig6_1_claims(table, **SETTINGS)}


def test_thesis_like_decay_holds_and_k_exponent_is_an_upper_bound():
    claims = _claims(_table(beta=1.0))  # k ~ d, as the thesis's own data
    for key in ("monotone", "decay_d16", "decay_d100", "slower_for_wider", "k_exponent"):
        assert claims[key].verdict == "holds", (key, claims[key])
    assert claims["control_fast_bound"].kind == "control"
    assert claims["control_fast_bound"].verdict == "holds"
    assert claims["k_exponent"].relation == "<=" and claims["k_exponent"].printed == 2.0
    assert claims["k_exponent"].interval == "bootstrap"
    assert claims["decay_d16"].interval == "t" and claims["decay_d16"].n == 3


def test_k_exponent_can_fail():
    """Decay constants growing as d^3 contradict Thm. 6.1's k = C d^2 (1 + d psi_0)."""
    assert _claims(_table(beta=3.0, c=0.05))["k_exponent"].verdict == "fails"


def test_authors_curve_is_a_paper_claim_only_at_the_plotted_widths():
    claims = _claims(_table(beta=1.0))
    assert {claims[f"authors_curve_d{d}"].kind for d in (50, 100)} == {"paper"}
    assert {claims[f"authors_curve_d{d}"].kind for d in (16, 32)} == {"setup"}
    assert "never states" in claims["authors_curve_d16"].note


def test_equal_rates_are_not_slower_for_wider():
    claims = _claims(_table(beta=0.0))  # the same k at every width
    assert claims["slower_for_wider"].verdict != "holds"


def test_a_rising_run_fails_monotone():
    table = _table(beta=1.0)
    table.loc[(table["width"] == 32) & (table["run"] == 1) & (table["layer"] == 40), "psi"] *= 2
    assert _claims(table)["monotone"].verdict == "fails"
