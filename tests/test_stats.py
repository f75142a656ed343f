"""Tests of sigprop.engine.stats."""

import numpy as np
import pandas as pd
import pytest

from sigprop.engine import stats


def test_bootstrap_slope_recovers_an_exact_power_law():
    table = pd.DataFrame(
        [(w, r, 3.0 * w**-0.5) for w in (8, 16, 32, 64) for r in range(5)],
        columns=["width", "run", "y"],
    )
    slope = stats.bootstrap_slope(table, "width", "y")
    assert slope.value == pytest.approx(-0.5) and slope.se == pytest.approx(0.0, abs=1e-12)


def test_corrected_fit_recovers_the_leading_power():
    """log y = a + beta log x + c / x is recovered exactly, where a plain fit is biased."""
    table = pd.DataFrame(
        [(w, r, 2.0 * w**-0.5 * np.exp(3.0 / w)) for w in (8, 16, 32, 64, 128) for r in range(3)],
        columns=["width", "run", "y"],
    )
    assert stats.bootstrap_slope(table, "width", "y", inverse_correction=True).value == (
        pytest.approx(-0.5)
    )
    assert stats.bootstrap_slope(table, "width", "y").value < -0.52


def test_bootstrap_slope_is_deterministic():
    rng = np.random.default_rng(1)
    table = pd.DataFrame(
        [(w, r, w**-0.5 * rng.lognormal(0, 0.1)) for w in (8, 16, 32) for r in range(10)],
        columns=["width", "run", "y"],
    )
    assert stats.bootstrap_slope(table, "width", "y") == stats.bootstrap_slope(table, "width", "y")


def test_mean_ci_contains_the_mean_and_uses_student_t():
    mean, low, high = stats.mean_ci(np.array([1.0, 2.0, 3.0]))
    assert mean == 2.0
    assert high - mean == pytest.approx(4.302653 * 1.0 / np.sqrt(3), rel=1e-6)
    assert low < mean < high


@pytest.mark.parametrize(("z", "n", "expected"), [(3.0, 8, 4.5299737), (3.0, 28, 3.3030492)])
def test_t_multiplier_matches_the_student_t_quantile(z, n, expected):
    """t_{n-1} quantile at the two-sided level of z normal SE (scipy.stats gives the same)."""
    from scipy import stats as st

    assert stats.t_multiplier(z, n) == pytest.approx(expected, rel=1e-7)
    assert stats.t_multiplier(z, n) == st.t.ppf(st.norm.cdf(z), n - 1)
    assert np.isnan(stats.t_multiplier(z, 1))


def test_mean_ci_uses_the_t_quantile_of_scipy_stats():
    from scipy import stats as st

    values = np.array([1.0, 2.5, 2.0, 4.0])
    mean, low, high = stats.mean_ci(values)
    half = st.t.ppf(0.975, 3) * values.std(ddof=1) / 2
    assert (mean, low, high) == (2.375, 2.375 - half, 2.375 + half)


def test_a_nan_standard_error_is_not_a_missing_interval():
    """One run has no interval (-inf, inf: undecided); a NaN SE with degrees of freedom is a
    non-finite number (NaN interval: the claim is invalid, never undecided)."""
    from sigprop.verdicts import claims

    assert stats.from_se(1.0, float("nan"), df=0, n=1).interval() == (-np.inf, np.inf)
    low, high = stats.from_se(1.0, float("nan"), df=4, n=5).interval()
    assert np.isnan(low) and np.isnan(high)
    claim = claims.evaluate(
        "x.nan_se", "s", "src", "paper", stats.from_se(1.0, float("nan"), df=4, n=5), "<=", 2.0
    )
    assert claim.verdict == "invalid"
