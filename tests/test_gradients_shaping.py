"""sigprop.papers.gradients.shaping (Thesis Eq. (C.155), app. C.5) and the activation-shaping
claims."""

import math
from dataclasses import asdict

import numpy as np
import pandas as pd
import pytest
import torch

from sigprop.papers.gradients import bn_mlp, gain_simulations, shaping
from sigprop.papers.gradients import gain_judges as checks
from sigprop.verdicts.claims import apply_requirements


def test_rate_sign_positive_when_gradients_grow_toward_input():
    log_grad = torch.tensor([[30.0 - 0.5 * k for k in range(31)]])  # grows toward fc_0
    assert shaping.explosion_rate(log_grad, 20).item() == pytest.approx(0.5)
    assert shaping.explosion_rate(-log_grad, 10, gap=5).item() == pytest.approx(-0.5)


@pytest.mark.parametrize("layer, gap", [(5, 10), (31, 10), (5, 0)])
def test_rate_rejects_bad_layer(layer, gap):
    with pytest.raises(ValueError):
        shaping.explosion_rate(torch.zeros(2, 31), layer, gap)


def test_power_law_recovers_exact_parameters():
    alpha = np.array([0.3, 0.5, 0.7, 1.0, 1.3])
    fit = shaping.fit_power_law(alpha, 0.107 * alpha**2.65)
    assert fit.c1 == pytest.approx(0.107, rel=1e-10)
    assert fit.c2 == pytest.approx(2.65, rel=1e-10)
    assert fit.r2 == pytest.approx(1.0) and fit.n == 5


def test_power_law_rejects_nonpositive_rate():
    with pytest.raises(ValueError):
        shaping.fit_power_law([0.5, 0.7, 1.0], [0.01, -0.001, 0.1])
    with pytest.raises(ValueError):
        shaping.fit_power_law([0.5, 1.0], [0.01, 0.1])


def test_gain_exponent_delta_method():
    gamma, se = shaping.gain_exponent(2.5, 0.1, k=1.0)
    assert gamma == pytest.approx(0.4) and se == pytest.approx(0.1 / 6.25)
    with pytest.raises(ValueError):
        shaping.gain_exponent(-1.0)


def test_small_gain_linearizes_tanh():
    """alpha -> 0 makes sigma(alpha x) ~ alpha x: tanh's profile approaches the identity net's
    (BN is scale invariant; only the read-out sees alpha)."""
    g = torch.Generator().manual_seed(0)
    x, labels = torch.randn(40, 16, generator=g, dtype=torch.float64), torch.arange(16) % 4
    prof = {
        act: bn_mlp.gradient_profile(
            bn_mlp.Architecture(12, 16, "batch_norm", act, gain=1e-4), x, labels, "t", [0], 4
        ).log_grad
        for act in ("tanh", "linear")
    }
    assert torch.allclose(prof["tanh"], prof["linear"], atol=1e-5)


def _fig65_table(sin_slope):
    rows = []
    for gamma, slopes in (
        (0.0, {"identity": 0.0, "sin": sin_slope}),
        (0.4, {"identity": -0.01, "sin": -0.01}),
    ):
        for act, s in slopes.items():
            for run in range(3):
                for depth in (5, 50, 200):
                    rows.append(
                        (gamma, act, depth, run, 1.0 + s * depth + 1e-3 * run * (-1) ** depth)
                    )
    return pd.DataFrame(rows, columns=["exponent", "activation", "depth", "run", "log_grad"])


def test_fig65_claims_fail_without_explosion():
    ok = {c.id: c.passed for c in checks.fig6_5_claims(_fig65_table(0.13), 0.05, 0.002)}
    assert all(ok.values()) and "gradients.fig6_5.explodes_sin" in ok
    bad = {c.id: c.passed for c in checks.fig6_5_claims(_fig65_table(0.01), 0.05, 0.002)}
    assert bad["gradients.fig6_5.explodes_sin"] is False


def test_fig_c1_claims_on_exact_power_law():
    rows = [
        ("sin", a, layer, run, 0.1 * a**2.0 * (1 + 0.01 * run))
        for a in (0.4, 0.6, 0.8, 1.0)
        for layer in (50, 100)
        for run in range(3)
    ]
    table = pd.DataFrame(rows, columns=["activation", "gain", "layer", "run", "rate"])
    got = {c.id: c for c in checks.fig_c1_claims(table, 0.4, 0.98, 0.4, 1.0)}
    assert "(mean over layers [50, 100])" in got["gradients.fig_c1.increasing_sin"].statement
    assert got["gradients.fig_c1.power_law_sin"].details["c2"] == pytest.approx(2.0)
    assert got["gradients.fig_c1.increasing_sin"].passed
    # 1 / c2 = 0.5 > 0.4: gamma = 0.4 does not make the rates summable (k = 0.8)
    assert got["gradients.fig_c1.gain_exponent_sin"].verdict == "fails"
    assert got["gradients.fig_c1.gain_exponent_sin"].measured == pytest.approx(0.5)


