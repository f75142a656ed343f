"""Claims of DJB21 Figs. 1, 2a, 2b (chain_judges) on data that satisfies them and on
counterexamples that must fail them; the chain simulations' given inputs."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

from sigprop.engine import inputs
from sigprop.papers.orthogonality import chain_judges, chain_simulations

RNG = np.random.default_rng(0)


def verdicts(claims):
    return {c.id.rsplit(".", 1)[1]: c.verdict for c in claims}


def cosine_table(bn_level, vanilla_final, depth=50, runs=10):
    rows = []
    for run in range(runs):
        for layer in range(depth + 1):
            noise = RNG.normal(0, 0.01)
            rows.append(("BN", run, layer, abs(bn_level + noise)))
            rows.append(("vanilla", run, layer, vanilla_final * layer / depth + noise))
    return pd.DataFrame(rows, columns=["network", "run", "layer", "abs_cos"])


def test_fig1_claims_hold_and_fail():
    held = chain_judges.fig1_claims(cosine_table(0.1, 0.8), 32, 0.5)
    assert {c.verdict for c in held} == {"holds"} and {c.kind for c in held} == {"paper"}
    assert {c.interval for c in held} == {"t"}
    failed = chain_judges.fig1_claims(cosine_table(0.9, 0.2), 32, 0.5)
    assert {c.verdict for c in failed} == {"fails"}


def gap_curve(slope_decay, slope_plateau, runs=20, depth=50):
    rows = []
    for run in range(runs):
        for layer in range(depth + 1):
            y = slope_decay * min(layer, 20) + slope_plateau * max(layer - 20, 0)
            rows.append((32, run, layer, y + RNG.normal(0, 0.05)))
    return pd.DataFrame(rows, columns=["width", "run", "layer", "log_gap"])


def test_fig2a_claims_hold_on_decay_then_plateau():
    out = verdicts(chain_judges.fig2a_claims(gap_curve(-0.1, 0.0), (5, 20), (30, 50), 0.1))
    assert out == {"decay_d32": "holds", "plateau_d32": "holds"}


def test_fig2a_claims_fail_on_growth_and_on_a_still_decaying_chain():
    out = verdicts(chain_judges.fig2a_claims(gap_curve(0.1, -0.05), (5, 20), (30, 50), 0.1))
    assert out == {"decay_d32": "fails", "plateau_d32": "fails"}


def test_fig2a_plateau_margin_is_a_margin_not_standard_errors():
    """A drift of 0.003 per layer (6% over the window) is inside a 10% margin and outside a 5% one,
    whatever the number of runs: fewer runs can only make it undecided, never a hold."""
    margin = chain_judges.plateau_slope_margin(0.1, (30, 50))
    assert margin == pytest.approx(math.log(1.1) / 20)
    flat = chain_judges.fig2a_claims(gap_curve(-0.1, 0.003, runs=40), (5, 20), (30, 50), 0.1)
    assert verdicts(flat)["plateau_d32"] == "holds"
    tight = chain_judges.fig2a_claims(gap_curve(-0.1, 0.003, runs=40), (5, 20), (30, 50), 0.02)
    assert verdicts(tight)["plateau_d32"] == "fails"
    few = chain_judges.fig2a_claims(gap_curve(-0.1, 0.003, runs=2), (5, 20), (30, 50), 0.05)
    assert verdicts(few)["plateau_d32"] in ("undecided", "fails")


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
    return chain_judges.fig2b_claims(table, (100, 600), 0.02, (1, 500), -0.46)


def test_fig2b_exponent_claim_holds_on_inverse_sqrt_with_finite_width_curvature():
    ok, paper = fig2b(power_law_table(-0.5, correction=0.8))
    assert ok.verdict == "holds" and ok.measured == pytest.approx(-0.5, abs=0.01)
    assert ok.interval == "bootstrap" and ok.tolerance == 0.02
    assert ok.details["plain_slope"] < -0.505  # the curvature a plain fit would see
    assert paper.verdict == "holds" and paper.measured == pytest.approx(-0.46, abs=0.005)
    assert paper.printed == -0.46


def test_fig2b_exponent_claims_fail_on_other_exponents():
    """The margin (0.02) is below half the distance between -1/2 and -0.46: each claim tells
    the two apart."""
    bad, paper = fig2b(power_law_table(-0.46, paper_exponent=-0.5))
    assert bad.verdict == "fails" and paper.verdict == "fails"
    assert len(bad.details["local_slopes"]) == 5


def test_fig2b_needs_four_widths():
    table = power_law_table(-0.5).query("width <= 64")
    with pytest.raises(ValueError, match="at least 4 widths"):
        fig2b(table)


# ---- given inputs (issue 11): the chain simulations accept H_0 in place of their default ----

_COSINE = dict(width=4, depth=3, n_runs=2, epsilon=1e-3, dtype="float64", device="cpu")
_COSINE.update(experiment_id="orthogonality.cosine_pair")
_GAP = dict(widths=[4, 6], batch_size=3, depth=3, n_runs=2, dtype="float64", device="cpu")
_GAP.update(experiment_id="orthogonality.gap_chain")


def test_cosine_pair_takes_its_inputs():
    bn = inputs.near_collinear_pair(4, 1e-3, torch.float64)
    vanilla = inputs.orthogonal_pair(4, torch.float64)
    default = chain_simulations.cosine_pair(**_COSINE).values["abs_cos"]
    given = chain_simulations.cosine_pair(**_COSINE, h0_bn=bn, h0_vanilla=vanilla)
    assert torch.equal(given.values["abs_cos"], default)
    other = chain_simulations.cosine_pair(**_COSINE, h0_vanilla=bn).values["abs_cos"]
    assert torch.equal(other[0], default[0]) and not torch.equal(other[1], default[1])
    assert torch.equal(other[1, :, 0], default[0, :, 0])  # layer 0: the BN net's pair
    with pytest.raises(ValueError, match=r"h0_bn must .*\(4, 2\)"):
        chain_simulations.cosine_pair(**_COSINE, h0_bn=torch.ones(4, 3))
    with pytest.raises(ValueError, match=r"h0_vanilla must .*\(2, 4, 2\)"):
        chain_simulations.cosine_pair(**_COSINE, h0_vanilla=torch.ones(3, 4, 2))


@pytest.mark.parametrize("product", chain_simulations.PRODUCTS)
def test_gap_chain_takes_its_input(product):
    start = {d: inputs.near_rank_one(d, 3, dtype=torch.float64) for d in (4, 6)}
    default = chain_simulations.gap_chain(**_GAP, product=product).values["gap"]
    given = chain_simulations.gap_chain(**_GAP, product=product, h0=start).values["gap"]
    assert torch.equal(given, default)
    g = torch.Generator().manual_seed(0)
    other = {d: torch.randn(2, d, 3, generator=g, dtype=torch.float64) for d in (4, 6)}
    changed = chain_simulations.gap_chain(**_GAP, product=product, h0=other).values["gap"]
    assert not torch.equal(changed, default)
    one = {**_GAP, "widths": [6], "product": product}
    assert torch.equal(
        chain_simulations.gap_chain(**one, h0=start[6]).values["gap"],
        chain_simulations.gap_chain(**one).values["gap"],
    )
    with pytest.raises(ValueError, match=r"h0\[4\] must .*\(4, 3\)"):
        chain_simulations.gap_chain(**_GAP, product=product, h0={4: start[6], 6: start[6]})
    with pytest.raises(ValueError, match="h0 must map every width"):
        chain_simulations.gap_chain(**_GAP, product=product, h0={6: start[6]})


def test_local_slopes_of_a_power_law_are_its_exponent():
    """mean = c d^beta gives beta between every pair of consecutive widths; a bend shows."""
    from sigprop.papers.orthogonality.verdicts import local_slopes

    widths = [8, 16, 32, 64]
    power = pd.Series([3.0 * d**-0.5 for d in widths], index=widths)
    assert local_slopes(power) == pytest.approx([-0.5, -0.5, -0.5])
    bent = pd.Series([1.0, 0.5, 0.5, 0.125], index=widths)
    assert local_slopes(bent) == pytest.approx([-1.0, 0.0, -2.0])
