"""DJB21 App. F: non-linear BN chain Q_{l+1} = BN(W_l F(Q_l)), K, L (Eq. (19)), Fig. 6 claims."""

import math
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from sigprop.base.config import ConfigError
from sigprop.engine import chains, inputs, metrics, ops
from sigprop.papers.orthogonality import conjecture_simulations as oc
from sigprop.papers.orthogonality.config_checks import check_config
from sigprop.papers.orthogonality.conjecture_judges import fig6_claims, offdiag_margin
from sigprop.verdicts.claims import apply_requirements

ALL = ["relu", "sigmoid", "tanh", "sin", "linear", "tanh_plus_one"]


def unit_rows(x):
    """The App. F code's BN: each row divided by its Euclidean norm (no 1/sqrt(d))."""
    return x / x.norm(dim=-1, keepdim=True)


def test_new_activations_values():
    x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0], dtype=torch.float64)
    logistic = 1 / (1 + torch.exp(-x))
    torch.testing.assert_close(ops.activation("sigmoid")(x), logistic)
    torch.testing.assert_close(ops.activation("tanh_plus_one")(x), torch.tanh(x) + 1)
    # the code's "sigmoid" is the logistic stretched: tanh(x) + 1 = 2 logistic(2x)
    torch.testing.assert_close(ops.activation("tanh_plus_one")(x), 2 / (1 + torch.exp(-2 * x)))
    assert ops.activation("sigmoid")(torch.zeros(1)).item() == 0.5


