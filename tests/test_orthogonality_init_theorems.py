"""Theorem checks of DJB21 App. E, Thesis Lemma A.8 and the whitening remark at small sizes, and
the init_gap claims on synthetic tables: the claims pass where they should and can fail."""

import numpy as np
import pandas as pd
import pytest

from sigprop.papers.orthogonality import init_theorems as oi
from sigprop.papers.orthogonality.init_judges import init_gap_claims
from sigprop.theorems import TheoremCheck

SMALL = {
    "app_e": dict(
        batch_sizes=(2, 8), n_spectra=200, widths=(6,), batch_ratios=(0.5, 1.0, 3.0),
        n_matrices=20, mlp_width=8, mlp_depth=6, n_runs=2,
    ),
    "lemma_a8": dict(widths=(8, 16), batch_size=4, depth=250, n_runs=30),
    "whitening": dict(widths=(8,), batch_sizes=(4, 16), n_runs=20),
}  # fmt: skip


def by_what(check) -> dict:
    claims = check.claims if isinstance(check, TheoremCheck) else check
    return {c.id.split(".", 2)[2]: c for c in claims}


@pytest.mark.parametrize("item", ["app_e", "lemma_a8", "whitening"])
def test_theorem_checks_are_well_formed(item):
    fn = {"app_e": oi.app_e, "lemma_a8": oi.lemma_a8, "whitening": oi.whitening_remark}[item]
    check = fn(**SMALL[item], device="cpu")
    assert isinstance(check, TheoremCheck) and len(check.table) > 0
    ids = [c.id for c in check.claims]
    assert len(ids) == len(set(ids))
    assert all(i.startswith(f"orthogonality.{item}.") for i in ids)
    claims = by_what(check)
    if item == "lemma_a8":
        # the Lyapunov-gap rate holds; the printed Eq. (A.13) rate (half of it) is refuted
        assert claims["slope_d8"].passed and claims["slope_d16"].passed
        assert not claims["printed_rate_d16"].passed  # d = 8 needs more runs to refute it
        assert (check.table["fit_first"] < check.table["fit_last"]).all()
    else:
        assert all(c.passed for c in check.claims), [c.id for c in check.claims if not c.passed]


def test_app_e_rejects_ratios_without_the_exact_and_the_wide_case():
    with pytest.raises(ValueError, match="include 1"):
        oi.app_e(**{**SMALL["app_e"], "batch_ratios": (0.5, 3.0)}, device="cpu")
    with pytest.raises(ValueError, match="> 1"):
        oi.app_e(**{**SMALL["app_e"], "batch_ratios": (0.5, 1.0)}, device="cpu")


def test_whitening_negative_control_can_fail():
    """A bound above BN's one-layer gap makes the control fail (BN is not whitening)."""
    check = oi.whitening_remark(**SMALL["whitening"], bn_min_gap=0.99, device="cpu")
    assert not by_what(check)["bn_not_exact"].passed
    assert by_what(check)["exact"].passed


def test_lemma_a8_rejects_d_below_n():
    with pytest.raises(ValueError, match="d >= n"):
        oi.lemma_a8(widths=(4,), batch_size=8, depth=50, n_runs=2, device="cpu")


def synthetic_table(iterative_last: list[float], xavier_last: float = 0.95) -> pd.DataFrame:
    rows = []
    for run, last in enumerate(iterative_last):
        for batch in ("init", "eval"):
            for layer in range(6):
                xavier = 0.5 + (xavier_last - 0.5) * layer / 5
                iterative = 0.6 if layer < 2 else (0.3 if layer < 5 else last)
                rows += [
                    dict(method="xavier", batch=batch, run=run, layer=layer, gap=xavier),
                    dict(method="iterative_code", batch=batch, run=run, layer=layer, gap=iterative),
                    dict(method="orthogonal", batch=batch, run=run, layer=layer, gap=xavier),
                ]
    return pd.DataFrame(rows)


def test_init_gap_claims_pass_and_fail():
    args = dict(xavier_min_gap=0.8, min_difference=0.5, growth_z=3.0)
    good = by_what(init_gap_claims(synthetic_table([0.1, 0.12, 0.11]), **args))
    assert all(c.passed for c in good.values())
    assert set(good) == {
        "iterative_below_xavier", "iterative_every_run", "iterative_not_growing",
        "xavier_aligns", "orthogonal_aligns",
    }  # fmt: skip
    # one collapsed run fails the every-run claim, growth with depth fails the growth claim
    collapsed = by_what(init_gap_claims(synthetic_table([0.1, 0.99, 0.1]), **args))
    assert not collapsed["iterative_every_run"].passed
    growing = by_what(init_gap_claims(synthetic_table([0.5, 0.52, 0.55]), **args))
    assert not growing["iterative_not_growing"].passed
    assert not growing["iterative_below_xavier"].passed
    weak = by_what(init_gap_claims(synthetic_table([0.1, 0.1, 0.1], xavier_last=0.6), **args))
    assert not weak["xavier_aligns"].passed and not weak["orthogonal_aligns"].passed
    assert np.isclose(good["iterative_below_xavier"].measured, 0.95 - 0.11)
