"""Thesis ch. 6 / app. C.1-C.2 theorem checks at small arguments: what must hold holds, the
errata fail, bad input raises."""

from functools import partial

import pandas as pd
import pytest
import torch
from item_setups import run_theorem

from sigprop.engine import gram_isometry, ops
from sigprop.papers.gradients import isometry_theorem_judges as GJ
from sigprop.papers.gradients import isometry_theorems as G

run_item = partial(run_theorem, "gradients")
"""Theorem item ``name`` of the family, run as the workflow runs it (``item_setups``)."""


def _verdicts(check):
    return {c.id.rsplit(".", 1)[-1]: c.passed for c in check.claims}


def test_rotated_bn_input_is_a_bn_output_with_growing_gap():
    g = torch.Generator().manual_seed(0)
    gaps = []
    for spread in (0.0, 0.1, 1.0):
        x = G.rotated_bn_input(6, spread, g)
        assert torch.allclose(x.square().sum(-1), torch.ones(6, dtype=x.dtype))
        gaps.append(gram_isometry.isometry_gap(x @ x.mT).item())
    assert gaps[0] < 1e-13 < gaps[1] < gaps[2]
    assert torch.allclose(ops.bn_unit(x), x)
    with pytest.raises(ValueError, match="spread"):
        G.rotated_bn_input(4, -0.1, g)


def test_lemma6_2_claims_hold():
    check = run_item("lemma6_2", n_cases=60, d_range=(2, 6), roundoff_units=8.0, device="cpu")
    assert all(_verdicts(check).values()), _verdicts(check)
    assert len(check.table) == 60 and set(check.table["d"]) <= set(range(2, 7))
    with pytest.raises(ValueError, match="d_min"):
        run_item("lemma6_2", n_cases=10, d_range=(1, 4), device="cpu")


def test_theorem6_3_holds_and_the_printed_interval_fails():
    check = run_item(
        "theorem6_3",
        widths=(4,),
        spreads=(0.01, 0.3),
        draws=2000,
        control_factor=8.0,
        roundoff_units=8.0,
        device="cpu",
    )
    v = _verdicts(check)
    assert v.pop("printed_eigenvalues_unit_interval") is False  # erratum: trace d forces max >= 1
    assert all(v.values()), v
    kinds = {c.id.rsplit(".", 1)[-1]: (c.kind, c.pair) for c in check.claims}
    assert kinds["printed_eigenvalues_unit_interval"] == (
        "erratum",
        "gradients.theorem6_3.factor_unit_interval",
    )
    assert kinds["factor_unit_interval"][0] == "paper"
    few = run_item(
        "theorem6_3",
        widths=(4,),
        spreads=(0.3,),
        draws=50,
        control_factor=8.0,
        roundoff_units=4.0,
        device="cpu",
    )
    weingarten = next(c for c in few.claims if c.id.endswith("weingarten"))
    assert weingarten.verdict != "holds" or weingarten.high - weingarten.low > 0  # an interval
    loose = run_item(
        "theorem6_3",
        widths=(4,),
        spreads=(0.3,),
        draws=400,
        control_factor=0.5,
        roundoff_units=4.0,
        device="cpu",
    )
    assert _verdicts(loose)["control_tightened"] is False  # the control can fail (ratio ~ 2 d)
    with pytest.raises(ValueError, match="widths"):
        run_item("theorem6_3", widths=(1,), device="cpu")
    with pytest.raises(ValueError, match="draws"):
        run_item("theorem6_3", widths=(4,), spreads=(0.1,), draws=1, device="cpu")
    with pytest.raises(ValueError, match="spreads"):
        run_item("theorem6_3", widths=(4,), spreads=(0.0,), draws=10, device="cpu")


def test_lemma_c8_c9_holds_and_printed_lemma_c8_fails():
    check = run_item(
        "lemma_c8_c9",
        widths=(4,),
        n_spectra=300,
        spreads=(0.01, 1.0),
        draws=400,
        control_threshold=4.0,
        roundoff_units=8.0,
        device="cpu",
    )
    v = _verdicts(check)
    assert v.pop("lemma_c8_printed") is False  # erratum: the scale is sqrt(2 d psi), not 16 d psi
    assert all(v.values()), v
    with pytest.raises(ValueError, match="control_threshold"):
        GJ.judge_lemma_c8_c9(pd.DataFrame(), control_threshold=1.0, draws=4000, roundoff_units=4.0)
    with pytest.raises(ValueError, match="both sides"):
        run_item("lemma_c8_c9", widths=(4,), n_spectra=20, spreads=(0.01,), draws=10, device="cpu")


def _theorem6_3_table(widths, e2):
    """A measured table of ``judge_theorem6_3`` whose case rows hold and whose Monte Carlo E2 at
    width d is ``e2(d)`` (SE 1e-3 relative; E1 and E W^2 exact)."""
    from sigprop.papers.gradients import isometry_decay as dec

    cases = [
        dict(kind="case", d=d, spread=0.1, **{f"ratio_{k}": 2.0 * d for k in ("thm6_3", "cor6_4")},
             ratio_c48=1.5 * d, **{f"se_{k}": 0.01 for k in ("thm6_3", "cor6_4", "c48")},
             log_factor=-0.01, max_lambda=1.5)
        for d in widths
    ]  # fmt: skip
    ortho = [dict(kind="orthogonal", d=d, max_iso_error=0.0) for d in widths]
    moments = [
        dict(kind="moment", d=d, moment=name, mc=mc, se=1e-3 * mc, exact=exact)
        for d in widths
        for name, mc, exact in (
            ("E1", dec.weingarten_e1(d), dec.weingarten_e1(d)),
            ("E2", e2(d), dec.weingarten_e2(d)),
            ("EW2", 1.0 / d, 1.0 / d),
        )
    ]
    return pd.DataFrame(cases + ortho + moments)


@pytest.mark.parametrize("widths", [(4, 8, 16), (4, 8, 16, 32), (64,)])
def test_weingarten_control_holds_for_haar_and_fails_for_independent_entries_at_every_d(widths):
    """The former fixed 0.1 threshold on 1 - d^2 E2 failed for exact Haar moments at d = 32
    (2/(d+2) = 0.059): the control is now in units of that distance, so it holds for Haar E2 and
    fails for independent entries (E2 = 1/d^2) at every width."""
    from sigprop.papers.gradients import isometry_decay as dec

    args = dict(widths=widths, spreads=(0.1,), draws=4000, control_factor=8.0, roundoff_units=4.0)
    haar = GJ.judge_theorem6_3(_theorem6_3_table(widths, dec.weingarten_e2), **args)
    verdicts = {c.id.rsplit(".", 1)[-1]: c.verdict for c in haar}
    assert verdicts["control_gaussian_moments"] == "holds"
    assert verdicts["weingarten"] == "holds"
    independent = GJ.judge_theorem6_3(_theorem6_3_table(widths, lambda d: 1.0 / d**2), **args)
    verdicts = {c.id.rsplit(".", 1)[-1]: c.verdict for c in independent}
    assert verdicts["control_gaussian_moments"] == "fails"
    assert verdicts["weingarten"] == "fails"  # E2 off by 2/d relative, the margin is 1/d
    reasons = {c.id.rsplit(".", 1)[-1]: c.tolerance_reason for c in haar}
    assert reasons["control_gaussian_moments"].startswith("theorem: halfway between")
    assert reasons["weingarten"].startswith("theorem: half the relative distance 2/d")
