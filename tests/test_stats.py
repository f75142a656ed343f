"""Tests of sigprop.stats."""

import numpy as np
import pandas as pd
import pytest

from sigprop import stats


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