def test_unit_norm_rows_are_sqrt_d_times_bn_rms_scaled(gen):
    """Q = sqrt(d) H with H = bn_rms_scaled(X); M = Q^T Q / d = H^T H has trace 1."""
    d, n = 24, 4
    x = torch.randn(3, d, n, generator=gen, dtype=torch.float64)
    h = ops.bn_rms_scaled(x)
    q = unit_rows(x)
    torch.testing.assert_close(q, math.sqrt(d) * h, rtol=1e-12, atol=1e-14)
    m = oc.gram_of_state(h)
    torch.testing.assert_close(m, q.mT @ q / d, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(m.diagonal(dim1=-2, dim2=-1).sum(-1), torch.ones(3, dtype=m.dtype))


@pytest.mark.parametrize("activation", ["tanh", "relu", "sigmoid"])
def test_activated_product_runs_the_app_f_chain_draw_for_draw(activation):
    """Step("bn_rms_scaled") with W F(sqrt(d) H) is the code's BN(W_l F(Q_l)) over sqrt(d)."""
    d, n, depth, runs = 10, 4, 30, [0, 1, 2]
    q = inputs.gaussian_inputs("t.app_f", runs, d, n)
    h = q / math.sqrt(d)
    step = chains.Step("bn_rms_scaled")
    product = chains.ActivatedProduct(
        chains.ExplicitProduct("t.app_f", runs, d), activation, math.sqrt(d)
    )
    weights = chains.ExplicitProduct("t.app_f", runs, d)  # the same stream, read directly
    f = ops.activation(activation)
    for _ in range(depth):
        h = step(h, product)
        q = unit_rows(weights.next_weights() @ f(q))
        torch.testing.assert_close(math.sqrt(d) * h, q, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("product", ["gram", "explicit"])
def test_grouped_product_equals_one_activated_product_per_group(product):
    d, n, runs = 12, 4, [0, 1, 2]
    acts, ids = ["relu", "sin"], ["t.g.a", "t.g.b"]

    def base(sid):
        if product == "gram":
            return chains.GaussianGramProduct(sid, runs, d, n)
        return chains.ExplicitProduct(sid, runs, d)

    h0, grouped = oc._stacked_chain(
        ids, runs, d, n, acts, product, torch.float64, torch.device("cpu")
    )
    singles = [
        chains.ActivatedProduct(base(s), a, math.sqrt(d)) for s, a in zip(ids, acts, strict=True)
    ]
    step = chains.Step("bn_rms_scaled")
    h, hs = h0, list(h0.unflatten(0, (2, -1)))
    for _ in range(5):
        h = step(h, grouped)
        hs = [step(x, p) for x, p in zip(hs, singles, strict=True)]
        torch.testing.assert_close(h, torch.cat(hs), rtol=1e-9, atol=1e-12)


def test_odd_activation_commutes_with_column_sign_flips():
    """F.2 mechanism: for odd F, BN(W F(Q D)) = BN(W F(Q)) D for a diagonal sign matrix D, so
    the invariant law is flip-invariant and K = I / n; not so for ReLU."""
    d, n, runs = 16, 4, [0]
    q0 = inputs.gaussian_inputs("t.flip", runs, d, n) / math.sqrt(d)
    flip = torch.tensor([1.0, -1.0, 1.0, -1.0], dtype=torch.float64)
    for activation, equal in [("tanh", True), ("sin", True), ("relu", False)]:
        outs = []
        for h in (q0, q0 * flip):
            p = chains.ActivatedProduct(chains.ExplicitProduct("t.flip", runs, d), activation, 4.0)
            for _ in range(3):
                h = chains.Step("bn_rms_scaled")(h, p)
            outs.append(h)
        assert torch.allclose(outs[0] * flip, outs[1], atol=1e-12) == equal, activation


def test_stationary_gram_is_symmetric_with_trace_one():
    runs = list(range(4))
    k = oc.stationary_gram(["t.k.a", "t.k.b"], runs, 16, 4, ["relu", "tanh"], 50)
    assert k.shape == (2, 4, 4, 4)
    torch.testing.assert_close(k, k.mT)
    torch.testing.assert_close(k.diagonal(dim1=-2, dim2=-1).sum(-1), torch.ones(2, 4).double())
    assert (k[0].flatten(1)[:, 1] > 0.02).all()  # ReLU: positive off-diagonal


def test_fluctuation_against_i_over_n_is_the_orthogonality_gap(gen):
    """With K = I / n and ||H||_F = 1, L(Q) = ||H^T H - I/n||_F = V(H) (DJB21 Eq. (2))."""
    h = ops.bn_rms_scaled(torch.randn(5, 20, 4, generator=gen, dtype=torch.float64))
    k = torch.eye(4, dtype=torch.float64) / 4
    torch.testing.assert_close(oc.fluctuation(h, k), metrics.orthogonality_gap(h))


def test_gram_path_agrees_in_law_with_explicit_weights_for_a_nonlinear_chain():
    """Stationary mean off-diagonal of M (ReLU, non-zero) agrees between the paths within 4 SE
    of the difference of the run means (runs are independent chains)."""
    d, n, runs = 24, 4, list(range(16))
    means = []
    for product in ("gram", "explicit"):
        k = oc.stationary_gram(["t.law.relu"], runs, d, n, ["relu"], 200, product)[0]
        means.append(k[:, ~torch.eye(n, dtype=torch.bool)].mean(dim=1))
    se = math.sqrt(sum(m.var().item() / len(runs) for m in means))
    assert abs(means[0].mean().item() - means[1].mean().item()) < 4 * se
    assert means[0].mean().item() > 10 * se  # the compared quantity is not trivially 0


def test_conjecture_chain_shapes_and_invariants():
    result = oc.conjecture_chain(
        widths=[8, 16],
        batch_size=4,
        activations=["tanh", "relu"],
        reference_depth=60,
        depth=30,
        burn_in=10,
        n_runs=3,
        product="gram",
        dtype="float64",
        device="cpu",
        experiment_id="orthogonality.conjecture_chain",
    )
    assert result.dims == ["activation", "width", "run"]
    for name, v in result.values.items():
        assert v.shape == (2, 2, 3) and torch.isfinite(v).all(), name
    assert (result.values["mean_fluctuation"] > 0).all()
    off = result.values["k_offdiag_max"]
    assert (off <= 0.25 + 1e-12).all()  # |K_ij| <= sqrt(K_ii K_jj), and the diagonal is ~ 1/n


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"activations": ["gelu_typo"]}, "activation must be one of"),
        ({"product": "fast"}, "product must be one of"),
        ({"burn_in": 30}, "burn_in"),
    ],
)
def test_conjecture_chain_rejects_bad_input(kwargs, message):
    setup = dict(
        widths=[8],
        batch_size=4,
        activations=["tanh"],
        reference_depth=10,
        depth=30,
        burn_in=0,
        n_runs=2,
        product="gram",
        dtype="float64",
        device="cpu",
        experiment_id="orthogonality.conjecture_chain",
    )
    with pytest.raises(ValueError, match=message):
        oc.conjecture_chain(**(setup | kwargs))


