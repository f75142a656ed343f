"""Assumption A_1 on an (n, d) grid (Thesis Fig. 2.3): observer, pass rule, boundary fit, claims."""

import copy
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from sigprop.base import store
from sigprop.base.config import ConfigError
from sigprop.engine import chains, ops
from sigprop.engine.metrics import smallest_singular_value
from sigprop.papers import load_registry
from sigprop.papers.orthogonality.assumption_judges import fig2_3_claims
from sigprop.papers.orthogonality.assumption_simulations import (
    A1Monitor,
    a1_grid,
    a1_holds,
    unit_frobenius_alpha,
)
from sigprop.papers.orthogonality.assumption_tables import (
    boundary,
    fit_boundary,
    pixel_table,
    printed_curve,
)
from sigprop.papers.orthogonality.config_checks import check_config

ROOT = Path(__file__).resolve().parents[1]


def test_smallest_singular_value_matches_svd(gen, dtype, rtol):
    h = torch.randn(3, 20, 6, generator=gen, dtype=torch.float64).to(dtype)
    expected = torch.linalg.svdvals(h.double())[..., -1]
    # sqrt of an eigenvalue: relative accuracy ~ sqrt(eps) * kappa in the worst case
    torch.testing.assert_close(smallest_singular_value(h).double(), expected, rtol=1e-3, atol=0)
    if dtype == torch.float64:
        torch.testing.assert_close(smallest_singular_value(h), expected, rtol=1e-10, atol=0)


def test_smallest_singular_value_rejects_wide_matrices():
    with pytest.raises(ValueError, match="d >= n"):
        smallest_singular_value(torch.zeros(4, 8))


def test_alpha0_is_scale_invariant_and_at_most_one_over_sqrt_n(gen):
    h = torch.randn(5, 40, 8, generator=gen, dtype=torch.float64)
    alpha = unit_frobenius_alpha(h)
    scales = torch.tensor([1e-3, 1.0, 7.0, 1e4, 3.0], dtype=torch.float64)[:, None, None]
    torch.testing.assert_close(unit_frobenius_alpha(h * scales), alpha, rtol=1e-12, atol=0)
    assert bool((alpha <= 1 / math.sqrt(8) + 1e-15).all())
    # an orthonormal-column matrix, scaled: all singular values equal, alpha0 = 1/sqrt(n)
    q = torch.linalg.qr(h).Q * 5.0
    torch.testing.assert_close(unit_frobenius_alpha(q), torch.full((5,), 1 / math.sqrt(8)).double())


def test_pass_rule_on_hand_made_cases():
    ratios = torch.tensor([0.5, 0.1, 0.0999999, 0.0, math.nan])
    assert a1_holds(ratios, 0.1).tolist() == [True, True, False, False, False]


def test_monitor_running_minimum_equals_naive_per_layer_svd():
    """The observer inside chains.simulate vs an explicit loop with a full SVD per layer."""
    runs, d, n, depth = list(range(6)), 16, 8, 60
    h0 = torch.randn(
        len(runs), d, n, dtype=torch.float64, generator=torch.Generator().manual_seed(5)
    )
    alpha0 = unit_frobenius_alpha(h0)
    naive_product = chains.GaussianGramProduct("test.a1", runs, d, n, 1.0 / d)
    h, ratios = h0.clone(), []
    for _ in range(depth):
        h = ops.bn_rms_scaled(naive_product(h))
        ratios.append(torch.linalg.svdvals(h)[:, -1] / alpha0)
    ratios = torch.stack(ratios, dim=1)
    minima = ratios.min(dim=1).values.sort().values
    threshold = float(minima[2:4].mean())  # half of the runs fail, half pass

    monitor = A1Monitor(alpha0, threshold)
    product = chains.GaussianGramProduct("test.a1", runs, d, n, 1.0 / d)
    trace = chains.simulate(h0, chains.Step("bn_rms_scaled"), product, depth, {"r": monitor})
    # sigma_n from the Gram eigenvalues is accurate to ~sqrt(eps) absolutely (||H_k||_F = 1)
    floor = 10 * math.sqrt(torch.finfo(torch.float64).eps) / float(alpha0.min())
    torch.testing.assert_close(trace.values["r"], ratios, rtol=1e-9, atol=floor)
    torch.testing.assert_close(monitor.minimum, ratios.min(dim=1).values, rtol=1e-9, atol=floor)
    below = ratios < threshold
    first = torch.where(below.any(1), below.int().argmax(1) + 1, 0)
    assert monitor.first_fail.tolist() == first.tolist()
    assert int((first > 0).sum()) == 3
    assert a1_holds(monitor.minimum, threshold).tolist() == (first == 0).tolist()
    assert monitor.layer == depth and monitor.state is not None


