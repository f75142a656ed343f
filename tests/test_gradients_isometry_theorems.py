"""Thesis ch. 6 / app. C.1-C.2 theorem checks at small arguments: what must hold holds, the
errata fail, bad input raises."""

import io
from types import SimpleNamespace

import pandas as pd
import pytest
import torch

from sigprop import gram_isometry, ops
from sigprop.jobs import read_table
from sigprop.papers.gradients import isometry_theorem_judges as GJ
from sigprop.papers.gradients import isometry_theorems as G
from sigprop.papers.gradients.items import ITEMS


def run_item(name, **settings):
    """Run theorem item ``name`` as the workflow does: measure (settings less the tolerances),
    the table through CSV, judge (the whole slice)."""
    item = next(i for i in ITEMS if i.kind == "theorem" and i.name == name)
    table = item.measure(**{k: v for k, v in settings.items() if k not in item.tolerances})
    buffer = io.StringIO()
    table.to_csv(buffer, index=False)
    buffer.seek(0)
    read = read_table(buffer)
    slice_ = {k: v for k, v in settings.items() if k != "device"}
    return SimpleNamespace(table=read, claims=item.judge(read, **slice_))


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
        "theorem6_3", widths=(4,), spreads=(0.01, 0.3), draws=2000, roundoff_units=8.0, device="cpu"
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
    few = run_item("theorem6_3", widths=(4,), spreads=(0.3,), draws=50, device="cpu")
    weingarten = next(c for c in few.claims if c.id.endswith("weingarten"))
    assert weingarten.verdict != "holds" or weingarten.high - weingarten.low > 0  # an interval
    loose = run_item(
        "theorem6_3", widths=(4,), spreads=(0.3,), draws=400, control_factor=0.5, device="cpu"
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
        roundoff_units=8.0,
        device="cpu",
    )
    v = _verdicts(check)
    assert v.pop("lemma_c8_printed") is False  # erratum: the scale is sqrt(2 d psi), not 16 d psi
    assert all(v.values()), v
    with pytest.raises(ValueError, match="control_threshold"):
        GJ.judge_lemma_c8_c9(pd.DataFrame(), control_threshold=1.0)
    with pytest.raises(ValueError, match="both sides"):
        run_item("lemma_c8_c9", widths=(4,), n_spectra=20, spreads=(0.01,), draws=10, device="cpu")
