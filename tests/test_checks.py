"""Each claim check on data that satisfies it and on a counterexample that must fail it."""

import math

import numpy as np
import pandas as pd
import pytest

from sigprop.checks import rank_collapse

RNG = np.random.default_rng(0)


def rank_table(bn_rank, vanilla_final, width=32, depth=50, runs=5):
    rows = []
    for net in ("BN", "vanilla"):
        for act in ("linear", "relu"):
            for run in range(runs):
                for layer in range(1, depth + 1):
                    if net == "BN":
                        rank = bn_rank
                    else:
                        rank = width + (vanilla_final - width) * layer / depth
                    rows.append((net, act, run, layer, float(rank)))
    return pd.DataFrame(rows, columns=["network", "activation", "run", "depth", "rank"])


def verdicts(claims):
    return {c.id.rsplit(".", 1)[1]: c.passed for c in claims}


def test_fig2_claims_pass_on_the_papers_picture():
    out = verdicts(rank_collapse.fig2_claims(rank_table(10, 1), 32, 1.0))
    assert all(out.values()) and len(out) == 4


def test_fig2_claims_fail_when_bn_dips_below_sqrt_d_and_vanilla_keeps_rank():
    out = verdicts(rank_collapse.fig2_claims(rank_table(5, 12), 32, 1.0))
    assert not any(out.values())


def chain_averages(rank_scale=1.0, alpha=(0.89, 0.85, 0.8), frob_exponent=1.5, runs=3):
    rows = []
    for gamma in (0.1, math.inf):
        for d, a in zip((16, 32, 64), alpha, strict=True):
            for run in range(runs):
                rank = rank_scale * 1.3 * d**0.62 * (1 + 0.01 * run)
                rows.append(
                    dict(
                        gamma=gamma,
                        width=d,
                        run=run,
                        **{
                            "soft_rank_0.25": rank * 1.05,
                            "soft_rank_0.5": rank,
                            "soft_rank_0.75": rank * 0.95,
                            "rank_lower_bound": rank * 0.7,
                            "alpha_hat": a + 0.001 * run,
                            "frobenius_m_squared": 1.1 * d**frob_exponent * (1 + 0.01 * run),
                        },
                    )
                )
    return pd.DataFrame(rows)


def test_ergodic_alpha_is_a_ratio_of_layer_averages():
    """Dan+20 Eq. (46), App. E: sum g2 / sum g1, not the mean of per-layer ratios."""
    frame = pd.DataFrame(
        {
            "gamma": 1.0,
            "width": 8,
            "run": 0,
            "layer": [1, 2],
            "trace_diag_m2_squared": [1.0, 9.0],
            "trace_m_cubed": [2.0, 10.0],
        }
    )
    out = rank_collapse.ergodic_averages(frame)
    assert out["alpha_hat"].item() == pytest.approx(10.0 / 12.0)


def test_fig3a_claims_pass_and_fail():
    assert all(c.passed for c in rank_collapse.fig3a_claims(chain_averages(), [0.25, 0.5], 16))
    low = rank_collapse.fig3a_claims(chain_averages(rank_scale=0.3), [0.25, 0.5], 16)
    assert not any(c.passed for c in low if "above_sqrt_d" in c.id)


def test_fig8_claims_pass_and_fail():
    assert all(c.passed for c in rank_collapse.fig8_claims(chain_averages(), 0.9, 10))
    rising = rank_collapse.fig8_claims(chain_averages(alpha=(0.92, 0.95, 1.01)), 0.9, 10)
    assert not any(c.passed for c in rising)


def test_fig9_claims_pass_and_fail():
    assert all(c.passed for c in rank_collapse.fig9_claims(chain_averages(), 0.1))
    steep = rank_collapse.fig9_claims(chain_averages(frob_exponent=1.8), 0.1)
    assert not any(c.passed for c in steep)


def singular_values(late_sigma1, late_small, runs=4, layers=20):
    rows = []
    for run in range(runs):
        for layer in range(layers + 1):
            early = layer == 0
            rows.append(
                dict(
                    gamma=1.0,
                    run=run,
                    layer=layer,
                    sigma_1=5.0 if early else late_sigma1,
                    sigma_2=0.01 if early else late_small * (1 + 0.1 * run),
                    sigma_3=0.005 if early else late_small / 2,
                )
            )
    return pd.DataFrame(rows)


def test_fig3b_claims_pass_and_fail():
    assert all(c.passed for c in rank_collapse.fig3b_claims(singular_values(3.0, 1.0), 10.0))
    frozen = rank_collapse.fig3b_claims(singular_values(5.5, 0.02), 10.0)
    assert not any(c.passed for c in frozen)