def test_grid_marks_invalid_pixels_and_early_stop_keeps_verdicts():
    kwargs = dict(batch_sizes=[4, 12], widths=[8, 12, 48], threshold=0.1, depth=60, n_runs=4)
    kwargs.update(experiment_id="orthogonality.a1_grid")
    full = a1_grid(**kwargs, dtype="float64", stop_when_all_failed=False, device="cpu")
    early = a1_grid(**kwargs, dtype="float64", stop_when_all_failed=True, device="cpu")
    valid = full.values["valid"]
    assert valid[1, 0].eq(0).all() and valid[0].eq(1).all() and valid[1, 1:].eq(1).all()
    assert torch.isnan(full.values["min_ratio"][1, 0]).all()
    for key in ("passed", "first_fail", "alpha0", "valid"):
        torch.testing.assert_close(early.values[key], full.values[key], equal_nan=True)
    # a stopped pixel covers fewer layers; its min ratio is an upper bound, still below threshold
    stopped = early.values["layers"][..., 0] < 60
    assert stopped.any()
    assert bool((early.values["min_ratio"] >= full.values["min_ratio"])[valid > 0].all())
    assert bool((early.values["min_ratio"][stopped] < 0.1).all())
    # (n=12, d=12): the square case collapses; (n=4, d=48) passes
    assert full.values["passed"][1, 1].eq(0).any() and full.values["passed"][0, 2].eq(1).all()


def test_float32_and_float64_share_draws_and_verdicts():
    kwargs = dict(batch_sizes=[8], widths=[32, 96], threshold=0.1, depth=100, n_runs=3)
    kwargs.update(experiment_id="orthogonality.a1_grid")
    kwargs.update(stop_when_all_failed=True)
    f32 = a1_grid(**kwargs, dtype="float32", device="cpu")
    f64 = a1_grid(**kwargs, dtype="float64", device="cpu")
    torch.testing.assert_close(f32.values["passed"], f64.values["passed"])
    torch.testing.assert_close(
        f32.values["min_ratio"], f64.values["min_ratio"], rtol=1e-3, atol=1e-4
    )


@pytest.mark.parametrize(
    "batch_sizes, widths, message",
    [
        ([16, 32], [4, 8], "no valid pixel"),
        ([], [32], "batch_sizes is empty"),
        ([4], [], "widths is empty"),
        ([8, 4], [32], "strictly increasing"),
        ([4], [32, 0], "positive integers"),
    ],
)
def test_bad_grids_raise(batch_sizes, widths, message):
    with pytest.raises(ValueError, match=message):
        a1_grid(
            batch_sizes,
            widths,
            0.1,
            10,
            2,
            "float64",
            True,
            device="cpu",
            experiment_id="orthogonality.a1_grid",
        )


def test_pixel_table_from_saved_grid(tmp_path):
    result = a1_grid(
        [4, 12],
        [8, 48],
        0.1,
        30,
        3,
        "float64",
        True,
        device="cpu",
        experiment_id="orthogonality.a1_grid",
    )
    item = load_registry().get("orthogonality", "a1_grid", "simulation")
    store.save(tmp_path / "g.safetensors", result, {}, nonfinite=item.nonfinite)
    table = pixel_table(store.load_frame(tmp_path / "g.safetensors"))
    assert list(zip(table["n"], table["d"], strict=True)) == [(4, 8), (4, 48), (12, 8), (12, 48)]
    row = table.set_index(["n", "d"]).loc[(12, 8)]
    assert not row["valid"] and not row["passed"] and row["runs_passed"] == 0
    assert (table["runs"] == 3).all()
    passed = table.set_index(["n", "d"])["passed"]
    assert passed[(4, 48)]