def test_activated_product_rejects_bad_input():
    base = chains.GaussianGramProduct("t", [0], 8, 4)
    with pytest.raises(ValueError, match="activation must be one of"):
        chains.ActivatedProduct(base, "softsign_typo")
    with pytest.raises(ValueError, match="scale"):
        chains.ActivatedProduct(base, "tanh", 0.0)


def synthetic_table(constants, slope=-0.5, offdiag=None, runs=8, seed=0):
    """L-bar = c_a d^slope times 1% run noise; K's mean off-diagonal per activation."""
    rng = np.random.default_rng(seed)
    offdiag = offdiag or {}
    rows = []
    for act, c in constants.items():
        for d in [16, 32, 64, 128, 256]:
            for r in range(runs):
                value = c * d**slope * (1 + 0.01 * rng.standard_normal())
                k = offdiag.get(act, 0.0) + 0.001 * rng.standard_normal()
                rows.append((act, d, r, value, k, abs(k)))
    columns = ["activation", "width", "run", "mean_fluctuation", "k_offdiag", "k_offdiag_max"]
    return pd.DataFrame(rows, columns=columns)


def claims_by_id(table, main):
    claims = fig6_claims(
        table,
        main,
        fit_min_width=32,
        slope_margin=0.04,
        distinct_margin=0.1,
        offdiag_share=0.1,
        batch_size=4,
    )
    return {c.id: c for c in claims}


def with_requirements(claims):
    """Verdicts after the item file's requirements (``claims.write``) are applied."""
    records = apply_requirements([asdict(c) for c in claims.values()], strict=False)
    return {r["id"]: r for r in records}


def test_fig6_claims_pass_on_the_conjectured_law():
    consts = {"relu": 1.3, "sigmoid": 0.4}
    table = synthetic_table(consts, offdiag={"relu": 0.07, "sigmoid": 0.23})
    claims = claims_by_id(table, list(consts))
    bad = [c.id for c in claims.values() if c.verdict != "holds"]
    assert not bad, bad
    assert claims["orthogonality.fig6.curves_differ"].kind == "control"
    assert claims["orthogonality.fig6.k_offdiag_relu"].kind == "control"
    assert claims["orthogonality.fig6.slope_relu"].measured == pytest.approx(-0.5, abs=0.02)
    assert claims["orthogonality.fig6.slope_relu"].details["fit_widths"] == [32, 64, 128, 256]


def test_fig6_claims_fail_where_they_should():
    """Negative controls: a d^{-0.3} law, identical curves (the paper's plot bug), an odd
    activation with a non-zero off-diagonal and a ReLU with none all fail."""
    consts = {"relu": 1.0, "tanh": 1.0}
    claims = claims_by_id(
        synthetic_table(consts, slope=-0.3, offdiag={"tanh": 0.05}), ["relu", "tanh"]
    )
    for what in ("slope_tanh", "curves_differ", "k_offdiag_tanh", "k_offdiag_relu"):
        assert claims[f"orthogonality.fig6.{what}"].verdict == "fails", what


def test_fig6_every_margin_states_its_reason():
    consts = {"relu": 1.3, "sigmoid": 0.4, "tanh": 1.0}
    claims = claims_by_id(
        synthetic_table(consts, offdiag={"relu": 0.07, "sigmoid": 0.23}), ["relu", "tanh"]
    )
    for c in claims.values():
        assert c.tolerance_reason.split(":")[0] in ("wording",), c.id
    assert "0.04" in claims["orthogonality.fig6.slope_relu"].tolerance_reason


