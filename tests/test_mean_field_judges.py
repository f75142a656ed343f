"""Claims of Thesis Figs. 3.1-3.4 (``papers.mean_field.judges``) and the Eq. (3.9) shape fit."""

import math

import numpy as np
import pandas as pd
import pytest

from sigprop.papers.mean_field import judges


def test_fit_decay_plateau_recovers_parameters():
    layers = np.arange(1, 21)
    n, d = 10, 400
    curve = 2.0 * (1 - 0.4) ** (layers / 2) + 0.6 * n / math.sqrt(d)
    c1, alpha, c2 = judges.fit_decay_plateau(layers, curve, n, d)
    assert (c1, alpha, c2) == pytest.approx((2.0, 0.4, 0.6), rel=1e-4)


def test_fitted_decay_plateau_recovers_the_eq_3_9_shape():
    """fit_decay_plateau recovers (c1, alpha, c2) of a noiseless decay_plateau_shape curve."""
    layers = np.arange(1, 21)
    curve = judges.decay_plateau_shape(layers, 2.0, 0.4, 0.5, 10, 400)
    c1, alpha, c2 = judges.fit_decay_plateau(layers, curve, 10, 400)
    assert (c1, alpha, c2) == pytest.approx((2.0, 0.4, 0.5), rel=1e-4)


def test_fig3_1_claims_detect_growth_and_contraction():
    rng = np.random.default_rng(0)
    rows = []
    for run in range(5):
        for layer in range(6):
            rows.append(("no_bn_linear", run, layer, 0.1 * layer + 0.01 * rng.random()))
            rows.append(("bn_tanh", run, layer, 1.0 / (1 + layer) + 0.01 * rng.random()))
    table = pd.DataFrame(rows, columns=["network", "run", "layer", "distance"])
    assert all(c.passed for c in judges.fig3_1_claims(table, 3.0))
    swapped = table.assign(
        network=table["network"].map({"no_bn_linear": "bn_tanh"}).fillna("no_bn_linear")
    )
    assert not any(c.passed for c in judges.fig3_1_claims(swapped, 3.0))
