"""Theorem checks of DJB21 App. E, Thesis Lemma A.8 and the whitening remark at small sizes, and
the init_gap claims on synthetic tables: the claims pass where they should and can fail."""

import numpy as np
import pandas as pd
import pytest
import torch
from item_setups import Checked, run_theorem

from sigprop.engine import metrics
from sigprop.nets import orthogonalization as ini
from sigprop.papers.orthogonality import init_theorems as oi
from sigprop.papers.orthogonality.init_judges import init_gap_claims
from sigprop.papers.orthogonality.items import ITEMS

THEOREMS = {item.name: item for item in ITEMS if item.kind == "theorem"}

SMALL = {
    "app_e": dict(
        batch_sizes=(2, 8), n_spectra=200, widths=(6,), batch_ratios=(0.5, 1.0, 3.0),
        n_matrices=20, mlp_width=8, mlp_depth=6, n_runs=2, control_min_fraction=0.5,
    ),
    "lemma_a8": dict(widths=(8, 16), batch_size=4, depth=250, n_runs=30, fit_start_efolds=4.0,
                     gap_floor=1e-11, relative_margin=0.1),
    "whitening": dict(widths=(8,), batch_sizes=(4, 16), n_runs=20, bn_min_gap=1e-3),
}  # fmt: skip


def run_check(item: str, device: str = "cpu", **settings) -> Checked:
    """A theorem item as the workflow runs it, the quick config where ``settings`` are silent
    (``item_setups.run_theorem``)."""
    return run_theorem("orthogonality", item, device=device, **settings)


def by_what(check) -> dict:
    claims = getattr(check, "claims", check)
    return {c.id.split(".", 2)[2]: c for c in claims}


@pytest.mark.parametrize("item", ["app_e", "lemma_a8", "whitening"])
def test_theorem_checks_are_well_formed(item):
    check = run_check(item, **SMALL[item])
    assert len(check.table) > 0
    ids = [c.id for c in check.claims]
    assert len(ids) == len(set(ids))
    assert all(i.startswith(f"orthogonality.{item}.") for i in ids)
    claims = by_what(check)
    if item == "lemma_a8":
        # the Lyapunov-gap rate holds; the printed Eq. (A.13) rate (half of it) is refuted
        # 30 short runs: the 10% margin may not be decided, but the corrected rate never fails
        assert {claims[f"slope_d{d}"].verdict for d in (8, 16)} <= {"holds", "undecided"}
        erratum = claims["printed_rate_d16"]
        assert erratum.kind == "erratum" and erratum.pair == "orthogonality.lemma_a8.slope_d16"
        assert erratum.verdict == "fails" and erratum.printed == check.table["printed_a13"].iloc[1]
        assert (check.table["fit_first"] < check.table["fit_last"]).all()
    else:
        bad = [c.id for c in check.claims if c.verdict != "holds"]
        assert not bad, bad


def test_app_e_rejects_ratios_without_the_exact_and_the_wide_case():
    with pytest.raises(ValueError, match="include 1"):
        run_check("app_e", **{**SMALL["app_e"], "batch_ratios": (0.5, 3.0)})
    with pytest.raises(ValueError, match="> 1"):
        run_check("app_e", **{**SMALL["app_e"], "batch_ratios": (0.5, 1.0)})


def test_whitening_negative_control_can_fail():
    """A bound above BN's one-layer gap makes the control fail (BN is not whitening)."""
    check = run_check("whitening", **{**SMALL["whitening"], "bn_min_gap": 0.99})
    assert by_what(check)["bn_not_exact"].verdict == "fails"
    assert by_what(check)["bn_not_exact"].kind == "control"
    assert by_what(check)["exact"].verdict == "holds"


def test_lemma_a8_rejects_d_below_n():
    with pytest.raises(ValueError, match="d >= n"):
        run_check("lemma_a8", widths=(4,), batch_size=8, depth=50, n_runs=2)