def test_fig6_offdiag_margin_is_a_share_of_l_over_sqrt_n_n_minus_1():
    """The margin moves L from V by at most offdiag_share of L-bar: sqrt(n(n-1)) |c|."""
    assert offdiag_margin(0.07, 4, 0.1) == pytest.approx(0.007 / math.sqrt(12))
    consts = {"relu": 1.3, "tanh": 1.0}
    claims = claims_by_id(synthetic_table(consts, offdiag={"relu": 0.07}), ["relu", "tanh"])
    odd = claims["orthogonality.fig6.k_offdiag_tanh"]
    level = 1.0 * 256**-0.5
    assert odd.tolerance == pytest.approx(0.1 * level / math.sqrt(12), rel=0.02)
    assert odd.requires == "orthogonality.fig6.k_offdiag_relu"


def test_fig6_failing_controls_invalidate_the_claims_that_require_them():
    """An odd activation's zero off-diagonal requires the non-odd control (the test can see an
    off-diagonal); each of the seed's slopes requires the curves to differ (the paper's plot
    bug drew one curve four times)."""
    consts = {"relu": 1.0, "tanh": 1.0}
    claims = claims_by_id(synthetic_table(consts), ["relu", "tanh"])
    assert claims["orthogonality.fig6.k_offdiag_relu"].verdict == "fails"
    assert claims["orthogonality.fig6.curves_differ"].verdict == "fails"
    assert claims["orthogonality.fig6.k_offdiag_tanh"].verdict == "holds"
    assert claims["orthogonality.fig6.slope_tanh"].verdict == "holds"
    out = with_requirements(claims)
    for what, required in (
        ("k_offdiag_tanh", "k_offdiag_relu"),
        ("slope_tanh", "curves_differ"),
        ("slope_relu", "curves_differ"),
    ):
        assert out[f"orthogonality.fig6.{what}"]["verdict"] == "invalid", what
        assert (
            f"requires orthogonality.fig6.{required}" in out[f"orthogonality.fig6.{what}"]["note"]
        )
    fine = with_requirements(
        claims_by_id(
            synthetic_table({"relu": 1.3, "tanh": 1.0}, offdiag={"relu": 0.07}), ["relu", "tanh"]
        )
    )
    assert fine["orthogonality.fig6.k_offdiag_tanh"]["verdict"] == "holds"
    assert fine["orthogonality.fig6.slope_tanh"]["verdict"] == "holds"


def test_fig6_activations_beyond_the_seeds_four_are_setup_checks():
    consts = {"relu": 1.3, "sigmoid": 0.4, "linear": 0.9}
    table = synthetic_table(consts, offdiag={"relu": 0.07, "sigmoid": 0.23})
    claims = claims_by_id(table, ["relu", "sigmoid"])
    assert claims["orthogonality.fig6.slope_linear"].kind == "setup"
    assert claims["orthogonality.fig6.slope_linear"].requires == ""
    assert claims["orthogonality.fig6.slope_relu"].kind == "paper"


def test_fig6_claims_reject_bad_arguments():
    table = synthetic_table({"relu": 1.0, "tanh": 1.0})
    with pytest.raises(ValueError, match="main"):
        fig6_claims(table, ["relu", "gelu"], 32, 0.04, 0.1, 0.1, 4)
    with pytest.raises(ValueError, match=">= 3 widths"):
        fig6_claims(table, ["relu", "tanh"], 128, 0.04, 0.1, 0.1, 4)
    with pytest.raises(ValueError, match="batch_size"):
        fig6_claims(table, ["relu", "tanh"], 32, 0.04, 0.1, 0.1, 1)


@pytest.mark.parametrize(
    "override, message",
    [
        ({"conjecture_chain": {"burn_in": 500}}, "burn_in = 500 must be below"),
        ({"fig6": {"main": ["relu", "gelu"]}}, r"fig6.main \['gelu'\] are not simulated"),
        ({"fig6": {"fit_min_width": 256}}, "fit_min_width = 256 leaves"),
    ],
)
def test_config_consistency_names_the_keys(override, message):
    root = Path(__file__).resolve().parents[1]
    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    for item, values in override.items():
        config["orthogonality"][item] |= values
    with pytest.raises(ConfigError, match=message):
        check_config(config)
