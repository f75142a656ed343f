"""Tests of the depth sweep of Thesis Figs. 6.2, 6.3, C.9, C.10 and of its claims."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from sigprop.base.config import ConfigError
from sigprop.engine import gram_isometry
from sigprop.papers import load_registry
from sigprop.papers.gradients import bn_mlp
from sigprop.papers.gradients import depth_judges as checks
from sigprop.papers.gradients import depth_sweep_simulations as exp
from sigprop.papers.gradients import depth_sweep_tables as curves
from sigprop.papers.gradients.config_checks import check_config

ROOT = Path(__file__).resolve().parents[1]
N, D_IN, WIDTH = 8, 12, 8


@pytest.fixture
def synthetic_batch(monkeypatch):
    """A small real-like batch (n = d = 8, D = 12) in place of the dataset."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(D_IN, N, generator=g, dtype=torch.float64)
    labels = torch.arange(N) % 3

    def fake(**kwargs):
        return x.to(kwargs.get("dtype", torch.float64)), labels, 3

    monkeypatch.setattr(bn_mlp, "input_batch", fake)
    return x, labels


_SWEEP = dict(
    depths=[2, 4],
    n_runs=2,
    width=WIDTH,
    dtype="float64",
    degenerate={"distinct": 2, "repeats": 4},
    device="cpu",
    experiment_id="gradients.depth_sweep",
)


def _sweep(**over):
    return exp.depth_sweep(**{**_SWEEP, "batch": {}, **over})


def test_degenerate_batch_has_the_pattern_and_rank():
    x = torch.randn(20, 6, dtype=torch.float64)
    labels = torch.arange(6)
    xd, ld = exp.degenerate_batch(x, labels, 3, 2)
    assert xd.shape == (20, 6) and ld.tolist() == [0, 0, 1, 1, 2, 2]
    torch.testing.assert_close(xd[:, 1], x[:, 0])
    assert torch.linalg.matrix_rank(xd).item() == 3
    assert gram_isometry.isometry_gap(gram_isometry.gram(xd)).isinf()  # Remark 6.6: psi(X_0) = inf
    with pytest.raises(ValueError, match="distinct"):
        exp.degenerate_batch(x, labels, 7, 1)
    with pytest.raises(ValueError, match=">= 1"):
        exp.degenerate_batch(x, labels, 0, 2)


def test_sweep_matches_gradient_profile_and_invariances(synthetic_batch):
    x, labels = synthetic_batch
    out = _sweep()
    assert out.dims == ["variant", "depth", "run"]
    assert out.values["log_grad_fc1"].shape == (len(exp.VARIANTS), 2, 2)
    v = {name: i for i, name in enumerate(out.coords["variant"])}
    # fast path = one direct bn_mlp call with the documented seeding address
    arch = bn_mlp.Architecture(4, WIDTH, init="gaussian")
    direct = bn_mlp.gradient_profile(
        arch, x, labels, "gradients.depth_sweep.L4", [0, 1], 3, gap_layers=[3]
    )
    torch.testing.assert_close(out.values["log_grad_fc1"][v["gaussian"], 1], direct.log_grad[:, 1])
    torch.testing.assert_close(out.values["log_grad_fc0"][v["gaussian"], 1], direct.log_grad[:, 0])
    # psi is scale invariant and BN x sqrt(n) = sqrt(n) x Eq. (6.4): same weights, same psi
    gap = out.values["gap_last"]
    torch.testing.assert_close(gap[v["orthogonal"]], gap[v["no_mean_reduction"]])
    # rank-deficient representations: the degenerate batch and mean reduction give psi = inf
    assert gap[v["degenerate"]].isinf().all()
    assert (gap[v["mean_reduction"]] > 10).all()
    assert torch.isfinite(out.values["log_grad_fc1"]).all()


def test_sweep_rejects_bad_depths(synthetic_batch):
    with pytest.raises(ValueError, match="depths must be >= 2"):
        _sweep(depths=[1, 4])


def _no_dataset(**kwargs):
    raise AssertionError("the dataset must not be read when images are given")


