"""Thesis Table C.1 (app. C.4): the rank rules, the cosine, the experiment on a tiny local source,
the table and its claims."""

import copy
import gzip
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from sigprop.base.config import ConfigError
from sigprop.base.store import load_frame, save
from sigprop.datasets import data
from sigprop.datasets.generated_datasets import idx_bytes
from sigprop.engine import metrics
from sigprop.papers.gradients import batch_rank_judges, batch_rank_tables
from sigprop.papers.gradients import batch_rank_simulations as exp
from sigprop.papers.gradients.config_checks import check_config
from sigprop.verdicts.claims import judge_records

EPS32 = torch.finfo(torch.float32).eps


def _with_spectrum(sigma: torch.Tensor, d: int, gen: torch.Generator) -> torch.Tensor:
    """A float64 d x n matrix U diag(sigma) V^T with Haar-like U, V (QR of Gaussians)."""
    n = sigma.numel()
    u = torch.linalg.qr(torch.randn(d, n, generator=gen, dtype=torch.float64)).Q
    v = torch.linalg.qr(torch.randn(n, n, generator=gen, dtype=torch.float64)).Q
    return u @ torch.diag(sigma) @ v.T


def test_float64_rank_is_numpy_and_metrics_rule(gen):
    """sigma_1 max(D, n) eps64 is numpy's default matrix_rank rule and numerical_rank's with
    rtol eps64; a product of rank r has rank r; a duplicated column loses exactly one."""
    x = torch.randn(4, 30, 12, generator=gen, dtype=torch.float64)
    low = torch.randn(30, 5, generator=gen, dtype=torch.float64) @ torch.randn(
        5, 12, generator=gen, dtype=torch.float64
    )
    batch = torch.cat([x, low[None]])
    ranks = exp.float64_rank(batch)
    expected = [np.linalg.matrix_rank(b.numpy()) for b in batch]
    assert ranks.tolist() == expected == [12, 12, 12, 12, 5]
    eps64 = torch.finfo(torch.float64).eps
    assert torch.equal(ranks, metrics.numerical_rank(batch, rtol_per_dim=eps64))
    dup = x.clone()
    dup[..., -1] = dup[..., 0]
    assert exp.float64_rank(dup).tolist() == [11] * 4


def test_float32_gram_rank_is_the_squared_spectrum_threshold(gen):
    """The authors' rule on the float32 Gram counts sigma_i^2 > n eps32 sigma_1^2 (sigma(G) =
    sigma(X)^2): a full-rank X whose spectrum crosses sqrt(n eps32) loses every value below it."""
    n, d = 64, 100
    cut = math.sqrt(n * EPS32)  # 2.8e-3
    sigma = torch.logspace(0, -5, n, dtype=torch.float64)
    sigma = sigma[(sigma / cut - 1).abs() > 0.3]  # keep clear of the threshold
    x = _with_spectrum(sigma, d, gen)
    stats = exp.batch_statistics(x[None], step=1e-6)
    expected = int((sigma > cut).sum())
    assert 0 < expected < len(sigma)
    assert stats["gram_rank_f32"].item() == expected
    assert stats["threshold_rank"].item() == expected
    assert stats["rank_f64"].item() == len(sigma)
    assert stats["log10_margin"].item() > 5
    # the authors' number is torch.linalg.matrix_rank of X X^T in PyTorch's (n, D) layout
    rows = x.T.to(torch.float32)
    assert exp.float32_gram_rank(x).item() == torch.linalg.matrix_rank(rows @ rows.T).item()


def test_quantization_rank_counts_above_half_step(gen):
    """#{sigma_i > (step / 2) sqrt(D n)}: the bound ||E||_2 <= (step / 2) sqrt(D n) for any
    perturbation of at most step / 2 per entry."""
    n, d, step = 10, 40, 0.01
    level = step / 2 * math.sqrt(d * n)
    sigma = torch.tensor([10.0, 5, 2, 1.2, 0.8, 0.5, 0.09, 0.05, 0.01, 0.001], dtype=torch.float64)
    stats = exp.batch_statistics(_with_spectrum(sigma, d, gen)[None], step)
    assert stats["quantization_rank"].item() == int((sigma > level).sum()) == 6