def _fig_c2_table(sin_rate) -> pd.DataFrame:
    """Fig. C.2's rates: identity at 0.016, sin at ``sin_rate(gamma)``, 3 runs a little apart."""
    rows = []
    for depth in (50, 100):
        for gamma in (0.0, 0.5, 1.0):
            for run in range(3):
                noise = 1e-4 * run
                rows.append(("identity", depth, gamma, run, 0.016 + noise))
                rows.append(("sin", depth, gamma, run, sin_rate(gamma) + noise))
    return pd.DataFrame(rows, columns=["activation", "depth", "exponent", "run", "rate"])


def test_fig_c2_claims_use_identity_baseline():
    table = _fig_c2_table(lambda gamma: 0.016 + 0.13 * math.exp(-3 * gamma))
    claims = checks.fig_c2_claims(table, 1.0, 0.01, baseline="identity", used_exponent=1.0)
    got = {c.id: c.passed for c in claims}
    assert all(got.values()) and len(got) == 5
    # lists of numpy scalars print as [np.int64(50), ...] under numpy 2: statements print plain
    assert all("np." not in c.statement for c in claims)
    assert "at every depth [50, 100]" in claims[0].statement
    strict = {
        c.id: c.passed
        for c in checks.fig_c2_claims(table, 0.5, 0.01, baseline="identity", used_exponent=0.5)
    }
    assert strict["gradients.fig_c2.no_explosion_sin"] is False
    assert strict["gradients.fig_c2.used_exponent_sin"] is False  # 0.13 e^-1.5 = 0.029 > 0.01
    assert strict["gradients.fig_c2.used_exponent_reduces_sin"] is True  # 0.13 (1 - e^-1.5)
    with pytest.raises(ValueError, match="used_exponent"):
        checks.fig_c2_claims(table, 1.0, 0.01, baseline="identity", used_exponent=0.4)


def test_fig_c2_reductions_presume_the_explosion_without_gain():
    """A rate that never exploded (the control fails) cannot be reduced: the no-explosion and
    reduction claims are invalid, not holds."""
    table = _fig_c2_table(lambda gamma: 0.02 - 0.002 * gamma)
    claims = checks.fig_c2_claims(table, 1.0, 0.01, baseline="identity", used_exponent=0.5)
    own = {c.id.rsplit(".", 1)[-1]: c.verdict for c in claims}
    records = {
        r["id"].rsplit(".", 1)[-1]: r for r in apply_requirements([asdict(c) for c in claims])
    }
    assert records["explodes_without_gain_sin"]["verdict"] == "fails"
    for name in ("no_explosion_sin", "used_exponent_sin", "used_exponent_reduces_sin"):
        assert own[name] == "holds" and records[name]["verdict"] == "invalid"
        assert (
            "requires gradients.fig_c2.explodes_without_gain_sin, which fails"
            in (records[name]["note"])
        )
    assert records["decreasing_sin"]["verdict"] == "holds"
    reasons = {c.id.rsplit(".", 1)[-1]: c.tolerance_reason for c in claims}
    assert reasons["no_explosion_sin"].startswith("wording: 'for several exponent values")
    assert reasons["decreasing_sin"].startswith("none: ")


# ---- given inputs (issue 11): the gain simulations take images/labels in place of the draw ----

_BATCH = {"dataset": "fashion_mnist"}  # 10 classes
_COMMON = dict(runs=2, batch=_BATCH, width=6, norm="batch_norm", bias=True, dtype="float64")
_COMMON.update(device="cpu")
GAIN_SIMULATIONS = {
    "gain_depth": (
        gain_simulations.gain_depth,
        dict(activations=["tanh"], exponents=[0.0, 0.4], depths=[2, 3], layer=1),
    ),
    "constant_gain": (
        gain_simulations.constant_gain,
        dict(activations=["sin"], gains=[0.5], depth=4, layers=[3], gap=2),
    ),
    "exponent_rate": (
        gain_simulations.exponent_rate,
        dict(activations=["sin"], exponents=[0.4], depths=[3], from_layer=1, gap=2),
    ),
}


def _no_dataset(**kwargs):
    raise AssertionError("the dataset must not be read when images are given")


@pytest.mark.parametrize("name", GAIN_SIMULATIONS)
def test_gain_simulations_take_their_batch(monkeypatch, name):
    simulation, args = GAIN_SIMULATIONS[name]
    args = {**args, "experiment_id": f"gradients.{name}"}
    g = torch.Generator().manual_seed(5)
    x = torch.randn(7, 6, generator=g, dtype=torch.float64)
    labels = torch.tensor([0, 3, 9, 3, 1, 0])
    monkeypatch.setattr(bn_mlp, "input_batch", lambda **kw: (x, labels, 10))
    default = simulation(**args, **_COMMON)
    monkeypatch.setattr(bn_mlp, "input_batch", _no_dataset)
    (key,) = default.values
    given = simulation(**args, **_COMMON, images=x, labels=labels)
    assert torch.equal(given.values[key], default.values[key])
    other = simulation(**args, **_COMMON, images=x.flip(1), labels=labels)
    assert not torch.equal(other.values[key], default.values[key])
    with pytest.raises(ValueError, match="images must"):
        simulation(**args, **_COMMON, images=x.T.reshape(-1), labels=labels)
    with pytest.raises(ValueError, match="labels must"):
        simulation(**args, **_COMMON, images=x, labels=labels[:5])
