"""Tests of the Dan+20 theorem items Lemma 3, Prop. 8, Examples 9, 11 and 12.

Each check runs at small arguments and must pass all its claims; each also has a counterexample
whose claims must fail, so the verdicts are shown to depend on the numbers.
"""

import math
import re
from functools import partial
from pathlib import Path

import pytest
import torch
import yaml
from item_setups import Checked, quick_setup, run_theorem

from sigprop.engine import metrics, ops
from sigprop.engine.stats import mean_se
from sigprop.papers.rank_collapse import spectral_lemma_judges as rcj
from sigprop.papers.rank_collapse import spectral_lemma_spec
from sigprop.papers.rank_collapse import spectral_lemmas as rc
from sigprop.papers.rank_collapse.items import ITEMS

ROOT = Path(__file__).resolve().parents[1]
QUICK = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["rank_collapse"]
# Judge arguments that the tests below leave as in config/config.yaml.
LEMMA3_JUDGE = dict(laws=["gaussian", "uniform"], rank_tolerance=0.03)
EXAMPLES11_12_JUDGE = dict(tol=1e-12, alpha_bound=0.9)

SMALL = {
    "lemma3": dict(
        width=8, n_samples=8, depth=400, n_runs=4, gammas=[0.5, 0.9], burn_in=50, checkpoints=[100],
        **LEMMA3_JUDGE,
    ),
    "prop8": dict(widths=[8, 16, 32], n_spectra=4, rtol=1e-10, basis="hadamard"),
    "example9": dict(width=8, gammas=[0.1, 0.2], n_runs=8, n_samples=64, antithetic=True),
    "examples11_12": dict(
        widths=[8, 16], n_spectra=8, alpha_widths=[16, 64, 256, 1024, 4096], matrix_max_width=64,
        betas=[0.5, 0.75], basis="hadamard", **EXAMPLES11_12_JUDGE,
    ),
}  # fmt: skip

COLUMNS = {
    "lemma3": {
        "width",
        "n_samples",
        "n_runs",
        "gamma",
        "law",
        "layer",
        "log10_ratio_qr",
        "log10_ratio_qr_se",
        "log10_ratio_svd",
        "r_mean",
        "r_max",
        "rate",
        "rate_se",
    },
    "prop8": {
        "width",
        "basis",
        "n_spectra",
        "err_trace_m_cubed",
        "err_trace_diag_m2_squared",
        "err_frobenius_m_squared",
        "err_frobenius_drift",
        "printed_eq44_rel_deviation",
    },
    "example9": {
        "width",
        "gamma",
        "eps",
        "law",
        "n_runs",
        "n_samples",
        "lambda1",
        "lambda1_plus",
        "lambda1_plus_se",
        "small",
        "small_plus",
        "small_plus_se",
        "frob",
        "frob_plus",
        "frob_delta",
        "frob_delta_se",
        "predicted_delta",
        "paper_bound",
    },
    "examples11_12": {
        "example",
        "spectrum",
        "width",
        "beta",
        "k",
        "method",
        "n_spectra",
        "ratio_mean",
        "ratio_min",
        "ratio_max",
        "slope",
        "predicted_exponent",
        "even_spread_exponent",
    },
}


THEOREMS = {item.name: item for item in ITEMS if item.kind == "theorem"}


run_item = partial(run_theorem, "rank_collapse")
"""Theorem item ``name`` of the family, run as the workflow runs it (``item_setups``)."""


@pytest.fixture(scope="module")
def small_checks() -> dict[str, Checked]:
    return {name: run_item(name, **kwargs, device="cpu") for name, kwargs in SMALL.items()}


def failed(check: Checked, pattern: str = "") -> list[str]:
    """Claims that do not hold, errata (printed forms that are wrong) left out: they must fail
    (``errata_hold``)."""
    return [c.id for c in check.claims if not c.passed and pattern in c.id and c.kind != "erratum"]


def errata_hold(check: Checked) -> list[str]:
    return [c.id for c in check.claims if c.kind == "erratum" and c.verdict != "fails"]


def passed(check: Checked, pattern: str = "") -> list[str]:
    return [c.id for c in check.claims if c.passed and pattern in c.id]