def test_mean_cosine_closed_forms(gen):
    """Identical samples: 1; orthogonal: 0; x and -x: -1; equals the pairwise loop."""
    col = torch.rand(20, 1, generator=gen, dtype=torch.float64)
    assert exp.mean_cosine(col.repeat(1, 5)).item() == pytest.approx(1.0, abs=1e-12)
    assert exp.mean_cosine(torch.eye(6, dtype=torch.float64)).item() == pytest.approx(0.0, abs=0)
    assert exp.mean_cosine(torch.cat([col, -col], 1)).item() == pytest.approx(-1.0, abs=1e-12)
    x = torch.randn(3, 15, 7, generator=gen, dtype=torch.float64)
    cos = torch.nn.functional.cosine_similarity(x[..., :, None], x[..., None, :], dim=-3)
    naive = torch.stack([c[~torch.eye(7, dtype=torch.bool)].mean() for c in cos])
    torch.testing.assert_close(exp.mean_cosine(x), naive)
    with pytest.raises(ValueError, match="n >= 2"):
        exp.mean_cosine(col)
    with pytest.raises(ValueError, match="float64"):
        exp.batch_statistics(x.float(), 1.0)


@pytest.fixture
def tiny_source(monkeypatch, tmp_path):
    """A 300-image Fashion-MNIST-like IDX source (random grey levels), the only source."""
    rng = np.random.default_rng(6)
    folder = tmp_path / "src" / "fashion-mnist"
    folder.mkdir(parents=True)
    arrays = {
        "train-images-idx3-ubyte": rng.integers(0, 256, (300, 28, 28)),
        "train-labels-idx1-ubyte": rng.integers(0, 10, 300),
        "t10k-images-idx3-ubyte": rng.integers(0, 256, (5, 28, 28)),
        "t10k-labels-idx1-ubyte": rng.integers(0, 10, 5),
    }
    for name, array in arrays.items():
        (folder / f"{name}.gz").write_bytes(gzip.compress(idx_bytes(array)))
    monkeypatch.setenv(data.ENV_SOURCES, str(tmp_path / "src"))
    monkeypatch.setitem(data.LOCAL_SOURCES, "fashion_mnist", [])
    return tmp_path / "root"


def _run(root, **kw):
    args = dict(
        datasets=["fashion_mnist"],
        batch_sizes=[8, 64],
        batches=4,
        control_batches=2,
        normalizations=["raw", "normalized"],
        data_root=str(root),
        download=False,
        device="cpu",
        experiment_id="gradients.table_c1",
    )
    return exp.table_c1(**{**args, **kw})


def test_experiment_on_a_tiny_source(tiny_source):
    """Shapes and dims; seeded batches (two calls agree); both normalizations see the same
    images (same float64 rank, random pixels are full rank); control rank n - 1 on the first
    control batches only; n > D and unknown normalizations raise."""
    result = _run(tiny_source)
    assert result.dims == ["dataset", "normalization", "n", "batch"]
    assert set(result.values) == set(exp.QUANTITIES)
    for v in result.values.values():
        assert v.shape == (1, 2, 2, 4)
    ranks = result.values["rank_f64"]
    assert torch.equal(ranks[0, :, 0], torch.full((2, 4), 8.0))
    assert torch.equal(ranks[0, :, 1], torch.full((2, 4), 64.0))
    control = result.values["control_rank"]
    assert torch.equal(
        control[0, :, :, :2], torch.tensor([7.0, 63.0]).view(1, 2, 1).expand(2, 2, 2)
    )
    assert control[..., 2:].isnan().all()
    assert torch.equal(_run(tiny_source).values["mean_cosine"], result.values["mean_cosine"])
    # random uniform grey levels: cosine of raw pixels near E[x]^2 / E[x^2] = 3/4
    assert result.values["mean_cosine"][0, 0].mean().item() == pytest.approx(0.75, abs=0.02)
    with pytest.raises(ValueError, match="<= D = 784"):
        _run(tiny_source, batch_sizes=[800])
    with pytest.raises(ValueError, match="normalization"):
        _run(tiny_source, normalizations=["whitened"])
    with pytest.raises(ValueError, match="control_batches"):
        _run(tiny_source, control_batches=5)


def _frame(tiny_source, tmp_path) -> pd.DataFrame:
    path = tmp_path / "t.safetensors"
    result = _run(tiny_source, batch_sizes=[16, 256], batches=3)
    save(path, result, {}, nonfinite=("control_rank",))
    return load_frame(path)


