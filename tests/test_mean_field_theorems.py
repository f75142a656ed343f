"""Theorem items of Thesis ch. 3 / app. B: the fixed point G_* (Eq. (B.36)), the tails of Lemmas
B.1, B.2 (with a Lemma 3.3 proxy) and the Assumption 3.1 mixing proxy; measure, then judge."""

import inspect
import io
import math

import pandas as pd
import pytest
import torch
from item_setups import quick_setup, quick_slice

from sigprop.papers.mean_field import (
    fixed_point_judges,
    fixed_point_theorems,
    mixing_judges,
    mixing_theorems,
    tail_judges,
    tail_theorems,
)
from sigprop.papers.mean_field import gram_dynamics as mf
from sigprop.pipeline.jobs import read_table

JUDGE = {
    fixed_point_theorems: fixed_point_judges.judge,
    mixing_theorems: mixing_judges.judge,
    tail_theorems: tail_judges.judge,
}
"""The torch-free judge of each theorem module's item."""


MARGINS = {
    fixed_point_theorems: {"agreement_margin": 0.05},
    mixing_theorems: {"merged_margin": 0.05, "z": 3.0},
    tail_theorems: {"slope_margin": 0.1},
}
"""The judge-only keys of each item (declared margins; mixing's z is its fit window)."""


ITEM = {
    fixed_point_theorems: "fixed_point",
    mixing_theorems: "mixing",
    tail_theorems: "lemma_b1_b2",
}
"""The theorem item of each module."""


def run_item(module, **settings):
    """Measure with ``settings`` (the quick config elsewhere), then judge the table read back
    from CSV with the whole config slice, as the workflow does; returns (table, claims)."""
    measure_keys = inspect.signature(module.measure).parameters
    config_slice = {**quick_slice("mean_field", ITEM[module]), **MARGINS[module], **settings}
    table = module.measure(
        **{k: v for k, v in config_slice.items() if k in measure_keys}, device="cpu"
    )
    csv = io.StringIO(table.to_csv(index=False))
    return table, JUDGE[module](read_table(csv), **config_slice)


def verdicts(claims):
    return {c.id.split(".")[-1]: c.verdict for c in claims}


def test_fixed_point_check_holds_and_fails_when_unconverged():
    small = dict(batch_sizes=[4], activations=["relu"], sphere_samples=20_000, map_samples=2000)
    small.update(map_replicas=2, chain_width=2000, chain_depth=20, chain_burn_in=8, chain_runs=2)
    small.update(agreement_margin=0.1)  # tiny samples: a coarse margin (the config's is 0.01)
    _, ok = run_item(fixed_point_theorems, map_iterations=15, map_average=5, **small)
    assert verdicts(ok) == {
        "map_iteration": "holds",
        "wide_chain": "holds",
        "diagonal_quadrature": "holds",
        "start_is_far": "holds",
    }
    assert [c.kind for c in ok] == ["paper", "paper", "setup", "control"]
    _, bad = run_item(fixed_point_theorems, map_iterations=1, map_average=1, **small)
    assert bad[0].verdict == "fails"  # one step from the start is far from G_*


FIXED_POINT_SETTINGS = dict(map_samples=1, map_iterations=1, map_average=1, map_replicas=2)
FIXED_POINT_SETTINGS.update(chain_width=1, chain_depth=2, chain_burn_in=1, chain_runs=2)
FIXED_POINT_SETTINGS.update(input_correlation=0.9, batch_sizes=[4], activations=["relu"])


def _fixed_point_table(dist_b, mc_error_b, dist_start=100.0):
    """One case with n = 4 and G_a = 0.5 I (||G_a||_F = 1)."""
    return pd.DataFrame(
        {
            "batch_size": [4],
            "activation": ["relu"],
            "diag_a": [0.5],
            "offdiag_a": [0.0],
            "diag_se_a": [0.0001],
            "diag_quadrature": [0.5],
            "dist_b": [dist_b],
            "mc_error_b": [mc_error_b],
            "dist_c": [0.001],
            "mc_error_c": [0.001],
            "dist_start": [dist_start],
        }
    )