@pytest.mark.parametrize("name", list(SMALL))
def test_small_settings_pass_every_claim(small_checks, name):
    check = small_checks[name]
    assert check.claims
    assert failed(check) == [], [(c.id, c.measured, c.bound) for c in check.claims]
    assert errata_hold(check) == []


@pytest.mark.parametrize("name", list(SMALL))
def test_quick_defaults_pass_every_claim(name):
    """The quick config (config/config.yaml, also the measures' defaults) passes every claim
    (each a few seconds single-threaded)."""
    check = run_item(name, **QUICK[name], device="cpu")
    assert failed(check) == [], [(c.id, c.measured, c.bound) for c in check.claims]
    assert errata_hold(check) == []


@pytest.mark.parametrize("name", list(SMALL))
def test_tables_have_the_documented_columns(small_checks, name):
    table = small_checks[name].table
    assert COLUMNS[name] <= set(table.columns)
    assert len(table) > 0


@pytest.mark.parametrize("name", list(SMALL))
def test_claim_ids_and_sources(small_checks, name):
    ids = [c.id for c in small_checks[name].claims]
    assert len(ids) == len(set(ids))
    for c in small_checks[name].claims:
        assert re.fullmatch(rf"rank_collapse\.{name}\.[a-z0-9_]+", c.id), c.id
        assert c.source.startswith("Dan+20"), c.source


# ---------------------------------------------------------------------------------------------
# Lemma 3


def test_lemma3_tiny_gamma_short_depth_does_not_collapse():
    """Counterexample: gamma = 1e-3 over 50 layers: the gap (~gamma^2) is invisible, r ~ d/2."""
    check = run_item(
        "lemma3",
        width=8,
        n_samples=8,
        depth=50,
        n_runs=4,
        gammas=[1e-3],
        burn_in=10,
        checkpoints=[],
        **LEMMA3_JUDGE,
    )
    assert len(failed(check, ".rate_")) == 2
    assert len(failed(check, ".rank_one_")) == 2
    assert check.table["r_max"].min() > 2


def test_lemma3_qr_tracking_agrees_with_the_direct_svd(small_checks):
    """Between two layers where float64 still resolves sigma_2, the QR-tracked log ratio drops
    as much as the direct SVD of the renormalized product (the two differ by an O(1) offset)."""
    table = small_checks["lemma3"].table.set_index(["law", "gamma", "layer"])
    for law, gamma in [("gaussian", 0.5), ("uniform", 0.5)]:
        qr = (
            table.loc[(law, gamma, 400), "log10_ratio_qr"]
            - table.loc[(law, gamma, 100), "log10_ratio_qr"]
        )
        svd = (
            table.loc[(law, gamma, 400), "log10_ratio_svd"]
            - table.loc[(law, gamma, 100), "log10_ratio_svd"]
        )
        assert svd < -5
        assert abs(qr - svd) < 1.0


def test_two_column_gram_schmidt_is_qr(gen):
    y = torch.randn(3, 5, 8, 2, generator=gen, dtype=torch.float64)
    q, log_r = rc._orthonormalize_pair(y)
    q_ref, r_ref = torch.linalg.qr(y)
    signs = torch.sign(r_ref.diagonal(dim1=-2, dim2=-1))
    torch.testing.assert_close(q, q_ref * signs[..., None, :])
    torch.testing.assert_close(log_r, r_ref.diagonal(dim1=-2, dim2=-1).abs().log())


def test_lemma3_is_reproducible():
    kwargs = dict(width=6, n_samples=6, depth=30, n_runs=2, gammas=[0.5], burn_in=5, **LEMMA3_JUDGE)
    first, second = run_item("lemma3", **kwargs), run_item("lemma3", **kwargs)
    assert first.table.equals(second.table)


# ---------------------------------------------------------------------------------------------
# Proposition 8


def test_hadamard_construction_has_unit_diagonal_and_equal_row_norms():
    d = 16
    lam = rc._random_spectra(d, 3, "test.prop8", torch.device("cpu"))
    m = ops.second_moment(rc._h_from_spectrum(rc._basis("hadamard", d, 5, "", "cpu"), lam))
    torch.testing.assert_close(m.diagonal(dim1=-2, dim2=-1), torch.ones(5, d, dtype=m.dtype))
    rows = m.square().sum(-1)
    torch.testing.assert_close(rows, rows[..., :1].expand_as(rows))
    torch.testing.assert_close(torch.linalg.eigvalsh(m).flip(-1), lam.sort(-1, True).values)