def test_table_and_claims(tiny_source, tmp_path):
    """Aggregation per cell; random pixels are full rank (claims pass) but do not reproduce the
    printed Fashion-MNIST ranks (fails: the comparison can fail); an injected rank deficit
    fails ``full_rank``; the markdown shows the printed rows."""
    frame = _frame(tiny_source, tmp_path)
    table = batch_rank_tables.table_c1(frame)
    assert len(table) == 4 and (table["batches"] == 3).all()
    row = table[(table["normalization"] == "raw") & (table["n"] == 256)].iloc[0]
    assert row["printed_mean"] == 238.19 and row["rank_f64_min"] == 256
    assert math.isnan(row["printed_cosine"])
    claims = {c.id: c for c in batch_rank_judges.table_c1_claims(table, 1.0, 0.01, 0.05, 0.005)}
    assert claims["gradients.table_c1.full_rank"].verdict == "holds"
    assert claims["gradients.table_c1.duplicate_control"].verdict == "holds"
    assert claims["gradients.table_c1.deficit_is_tolerance"].verdict == "holds"
    # random pixels are well conditioned: no float32 deficit, the printed 238 is not reproduced
    assert claims["gradients.table_c1.float32_deficit"].verdict == "fails"
    printed = claims["gradients.table_c1.printed_rank_fashion_mnist_n256"]
    assert printed.verdict == "fails" and printed.printed == 238.19
    assert claims["gradients.table_c1.printed_rank_fashion_mnist_n16"].verdict == "holds"
    assert "gradients.table_c1.printed_cosine_fashion_mnist" not in claims  # no n = 512
    broken = frame.copy()
    broken.loc[0, "rank_f64"] -= 1
    claims = {
        c.id: c
        for c in batch_rank_judges.table_c1_claims(
            batch_rank_tables.table_c1(broken), 1.0, 0.01, 0.05, 0.005
        )
    }
    assert claims["gradients.table_c1.full_rank"].verdict == "fails"
    text = batch_rank_tables.markdown(table, "quick")
    assert "fashion_mnist, printed | 16.00 ± 0.00" in text and "275.37 ± 4.20" not in text
    assert "fashion_mnist, raw, measured" in text


def test_printed_rank_claim_passes_on_the_printed_values():
    """One claim per printed row: a table equal to the printed row with the printed std holds
    (within the two-rank margin); a row shifted by 5 ranks fails; a row shifted by half a rank
    with a wide spread is undecided (its interval straddles the margin)."""
    printed = batch_rank_tables.PRINTED_RANK["fashion_mnist"]
    rows = [
        {
            "dataset": "fashion_mnist",
            "normalization": "raw",
            "n": n,
            "batches": 100,
            "gram_rank_f32_mean": m,
            "gram_rank_f32_std": s,
            "printed_mean": m,
            "printed_std": s,
        }
        for n, (m, s) in printed.items()
    ]
    table = pd.DataFrame(rows).assign(printed_cosine=math.nan)

    def verdicts(t):
        c = {"rank_margin": 2.0}
        records = batch_rank_judges._printed_context(t, c)
        return {r.id: r.verdict for r in judge_records(records, c)}

    assert set(verdicts(table).values()) == {"holds"} and len(verdicts(table)) == len(printed)
    shifted = table.copy()
    shifted.loc[shifted["n"] == 512, "gram_rank_f32_mean"] += 5.0
    assert verdicts(shifted)["printed_rank_fashion_mnist_n512"] == "fails"
    wide = table.copy()
    at = wide["n"] == 512
    wide.loc[at, "gram_rank_f32_mean"] += 1.5
    wide.loc[at, "gram_rank_f32_std"] = 10.0
    wide.loc[at, "batches"] = 5
    assert verdicts(wide)["printed_rank_fashion_mnist_n512"] == "undecided"


def test_config_cross_checks():
    root = Path(__file__).resolve().parents[1]
    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    check_config(config)
    bad = copy.deepcopy(config)
    bad["gradients"]["table_c1"]["batch_sizes"] = [16, 1024]
    with pytest.raises(ConfigError, match="gradients.table_c1.batch_sizes"):
        check_config(bad)
    bad = copy.deepcopy(config)
    bad["gradients"]["table_c1"]["control_batches"] = 500
    with pytest.raises(ConfigError, match="gradients.table_c1.control_batches"):
        check_config(bad)