def test_sweep_takes_its_batch(monkeypatch):
    """images/labels replace bn_mlp.input_batch's draw; the dataset only names the classes."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(D_IN, N, generator=g, dtype=torch.float64)
    labels = torch.arange(N) % 10
    monkeypatch.setattr(bn_mlp, "input_batch", lambda **kw: (x, labels, 10))
    batch = {"dataset": "fashion_mnist"}  # 10 classes, as the fake draw
    default = _sweep(batch=batch)
    monkeypatch.setattr(bn_mlp, "input_batch", _no_dataset)
    given = _sweep(batch=batch, images=x, labels=labels)
    for name, value in default.values.items():
        assert torch.equal(given.values[name], value), name
    item = load_registry().get("gradients", "depth_tanh", "simulation")  # the variant's item
    alone = item.run(**{**_SWEEP, "batch": batch, "images": x, "labels": labels, **item.constants})
    i = default.coords["variant"].index("tanh")
    assert torch.equal(alone.values["log_grad_fc1"][0], default.values["log_grad_fc1"][i])
    other = _sweep(batch=batch, images=torch.randn(D_IN, N, generator=g), labels=labels)
    assert not torch.equal(other.values["log_grad_fc1"], default.values["log_grad_fc1"])


@pytest.mark.parametrize(
    "images, labels, match",
    [
        (torch.ones(1, D_IN, N), torch.arange(N) % 10, "images must"),
        (torch.ones(D_IN, N), torch.arange(N + 1) % 10, "labels must"),
        (torch.ones(D_IN, N), None, "images need their labels"),
        (None, torch.arange(N) % 10, "labels were given without images"),
        (torch.ones(D_IN, N), torch.full((N,), 10), "labels must lie in 0..9"),
    ],
)
def test_sweep_rejects_a_bad_batch(monkeypatch, images, labels, match):
    monkeypatch.setattr(bn_mlp, "input_batch", _no_dataset)
    with pytest.raises(ValueError, match=match):
        _sweep(batch={"dataset": "fashion_mnist"}, images=images, labels=labels)


def _table(hue, slopes, depths=(5, 10, 50, 100, 200), runs=4, noise=0.01, seed=0):
    rng = np.random.default_rng(seed)
    rows = [
        {
            hue: level,
            "depth": d,
            "run": r,
            "log_grad": 1.0 + s * d + noise * rng.normal(),
            "gap_last": gap,
        }
        for level, (s, gap) in slopes.items()
        for d in depths
        for r in range(runs)
    ]
    return pd.DataFrame(rows)


ARGS = dict(window=[50, 1000], flat_slope=0.002, min_slope=0.005)


def test_fig6_3_claims_pass_and_fail_on_known_slopes():
    good = _table("init", {"orthogonal": (0.0, 1.0), "Gaussian": (0.01, 1.0)})
    claims = {
        c.id: c for c in checks.fig6_3_claims(good, **ARGS, min_difference=1.0, batch_size=100)
    }
    assert all(c.verdict == "holds" for c in claims.values())
    assert claims["gradients.fig6_3.gaussian_explodes"].interval == "t"
    np.testing.assert_allclose(
        claims["gradients.fig6_3.gaussian_explodes"].measured, 0.01, atol=1e-3
    )
    assert claims["gradients.fig6_3.gaussian_explodes"].details["candidate_rates"][
        "half_log_B_over_B_minus_2"
    ] == pytest.approx(0.5 * np.log(100 / 98))
    # negative control: swap the laws, every claim must fail
    bad = _table("init", {"orthogonal": (0.01, 1.0), "Gaussian": (0.0, 1.0)})
    assert not any(
        c.passed for c in checks.fig6_3_claims(bad, **ARGS, min_difference=1.0, batch_size=100)
    )


def test_fig6_2_fig_c10_and_fig_c9_claims():
    t = _table("batch", {"non-degenerate": (0.0, 1.0), "degenerate": (0.05, np.inf)})
    assert all(
        c.passed
        for c in checks.fig6_2_claims(t, **ARGS, min_difference=5.0, distinct=10, repeats=10)
    )
    t = _table("mean_reduction", {"with": (0.0, 1.0), "without": (0.0, 1.0)})
    assert all(c.passed for c in checks.fig_c10_claims(t, [50, 1000], 0.002))
    t = _table("mean_reduction", {"with": (0.0, 1.0), "without": (0.01, 1.0)})
    failed = {c.id for c in checks.fig_c10_claims(t, [50, 1000], 0.002) if not c.passed}
    assert failed == {"gradients.fig_c10.without_flat", "gradients.fig_c10.slopes_agree"}
    t = _table("activation", {"identity": (0.0, 1.0), "sin": (0.1, 1.0), "tanh": (0.08, 1.0)})
    t.loc[t["activation"] == "identity", "gap_last"] = np.exp(-t["depth"] / 50.0)
    claims = checks.fig_c9_claims(t, **{**ARGS, "min_slope": 0.05}, gap_floor=0.5, gap_decay=0.1)
    assert all(c.passed for c in claims), [c.id for c in claims if not c.passed]
    with pytest.raises(ValueError, match="fit window"):
        checks.fig_c10_claims(t.rename(columns={"activation": "mean_reduction"}), [300, 400], 0.002)


def test_tidy_selects_the_figure_curves():
    sweep = pd.DataFrame(
        {
            "variant": list(exp.VARIANTS),
            "depth": 5,
            "run": 0,
            "log_grad_fc0": 0.0,
            "log_grad_fc1": 1.0,
            "gap_last": 2.0,
        }
    )
    t = curves.tidy(sweep, "fig_c10")
    assert sorted(t["mean_reduction"]) == ["with", "without"] and (t["log_grad"] == 0.0).all()
    assert set(curves.tidy(sweep, "fig6_3")["init"]) == {"orthogonal", "Gaussian"}
    assert set(curves.palette("fig6_3")) == {"orthogonal", "Gaussian"}


@pytest.mark.parametrize(
    "override, message",
    [
        ({"depth_sweep": {"degenerate": {"distinct": 10, "repeats": 5}}}, "batch_size"),
        ({"depth_sweep": {"degenerate": {"distinct": 100, "repeats": 1}}}, "degenerate.distinct"),
        ({"depth_claims": {"window": [600, 900]}}, "depth_claims.window"),
    ],
)
def test_config_consistency_names_the_keys(override, message):
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    check_config(config)
    bad = copy.deepcopy(config)
    for item, keys in override.items():
        bad["gradients"][item].update(keys)
    with pytest.raises(ConfigError, match=message):
        check_config(bad)
