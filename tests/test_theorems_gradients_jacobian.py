"""sigprop.theorems.gradients_jacobian at tiny sizes: verdicts and bad inputs."""

import pytest
import torch

from sigprop.theorems import gradients_jacobian as gj

torch.set_num_threads(1)


def _verdicts(result):
    return {c.id.split(".", 2)[2]: c.passed for c in result.claims}


def test_jacobian_small():
    v = _verdicts(gj.jacobian(widths=[3, 5], n_cases=10, device="cpu"))
    assert not v.pop("printed_multiplicity_c19")  # erratum
    assert all(v.values()), v


def test_lemma_c11_small():
    assert all(_verdicts(gj.lemma_c11(classes=[3], n_samples=200, device="cpu")).values())


def test_chain_rule_small():
    r = gj.chain_rule(widths=[4], depths=[3, 8], runs=2, device="cpu")
    assert all(_verdicts(r).values())
    assert (r.table["slack"] >= -1e-10).all()


def test_lemma_c12_small():
    r = gj.lemma_c12(widths=[6], depth=120, runs=3, device="cpu")
    assert all(_verdicts(r).values()), _verdicts(r)


def test_lemma_c14_c15_small():
    r = gj.lemma_c14_c15(widths=[3], depth=80, runs=4, step_states=2, step_draws=50, device="cpu")
    assert all(_verdicts(r).values()), _verdicts(r)


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        gj.jacobian(widths=[1], device="cpu")
    with pytest.raises(ValueError):
        gj.lemma_c12(widths=[4], depth=4, late_from=0.9, device="cpu")
    with pytest.raises(ValueError):
        gj.chain_rule(readout_scale=0.5, device="cpu")