def test_prop8_unequal_row_norms_break_the_row_norm_identities():
    """Counterexample: a Haar eigenbasis gives unequal row norms; the spectral identities for
    Tr(M^3) and ||M||_F^2 still hold, those for Tr(diag(M^2)^2) and delta_F do not."""
    check = run_item("prop8", widths=[8, 16], n_spectra=4, basis="random", rtol=1e-10)
    assert sorted(failed(check)) == [
        "rank_collapse.prop8.frobenius_drift",
        "rank_collapse.prop8.trace_diag_m2_squared",
    ]


def test_prop8_printed_identity_is_off_by_d(small_checks):
    table = small_checks["prop8"].table
    assert (table["printed_eq44_rel_deviation"] - (table["width"] - 1)).abs().max() < 1e-9


# ---------------------------------------------------------------------------------------------
# Example 9


def test_example9_flat_spectrum_is_a_counterexample():
    """eps = 1 gives M = I (all eigenvalues equal): one BN layer now spreads the spectrum, so the
    leading eigenvalue and ||M||_F^2 grow; every Monte Carlo claim must fail."""
    check = run_item(
        "example9",
        width=8,
        gammas=[0.1],
        eps=1.0,
        laws=["gaussian"],
        n_runs=8,
        n_samples=64,
        antithetic=True,
    )
    monte_carlo = [c for c in check.claims if "printed_eq78" not in c.id]
    assert len(monte_carlo) == 4
    assert not any(c.passed for c in monte_carlo)


def test_example9_small_gamma_matches_prop8_prediction():
    """Lemma 7 with Prop. 8: E||M_+||_F^2 - ||M||_F^2 -> gamma^2 delta_F(lambda) as gamma -> 0
    (antithetic pairs remove the odd orders; tolerance 4 SE plus 5% for the O(gamma^2) rest)."""
    check = run_item(
        "example9",
        width=8,
        gammas=[0.01],
        eps=0.1,
        laws=["uniform"],
        n_runs=8,
        n_samples=64,
        antithetic=True,
    )
    row = check.table.iloc[0]
    tolerance = 4 * row["frob_delta_se"] + 0.05 * abs(row["predicted_delta"])
    assert abs(row["frob_delta"] - row["predicted_delta"]) < tolerance


def test_example9_chunking_changes_nothing(monkeypatch):
    """W are drawn in chunks; every draw is copied out of the stream's reused buffer, so the
    result is the same for any chunk size (130 draws span three 64-layer stream blocks)."""
    kwargs = dict(
        width=8, gammas=[0.1], laws=["gaussian"], n_runs=2, n_samples=130, antithetic=True
    )
    reference = run_item("example9", **kwargs).table
    monkeypatch.setattr(rc, "SAMPLE_CHUNK", 7)
    chunked = run_item("example9", **kwargs).table
    numeric = reference.select_dtypes("number").columns
    assert (reference[numeric] - chunked[numeric]).abs().max().max() < 1e-12


def test_example9_small_eigenvalues_balance_the_leading_one(small_checks):
    """Tr M_+ = d: the mean small eigenvalue is (d - lambda_1(M_+)) / (d - 1) in every row."""
    t = small_checks["example9"].table
    expected = (t["width"] - t["lambda1_plus"]) / (t["width"] - 1)
    assert (t["small_plus"] - expected).abs().max() < 1e-10


# ---------------------------------------------------------------------------------------------
# Examples 11 and 12


def test_example11_fails_without_equal_row_norms():
    """Counterexample: with a Haar eigenbasis Tr(diag(M^2)^2) > ||lambda||_2^4 / d, so g2 / g1
    exceeds 1 and projection spectra with k < d miss equality."""
    check = run_item(
        "examples11_12",
        widths=[8, 16],
        n_spectra=8,
        alpha_widths=[16, 64],
        betas=[0.5, 0.75],
        basis="random",
        matrix_max_width=0,
        **EXAMPLES11_12_JUDGE,
    )
    assert sorted(failed(check)) == [
        "rank_collapse.examples11_12.equal_eigenvalues_ratio_one",
        "rank_collapse.examples11_12.ratio_at_most_one",
    ]