def synthetic_table(
    iterative_last: list[float], xavier_last: float = 0.95, paper_last: float = 0.2
) -> pd.DataFrame:
    rows = []
    for run, last in enumerate(iterative_last):
        for batch in ("init", "eval"):
            for layer in range(6):
                xavier = 0.5 + (xavier_last - 0.5) * layer / 5
                iterative = 0.6 if layer < 2 else (0.3 if layer < 5 else last)
                paper = 0.6 if layer < 2 else (0.3 if layer < 5 else paper_last)
                rows += [
                    dict(method="xavier", batch=batch, run=run, layer=layer, gap=xavier),
                    dict(method="iterative_code", batch=batch, run=run, layer=layer, gap=iterative),
                    dict(method="iterative_paper", batch=batch, run=run, layer=layer, gap=paper),
                    dict(method="orthogonal", batch=batch, run=run, layer=layer, gap=xavier),
                ]
    return pd.DataFrame(rows)


def test_init_gap_claims_pass_and_fail():
    args = dict(xavier_min_gap=0.8, min_difference=0.5)
    good = by_what(init_gap_claims(synthetic_table([0.1, 0.12, 0.11]), **args))
    assert {c.verdict for c in good.values()} == {"holds"}
    assert set(good) == {
        "iterative_below_xavier", "iterative_every_run", "iterative_not_growing",
        "iterative_paper_every_run", "xavier_aligns", "orthogonal_aligns",
    }  # fmt: skip
    # one collapsed run of the code's variant fails its every-run claim, not the printed Eq. (6)'s
    collapsed = by_what(init_gap_claims(synthetic_table([0.1, 0.99, 0.1]), **args))
    assert collapsed["iterative_every_run"].verdict == "fails"
    assert collapsed["iterative_paper_every_run"].verdict == "holds"
    printed = by_what(init_gap_claims(synthetic_table([0.1, 0.1, 0.1], paper_last=0.97), **args))
    assert printed["iterative_paper_every_run"].verdict == "fails"
    assert printed["iterative_every_run"].verdict == "holds"
    code_only = synthetic_table([0.1, 0.1, 0.1]).query("method != 'iterative_paper'")
    assert "iterative_paper_every_run" not in by_what(init_gap_claims(code_only, **args))
    growing = by_what(init_gap_claims(synthetic_table([0.5, 0.52, 0.55]), **args))
    assert growing["iterative_not_growing"].verdict == "fails"
    assert growing["iterative_below_xavier"].verdict == "fails"
    weak = by_what(init_gap_claims(synthetic_table([0.1, 0.1, 0.1], xavier_last=0.6), **args))
    assert weak["xavier_aligns"].verdict == "fails" and weak["orthogonal_aligns"].verdict == "fails"
    assert np.isclose(good["iterative_below_xavier"].measured, 0.95 - 0.11)


def test_app_e_margin_inequality_and_equality():
    """sum sigma^4 >= (sum sigma)^{-2} for sum sigma^2 = 1, with equality iff flat."""
    g = torch.Generator().manual_seed(0)
    for n in (2, 3, 10):
        p = torch.distributions.Dirichlet(torch.ones(n)).sample((500,)).double()
        assert (oi.app_e_margin(p.sqrt()) > 0).all()
        assert abs(oi.app_e_margin(torch.ones(1, n, dtype=torch.float64)).item()) < 1e-14
    # equals V(H)^2 - V(W H)^2 of the paper variant
    h = torch.randn(6, 10, 5, generator=g, dtype=torch.float64)
    wh = ini.orthogonalizing_weight(h, "paper") @ h
    margin = oi.app_e_margin(torch.linalg.svdvals(h))
    torch.testing.assert_close(
        margin, metrics.orthogonality_gap(h) ** 2 - metrics.orthogonality_gap(wh) ** 2
    )


def test_lemma_a8_rate_positive_decreasing_and_the_printed_rate_is_half():
    """Psi(d/2) - Psi((d-1)/2) > 0, decreasing in d, ~ 1/d; 0.153, 0.069, 0.033 at d = 8, 16,
    32 (our scratch simulations)."""
    rates = [oi.lemma_a8_rate(d) for d in (2, 4, 8, 16, 32, 64, 1024)]
    assert all(r > 0 for r in rates)
    assert all(a > b for a, b in zip(rates[:-1], rates[1:], strict=True))
    assert [round(oi.lemma_a8_rate(d), 3) for d in (8, 16, 32)] == [0.153, 0.069, 0.033]
    assert abs(1024 * oi.lemma_a8_rate(1024) - 1.0) < 0.01
    with pytest.raises(ValueError, match="d must be >= 2"):
        oi.lemma_a8_rate(1)