def test_fixed_point_margin_decides_with_the_mc_interval():
    """A declared margin, never a multiple of the MC error: a distance whose interval lies below
    the margin holds, one above fails, one straddling it is undecided; a larger MC error can
    only make it undecided, never a hold."""
    judge = fixed_point_judges.judge
    holds = judge(_fixed_point_table(0.002, 0.001), agreement_margin=0.01, **FIXED_POINT_SETTINGS)
    fails = judge(_fixed_point_table(0.05, 0.001), agreement_margin=0.01, **FIXED_POINT_SETTINGS)
    noisy = judge(_fixed_point_table(0.002, 0.01), agreement_margin=0.01, **FIXED_POINT_SETTINGS)
    assert holds[0].verdict == "holds" and holds[0].measured == pytest.approx(0.002)
    assert fails[0].verdict == "fails"
    assert noisy[0].verdict == "undecided"
    # the control fails when the start already sits at G_*
    near = judge(_fixed_point_table(0.002, 0.001, 0.05), agreement_margin=0.01,
                 **FIXED_POINT_SETTINGS)  # fmt: skip
    assert near[-1].kind == "control" and near[-1].verdict == "fails"


def test_gaussian_quantile_ratio_closed_form():
    # P(T > s) = exp(-s^2): q_p = sqrt(-ln(1 - p))
    assert tail_judges.gaussian_quantile_ratio(0.99, 0.5) == pytest.approx(
        math.sqrt(math.log(100) / math.log(2))
    )
    t = torch.sqrt(-torch.log(torch.rand(200_000, generator=torch.Generator().manual_seed(1))))
    assert tail_theorems.quantile_ratio(t, 0.99, 0.5) == pytest.approx(
        tail_judges.gaussian_quantile_ratio(), rel=0.02
    )
    with pytest.raises(ValueError, match="lower < upper"):
        tail_judges.gaussian_quantile_ratio(0.5, 0.9)


def test_wls_slope_exact_line_and_errors():
    slope, se = tail_theorems.wls_slope([0.0, 1.0, 2.0], [1.0, 0.5, 0.0], [0.1, 0.1, 0.1])
    assert slope == pytest.approx(-0.5) and se == pytest.approx(0.1 / math.sqrt(2))
    with pytest.raises(ValueError, match=">= 2 points"):
        tail_theorems.wls_slope([1.0], [1.0], [1.0])


def test_tail_draws_come_in_chunks_of_their_own_streams(monkeypatch):
    """The tail statistics draw in chunks of at most _CHUNK_ELEMENTS / (d n) draws, chunk k from
    stream (tag, k, "rows"), and rows w = Z L^T with Z i.i.d. N(0, 1), so Cov w = L L^T."""
    from sigprop.engine import seeding

    monkeypatch.setattr(tail_theorems, "_CHUNK_ELEMENTS", 100)
    chunks = list(tail_theorems._chunks(23, 3, 4, "t.tail"))
    assert [m for m, _ in chunks] == [8, 8, 7]
    for k, (_, gen) in enumerate(chunks):
        assert torch.equal(
            torch.rand(3, generator=gen),
            torch.rand(3, generator=seeding.generator("t.tail", k, "rows")),
        )
    chol = torch.linalg.cholesky(mf.ar1_correlation(4, 0.5))
    w = tail_theorems._normal_rows(5000, 10, chol, torch.Generator().manual_seed(0), "cpu")
    z = torch.randn(5000, 10, 4, generator=torch.Generator().manual_seed(0), dtype=chol.dtype)
    assert w.shape == (5000, 10, 4) and torch.equal(w, z @ chol.mT)
    cov = (w.reshape(-1, 4).mT @ w.reshape(-1, 4)) / w[..., 0].numel()
    assert torch.allclose(cov, chol @ chol.mT, atol=0.03)


def test_collinear_inputs_are_collinear_after_centring():
    h = mixing_theorems.collinear_inputs("test.mf2", range(2), 300, 6, 1e-6)
    a = mf.bn_activation(h, "linear")
    cos = mf.gram(a)
    cos = cos / torch.sqrt(
        cos.diagonal(dim1=-2, dim2=-1)[..., :, None] * cos.diagonal(dim1=-2, dim2=-1)[..., None, :]
    )
    assert torch.allclose(cos.abs(), torch.ones_like(cos), atol=1e-4)
    with pytest.raises(ValueError, match="noise"):
        mixing_theorems.collinear_inputs("test.mf2", range(1), 10, 4, 0.0)