def test_example12_small_beta_is_a_counterexample():
    """beta = 0.25 < 1/3: the even bulk dominates both norms and alpha tends to 1, not 0."""
    check = run_item(
        "examples11_12",
        widths=[8],
        n_spectra=2,
        alpha_widths=[16, 256, 4096],
        betas=[0.25],
        basis="hadamard",
        matrix_max_width=0,
        **EXAMPLES11_12_JUDGE,
    )
    assert sorted(failed(check)) == [
        "rank_collapse.examples11_12.alpha_below_0p9_b0p25",
        "rank_collapse.examples11_12.alpha_slope_b0p25",
    ]


def test_example12_matrix_and_spectral_alpha_agree(small_checks):
    t = small_checks["examples11_12"].table
    spike = t[t["spectrum"] == "spike"].pivot_table(
        index=["beta", "width"], columns="method", values="ratio_mean"
    )
    both = spike.dropna()
    assert len(both) == 2 * 2  # widths 16 and 64 <= matrix_max_width, two betas
    assert (both["matrix"] - both["spectrum"]).abs().max() < 1e-12


def test_example12_slopes_approach_the_predicted_exponent(small_checks):
    """beta >= 1/2: over d = 16..4096 the fitted slope is within 0.1 of beta - 1 (Eq. (89))."""
    t = small_checks["examples11_12"].table
    rows = t[(t["spectrum"] == "spike") & (t["method"] == "spectrum")]
    for _, row in rows.drop_duplicates("beta").iterrows():
        assert abs(row["slope"] - row["predicted_exponent"]) < 0.1
        assert row["even_spread_exponent"] == pytest.approx(row["beta"] - 1)


def test_even_spread_exponent_regimes():
    assert spectral_lemma_spec.even_spread_exponent(0.75) == pytest.approx(-0.25)
    assert spectral_lemma_spec.even_spread_exponent(0.4) == pytest.approx(-0.2)
    assert spectral_lemma_spec.even_spread_exponent(0.25) == 0.0


def test_spectral_ratio_equals_the_matrix_ratio_on_random_spectra():
    d = 32
    lam = rc._random_spectra(d, 4, "test.ratio", torch.device("cpu"))
    h = rc._h_from_spectrum(rc._basis("hadamard", d, lam.shape[0], "", "cpu"), lam)
    torch.testing.assert_close(rc._ratio_matrix(h), rc._ratio_spectral(lam), rtol=1e-12, atol=0)
    torch.testing.assert_close(metrics.frobenius_drift(h), rc._drift_spectral(lam))


# ---------------------------------------------------------------------------------------------
# validation


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: rc.measure_prop8(**quick_setup("rank_collapse", "prop8", widths=[12])),
            "powers of two",
        ),
        (
            lambda: rc.measure_prop8(
                **quick_setup("rank_collapse", "prop8", widths=[8], basis="dft")
            ),
            "basis must be one of",
        ),
        (
            lambda: rc.measure_lemma3(
                **quick_setup("rank_collapse", "lemma3", gammas=[0.0], depth=10, burn_in=1)
            ),
            "gammas must be > 0",
        ),
        (
            lambda: rc.measure_lemma3(
                **quick_setup("rank_collapse", "lemma3", n_runs=1, depth=10, burn_in=1)
            ),
            "n_runs must hold integers >= 2",
        ),
        (
            lambda: rc.measure_lemma3(
                **quick_setup("rank_collapse", "lemma3", depth=10, burn_in=10)
            ),
            "burn_in",
        ),
        (
            lambda: rc.measure_lemma3(
                **quick_setup("rank_collapse", "lemma3", laws=["cauchy"], depth=10, burn_in=1)
            ),
            "weight law",
        ),
        (
            lambda: rc.measure_example9(**quick_setup("rank_collapse", "example9", width=10)),
            "powers of two",
        ),
        (
            lambda: rc.measure_examples11_12(
                **quick_setup("rank_collapse", "examples11_12", betas=[1.0])
            ),
            r"betas must lie in \[0, 1\)",
        ),
    ],
)
def test_bad_arguments_are_rejected(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_claim_tags_are_id_safe():
    assert rcj._tag(0.1) == "0p1"
    assert rcj._tag(1e-3) == "0p001"
    assert rcj._tag(0.75) == "0p75"
    assert math.isnan(mean_se([1.0])[1])