def pixels(grid: dict[int, dict[int, bool]], invalid=()) -> pd.DataFrame:
    """A hand-made pixel table: {n: {d: passed}}."""
    rows = [
        (n, d, (n, d) not in invalid, ok and (n, d) not in invalid)
        for n, col in grid.items()
        for d, ok in col.items()
    ]
    return pd.DataFrame(rows, columns=["n", "d", "valid", "passed"])


D = [32, 64, 128, 256, 512, 1024]


def column(d_min: float) -> dict[int, bool]:
    return {d: d >= d_min for d in D}


def test_boundary_statuses_and_inversions():
    table = pixels(
        {
            4: column(0),  # all pass: censored below
            8: column(128),
            16: {32: False, 64: True, 128: False, 256: True, 512: True, 1024: True},
            64: column(1e9),  # none pass
        }
    )
    b = boundary(table).set_index("n")
    assert b.loc[4, "status"] == "all_pass" and b.loc[64, "status"] == "none_pass"
    assert (b.loc[8, "d_min"], b.loc[8, "d_below"], b.loc[8, "status"]) == (128, 64, "inside")
    # the passing pixel at d=64 below a failure at d=128 does not move d_min; it is an inversion
    assert (b.loc[16, "d_min"], b.loc[16, "inversions"]) == (256, 1)
    assert b["inversions"].sum() == 1


def test_boundary_ignores_invalid_pixels():
    table = pixels({32: {16: True, 32: False, 64: True}}, invalid={(32, 16)})
    b = boundary(table)
    assert (b.loc[0, "d_min"], b.loc[0, "d_below"], b.loc[0, "status"]) == (64, 32, "inside")


def test_fit_recovers_an_exact_power_law_and_brackets_it():
    ns = [4, 8, 16, 32]
    d_grid = [2.0**j for j in range(2, 16)]
    table = pixels({n: {d: d >= n**2 for d in d_grid} for n in ns})
    fit = fit_boundary(boundary(table))
    assert fit["k"] == pytest.approx(2.0) and fit["c"] == pytest.approx(1.0)
    # one octave per grid step: the worst tilt over log n = log 4 .. log 32 is ...
    x = np.log(ns)
    w = (x - x.mean()) / ((x - x.mean()) ** 2).sum()
    assert fit["tolerance"] == pytest.approx(np.log(2) * w[w > 0].sum())
    assert fit["k_low"] < 2.0 < fit["k_high"]


def test_fit_needs_enough_inside_points():
    table = pixels({4: column(0), 8: column(128), 16: column(512)})
    assert math.isnan(fit_boundary(boundary(table), min_points=3)["k"])
    assert fit_boundary(boundary(table), min_points=2)["k"] == pytest.approx(2.0)


def test_printed_curve_is_real_only_above_28():
    values = printed_curve([20, 28, 29, 60])
    assert np.isnan(values[:2]).all()
    assert values[2] == pytest.approx(1.0) and values[3] == pytest.approx(32**1.8)


def claims_by_id(table, **kw):
    args = dict(threshold=0.1, depth=1000, min_fit_points=3, n2_constant=1.0, exponent_margin=0.05)
    args |= kw
    return {c.id.split(".")[-1]: c for c in fig2_3_claims(table, **args)}