def test_lemma_b1_b2_tiny_passes_and_bounds_hold():
    table, claims = run_item(
        tail_theorems,
        batch_size=5,
        activations=["tanh"],
        widths=[20, 80],
        draws=300,
        fixed_point_samples=20_000,
        n_boot=50,
    )
    verdict = {c.id.split(".")[-1]: c for c in claims}
    assert verdict["row_norm_bound"].verdict == "holds"
    assert verdict["row_norm_bound"].measured <= 1.0 + 1e-12
    assert verdict["tail_control"].verdict == "holds"
    assert verdict["lemma3_3_control"].verdict == "holds"
    assert verdict["b1_tail"].verdict == "holds" and verdict["b2_tail"].verdict == "holds"
    assert {c.kind for c in claims} == {"identity", "paper", "control"}
    # E ||C_d - C||_F^2 = E ||x x^T - C||_F^2 / d exactly: normalised RMS is width-free
    rms = table["b1_normalised_rms"].to_numpy()
    assert rms[1] == pytest.approx(rms[0], rel=0.1)


def test_lemma_b1_b2_rejects_singular_and_unknown():
    with pytest.raises(ValueError, match="singular"):
        tail_theorems.measure(
            **quick_setup(
                "mean_field",
                "lemma_b1_b2",
                activations=["linear"],
                widths=[10, 20],
                draws=100,
                device="cpu",
                fixed_point_samples=1000,
                n_boot=10,
            )
        )
    with pytest.raises(ValueError, match="no bound B"):
        tail_theorems.measure(
            **quick_setup(
                "mean_field",
                "lemma_b1_b2",
                activations=["gelu"],
                widths=[10, 20],
                draws=100,
                device="cpu",
            )
        )
    with pytest.raises(ValueError, match="2 widths"):
        tail_theorems.measure(**quick_setup("mean_field", "lemma_b1_b2", widths=[10], device="cpu"))


def test_mixing_tiny_merges():
    table, claims = run_item(
        mixing_theorems,
        batch_size=5,
        widths=[100],
        activations=["relu"],
        depth=20,
        n_runs=8,
        fixed_point_samples=10_000,
        merged_from=14,
        n_boot=50,
    )
    verdict = {c.id.split(".")[-1]: c for c in claims}
    assert verdict["starts_differ"].verdict == "holds" and verdict["decay"].verdict == "holds"
    assert verdict["starts_differ"].kind == "control"
    assert set(table["summary"]) == {"distance", "isometry_gap"}
    with pytest.raises(ValueError, match="merged_from"):
        mixing_theorems.measure(
            **quick_setup("mean_field", "mixing", depth=5, merged_from=6, device="cpu")
        )
    with pytest.raises(ValueError, match="unknown summaries"):
        mixing_theorems.measure(
            **quick_setup("mean_field", "mixing", summaries=["rank"], device="cpu")
        )


def _tails_table(slope=-0.5, ctrl_slope=-0.1, ratio=1.5, exp_ratio=9.0):
    rows = []
    for width in (50, 200):
        row = {"activation": "tanh", "width": width, "max_row_norm_ratio": 0.9}
        row |= {"exp_ratio": exp_ratio, "b1_ratio": ratio, "b2_ratio": ratio}
        row |= {"b1_ratio_se": 0.02, "b2_ratio_se": 0.02}
        for k in ("b1", "b2", "l33"):
            row |= {f"{k}_slope": slope, f"{k}_slope_se": 0.005}
        row |= {"ctrl_slope": ctrl_slope, "ctrl_slope_se": 0.005}
        rows.append(row)
    return pd.DataFrame(rows)


TAIL_SETTINGS = dict(batch_size=10, activations=["tanh"], widths=[50, 200], draws=1000)
TAIL_SETTINGS.update(quantile=0.99, control_correlation=0.9, control_scale=2.0, n_boot=200)


def test_tail_claims_margins_can_fail():
    """The width slopes lie in -1/2 +- slope_margin (declared, not z SE); each claim and each
    control fails on a table made to contradict it."""

    def verdicts(table):
        claims = tail_judges.judge(table, slope_margin=0.1, **TAIL_SETTINGS)
        return {c.id.split(".")[-1]: c.verdict for c in claims}

    good = verdicts(_tails_table())
    assert set(good.values()) == {"holds"}, good
    bad = verdicts(_tails_table(slope=-0.8, ctrl_slope=-0.5, ratio=4.0, exp_ratio=1.5))
    for name in ("b1_width", "b2_width", "lemma3_3_width", "b1_tail", "b2_tail"):
        assert bad[name] == "fails", name
    assert bad["tail_control"] == "fails" and bad["lemma3_3_control"] == "fails"


def _mixing_table(first=1.0, tail=0.0, slope=-0.3):
    rows = []
    for layer in range(0, 31):
        rows.append(
            {
                "activation": "relu", "width": 200, "summary": "distance", "layer": layer,
                "mean_collinear": 1.0 + first * 0.5**layer, "mean_orthogonal": 1.0,
                "diff": first * 0.5**layer, "diff_se": 0.01, "slope": slope, "slope_se": 0.02,
                "alpha": 0.26, "fit_last_layer": 10, "first_t": 1.0, "tail_diff": tail,
                "tail_se": 0.005, "tail_t": 0.0,
            }
        )  # fmt: skip
    return pd.DataFrame(rows)


