"""The app. C.3 theorem items (sigprop.papers.gradients.jacobian_theorems) at tiny sizes:
verdicts and bad inputs."""

from functools import partial

import pytest
import torch
from item_setups import run_theorem

run_item = partial(run_theorem, "gradients")
"""Theorem item ``name`` of the family, run as the workflow runs it (``item_setups``)."""


torch.set_num_threads(1)


def _verdicts(result):
    return {c.id.split(".", 2)[2]: c.passed for c in result.claims}


def test_jacobian_small():
    r = run_item(
        "jacobian", widths=[3, 5], n_cases=10, roundoff_units=16.0, scale_control=0.1, device="cpu"
    )
    v = _verdicts(r)
    assert not v.pop("printed_multiplicity_c19")  # erratum
    assert all(v.values()), v


def test_lemma_c11_small():
    r = run_item("lemma_c11", classes=[3], n_samples=200, sharpness=0.99, device="cpu")
    assert all(_verdicts(r).values())


def test_chain_rule_small():
    r = run_item("chain_rule", widths=[4], depths=[3, 8], runs=2, readout_scale=3.0, device="cpu")
    assert all(_verdicts(r).values())
    assert (r.table.query("kind == 'layer'")["slack"] >= -1e-10).all()


def test_lemma_c12_small():
    r = run_item(
        "lemma_c12",
        widths=[6],
        depth=120,
        runs=3,
        late_from=0.5,
        max_orthogonal_slope=1e-3,
        min_gaussian_slope=0.05,
        device="cpu",
    )
    assert all(_verdicts(r).values()), _verdicts(r)


def test_lemma_c14_c15_small():
    r = run_item(
        "lemma_c14_c15", widths=[3], depth=80, runs=4, step_states=2, step_draws=50, device="cpu"
    )
    assert all(_verdicts(r).values()), _verdicts(r)


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        run_item("jacobian", widths=[1], device="cpu")
    with pytest.raises(ValueError):
        run_item("lemma_c12", widths=[4], depth=4, late_from=0.9, device="cpu")
    with pytest.raises(ValueError):
        run_item("chain_rule", readout_scale=0.5, device="cpu")


def test_measured_part_gives_back_each_stacked_part():
    """A measurement stacks its parts with a ``kind`` column; a judge reads each back as built
    (the columns of the other parts NaN in it)."""
    import pandas as pd

    from sigprop.papers.gradients.verdicts import measured_part

    layer = pd.DataFrame({"d": [4, 4, 8], "value": [0.1, 0.2, 0.3]})
    net = pd.DataFrame({"d": [4, 8], "value": [1.0, 2.0], "gap": [0.5, 0.25]})
    table = pd.concat([layer.assign(kind="layer"), net.assign(kind="net")], ignore_index=True)
    pd.testing.assert_frame_equal(measured_part(table, "net"), net)
    got = measured_part(table, "layer")
    pd.testing.assert_frame_equal(got[["d", "value"]], layer)
    assert got["gap"].isna().all() and "kind" not in got
    assert measured_part(table, "none").empty