def test_claims_on_a_quadratic_boundary():
    ns = [4, 8, 16, 32, 48]
    table = pixels({n: {d: d >= 2 * n**2 for d in [2.0**j for j in range(4, 14)]} for n in ns})
    c = claims_by_id(table)
    # k ~ 2 sits on the caption's bound: the grid-rounding interval straddles it
    assert c["exponent_caption"].verdict in ("holds", "undecided")
    # one octave per grid step: the rounding alone spans 1.8 and 2 (a fine grid decides it below)
    assert c["exponent_printed"].verdict == "undecided"
    assert c["exponent_printed"].printed == 1.8 and c["exponent_caption"].printed == 2.0
    assert c["monotone_in_d"].verdict == "holds" and c["monotone_in_d"].measured == 0
    # d >= 1 n^2 does not suffice when the boundary is 2 n^2: a negative control
    assert c["holds_above_n2"].verdict == "fails"
    assert claims_by_id(table, n2_constant=2.0)["holds_above_n2"].verdict == "holds"
    # at n = 32, 48 the printed curve (4^1.8 ~ 12, 20^1.8 ~ 220) lies far below 2 n^2
    sep = c["printed_curve_separates"]
    assert sep.verdict == "fails" and 0 < sep.measured < 1


FINE_D = [2.0 ** (j / 16) for j in range(16 * 13)]


@pytest.mark.parametrize("exponent, verdict", [(1.8, "holds"), (2.0, "fails"), (1.6, "fails")])
def test_exponent_printed_separates_the_printed_18_from_the_caption_2(exponent, verdict):
    """Issue 24, list 3: k = 1.487 used to pass "within" 1.8 by a grid tolerance of 0.35, wider
    than the 0.2 between 1.8 and 2. With the margin 0.05 and the interval of k from its own fit
    (OLS SE and grid rounding), a boundary at n^1.8 holds and one at n^2 or n^1.6 fails."""
    ns = [4, 8, 16, 32, 64]
    table = pixels({n: {d: d >= n**exponent for d in FINE_D} for n in ns})
    claim = claims_by_id(table)["exponent_printed"]
    assert claim.verdict == verdict, claim
    assert claim.tolerance == 0.05 and claim.interval == "se"
    assert claim.measured == pytest.approx(exponent, abs=0.02)


def test_exponent_printed_is_undecided_on_a_coarse_grid():
    """One octave per grid step at three batch sizes: the rounding alone spans 1.8 and 2."""
    ns = [4, 8, 16]
    table = pixels({n: {d: d >= n**1.9 for d in [2.0**j for j in range(2, 12)]} for n in ns})
    assert claims_by_id(table)["exponent_printed"].verdict == "undecided"


def test_claims_printed_curve_holds_when_it_is_the_boundary():
    ns = [30, 36, 44, 60]
    d_grid = [2.0**j for j in range(0, 12)]
    table = pixels({n: {d: d >= printed_curve(n) for d in d_grid} for n in ns})
    c = claims_by_id(table)
    sep = c["printed_curve_separates"]
    assert sep.verdict == "holds" and sep.measured == 0 and sep.interval == "exact"


def test_claims_count_inversions_and_reject_empty_tables():
    table = pixels({8: {32: True, 64: False, 128: True}, 16: column(256)})
    assert claims_by_id(table)["monotone_in_d"].measured == 1
    with pytest.raises(ValueError, match="no valid pixel"):
        claims_by_id(pixels({32: {16: True}}, invalid={(32, 16)}))


def quick_config():
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


@pytest.mark.parametrize(
    "override, message",
    [
        ({"batch_sizes": [40, 48], "widths": [16, 32]}, "no pixel has d >= n"),
        ({"batch_sizes": [4, 8, 16]}, "must include an n > 28"),
        ({"widths": [64, 32]}, "widths .* must be strictly increasing"),
    ],
)
def test_config_consistency_of_the_grid(override, message):
    config = copy.deepcopy(quick_config())
    config["orthogonality"]["a1_grid"].update(override)
    with pytest.raises(ConfigError, match=message):
        check_config(config)
    config = copy.deepcopy(quick_config())
    config["orthogonality"]["fig2_3"]["min_fit_points"] = 99
    with pytest.raises(ConfigError, match="min_fit_points = 99"):
        check_config(config)