MIXING_SETTINGS = dict(batch_size=10, widths=[200], activations=["relu"], depth=30, n_runs=20)
MIXING_SETTINGS.update(summaries=["distance"], merged_from=20, n_boot=500, z=3.0)


def test_mixing_claims_can_fail():
    def verdicts(table):
        claims = mixing_judges.judge(table, merged_margin=0.05, **MIXING_SETTINGS)
        return {c.id.split(".")[-1]: c.verdict for c in claims}

    assert verdicts(_mixing_table()) == dict.fromkeys(("starts_differ", "decay", "merged"), "holds")
    bad = verdicts(_mixing_table(first=0.001, tail=0.2, slope=0.1))
    assert bad == dict.fromkeys(("starts_differ", "decay", "merged"), "fails")


def _after_requirements(claims):
    """Verdicts once requirements are applied, as ``claims.write`` does for an item's file."""
    from dataclasses import asdict

    from sigprop.verdicts.claims import apply_requirements

    records = apply_requirements([asdict(c) for c in claims], strict=False)
    return {r["id"].split(".")[-1]: r for r in records}


def test_fixed_point_agreement_requires_the_quadrature_check_and_a_far_start():
    """map_iteration and wide_chain presume our G_* (diagonal_quadrature) and a start that is
    not already at G_* (start_is_far): a start at G_* makes them invalid, not holds."""
    judge = fixed_point_judges.judge
    ok = _after_requirements(
        judge(_fixed_point_table(0.002, 0.001), agreement_margin=0.01, **FIXED_POINT_SETTINGS)
    )
    assert ok["map_iteration"]["verdict"] == "holds"
    assert ok["map_iteration"]["requires"] == (
        "mean_field.fixed_point.diagonal_quadrature mean_field.fixed_point.start_is_far"
    )
    near = judge(_fixed_point_table(0.002, 0.001, 0.05), agreement_margin=0.01,
                 **FIXED_POINT_SETTINGS)  # fmt: skip
    bad = _after_requirements(near)
    assert bad["start_is_far"]["verdict"] == "fails"
    for name in ("map_iteration", "wide_chain"):
        assert bad[name]["verdict"] == "invalid"
        assert "requires mean_field.fixed_point.start_is_far, which fails" in bad[name]["note"]
    assert all(c.tolerance_reason.startswith("wording: ") for c in near)


def test_tail_claims_require_bounded_rows_and_their_controls():
    """The tail claims presume Lemma B.1's hypothesis ||x||^2 <= B n (row_norm_bound) and a
    control that shows a heavy tail is detected; the Lemma 3.3 proxy presumes its control."""
    table = _tails_table(exp_ratio=1.5, ctrl_slope=-0.5)
    table["max_row_norm_ratio"] = 1.5
    after = _after_requirements(tail_judges.judge(table, slope_margin=0.1, **TAIL_SETTINGS))
    assert after["row_norm_bound"]["verdict"] == "fails"
    assert after["tail_control"]["verdict"] == "fails"
    assert after["lemma3_3_control"]["verdict"] == "fails"
    for name in ("b1_tail", "b2_tail", "b1_width", "b2_width", "lemma3_3_width"):
        assert after[name]["verdict"] == "invalid", name
    assert "lemma_b1_b2.lemma3_3_control, which fails" in after["lemma3_3_width"]["note"]
    good = _after_requirements(tail_judges.judge(_tails_table(), slope_margin=0.1,
                                                 **TAIL_SETTINGS))  # fmt: skip
    assert {r["verdict"] for r in good.values()} == {"holds"}
    assert good["row_norm_bound"]["tolerance_reason"].startswith("round_off: ")
    assert good["b1_width"]["tolerance_reason"].startswith("wording: ")


def test_mixing_claims_require_starts_that_differ():
    """Decay and merging presume that the two starts differ after one layer (the control)."""
    claims = mixing_judges.judge(_mixing_table(first=0.001), merged_margin=0.05, **MIXING_SETTINGS)
    after = _after_requirements(claims)
    assert after["starts_differ"]["verdict"] == "fails"
    assert after["decay"]["verdict"] == after["merged"]["verdict"] == "invalid"
    assert after["merged"]["tolerance_reason"].startswith("wording: ")
