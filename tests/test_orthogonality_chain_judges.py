"""Claims of DJB21 Figs. 1, 2a, 2b (chain_judges) on data that satisfies them and on
counterexamples that must fail them."""

import math

import numpy as np
import pandas as pd
import pytest

from sigprop.papers.orthogonality import chain_judges

RNG = np.random.default_rng(0)


def verdicts(claims):
    return {c.id.rsplit(".", 1)[1]: c.passed for c in claims}


def cosine_table(bn_level, vanilla_final, depth=50, runs=10):
    rows = []
    for run in range(runs):
        for layer in range(depth + 1):
            noise = RNG.normal(0, 0.01)
            rows.append(("BN", run, layer, abs(bn_level + noise)))
            rows.append(("vanilla", run, layer, vanilla_final * layer / depth + noise))
    return pd.DataFrame(rows, columns=["network", "run", "layer", "abs_cos"])


def test_fig1_claims_pass_and_fail():
    assert all(c.passed for c in chain_judges.fig1_claims(cosine_table(0.1, 0.8), 32, 0.5))
    failed = chain_judges.fig1_claims(cosine_table(0.9, 0.2), 32, 0.5)
    assert not any(c.passed for c in failed)


def gap_curve(slope_decay, slope_plateau, runs=20, depth=50):
    rows = []
    for run in range(runs):
        for layer in range(depth + 1):
            y = slope_decay * min(layer, 20) + slope_plateau * max(layer - 20, 0)
            rows.append((32, run, layer, y + RNG.normal(0, 0.05)))
    return pd.DataFrame(rows, columns=["width", "run", "layer", "log_gap"])


def test_fig2a_claims_pass_on_decay_then_plateau():
    out = verdicts(chain_judges.fig2a_claims(gap_curve(-0.1, 0.0), (5, 20), (30, 50), 3.0))
    assert out == {"decay_d32": True, "plateau_d32": True}


def test_fig2a_claims_fail_on_growth_and_on_a_still_decaying_chain():
    out = verdicts(chain_judges.fig2a_claims(gap_curve(0.1, -0.05), (5, 20), (30, 50), 3.0))
    assert out == {"decay_d32": False, "plateau_d32": False}


def power_law_table(exponent, correction=0.0, runs=20, noise=0.01, paper_exponent=-0.46):
    """Layer-averaged gaps C d^exponent exp(correction / d), with lognormal run noise, for the
    thesis protocol, and C d^paper_exponent (no correction) for the paper protocol."""
    widths = (16, 32, 64, 128, 256, 512)
    rows = [
        (protocol, w, r, 1.1 * w**power * math.exp(c / w + RNG.normal(0, noise)))
        for protocol, power, c in (("thesis", exponent, correction), ("paper", paper_exponent, 0))
        for w in widths
        for r in range(runs)
    ]
    return pd.DataFrame(rows, columns=["protocol", "width", "run", "mean_gap"])


def fig2b(table):
    return chain_judges.fig2b_claims(table, (100, 600), 3.0, (1, 500), -0.46, 0.005)


def test_fig2b_exponent_claim_passes_on_inverse_sqrt_with_finite_width_curvature():
    ok, paper = fig2b(power_law_table(-0.5, correction=0.8))
    assert ok.passed and ok.measured == pytest.approx(-0.5, abs=0.01)
    assert ok.details["plain_slope"] < -0.505  # the curvature a plain fit would see
    assert paper.passed and paper.measured == pytest.approx(-0.46, abs=0.005)


def test_fig2b_exponent_claims_fail_on_other_exponents():
    bad, paper = fig2b(power_law_table(-0.46, paper_exponent=-0.5))
    assert not bad.passed and not paper.passed
    assert len(bad.details["local_slopes"]) == 5


def test_fig2b_needs_four_widths():
    table = power_law_table(-0.5).query("width <= 64")
    with pytest.raises(ValueError, match="at least 4 widths"):
        fig2b(table)
