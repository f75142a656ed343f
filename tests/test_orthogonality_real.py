"""Tests of the DJB21 Fig. 5 simulation (real images), its claims and its config keys.

The data is a tiny fake Fashion-MNIST written to a temporary local source: no network, no
CIFAR-10 files.
"""

from __future__ import annotations

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
from sigprop.datasets import data
from sigprop.datasets.generated_datasets import idx_bytes
from sigprop.engine import metrics, seeding
from sigprop.nets import djb21
from sigprop.papers.orthogonality import real_simulations
from sigprop.papers.orthogonality.config_checks import check_config
from sigprop.papers.orthogonality.real_judges import centred_floor, fig5_claims
from sigprop.papers.orthogonality.real_simulations import real_gap

ROOT = Path(__file__).resolve().parents[1]
N_IMAGES = 40


@pytest.fixture
def fake_source(tmp_path, monkeypatch):
    """A fake Fashion-MNIST source of N_IMAGES 28x28 images; returns (data_root, images)."""
    rng = np.random.default_rng(5)
    images = rng.integers(0, 256, (N_IMAGES, 28, 28), dtype=np.uint8)
    arrays = {
        "train-images-idx3-ubyte": images,
        "train-labels-idx1-ubyte": rng.integers(0, 10, N_IMAGES, dtype=np.uint8),
        "t10k-images-idx3-ubyte": images[:4],
        "t10k-labels-idx1-ubyte": rng.integers(0, 10, 4, dtype=np.uint8),
    }
    folder = tmp_path / "sources" / "fashion-mnist"
    folder.mkdir(parents=True)
    for name, array in arrays.items():
        (folder / f"{name}.gz").write_bytes(gzip.compress(idx_bytes(array)))
    monkeypatch.setenv(data.ENV_SOURCES, str(tmp_path / "sources"))
    monkeypatch.setitem(data.LOCAL_SOURCES, "fashion_mnist", [])
    return str(tmp_path / "data"), images


def _setup(root, **overrides):
    setup = {
        "dataset": "fashion_mnist",
        "data_root": root,
        "download": False,
        "normalize_mean": 0.1307,
        "normalize_std": 0.3081,
        "architectures": ["mlp", "convnet"],
        "norms": ["batch_norm", "none"],
        "width": 16,
        "channels": 3,
        "kernel_size": 3,
        "padding_mode": "reflect",
        "depth": 4,
        "batch_size": 4,
        "n_batches": 3,
        "init_per_batch": True,
        "dtype": "float64",
        "device": "cpu",
        "experiment_id": "test.real_gap",
    }
    return {**setup, **overrides}


def test_real_gap_layout_and_the_input_layer(fake_source):
    root, images = fake_source
    result = real_gap(**_setup(root))
    gap = result.values["gap"]
    assert result.dims == ["architecture", "norm", "batch", "layer"]
    assert gap.shape == (2, 2, 3, 4) and result.coords["layer"] == [1, 2, 3, 4]
    assert torch.all((gap >= 0) & (gap <= math.sqrt(3 / 4) + 1e-12))
    # layer 1 is the raw (normalized) input: the same for both nets and both norms
    for b in range(3):
        pick = torch.randperm(N_IMAGES, generator=seeding.generator("test.real_gap", b, "batch"))
        x = torch.as_tensor(images[pick[:4].numpy()], dtype=torch.float64) / 255
        x = (x - 0.1307) / 0.3081
        expected = metrics.orthogonality_gap(x.flatten(1).mT)
        torch.testing.assert_close(gap[:, :, b, 0], expected.expand(2, 2), rtol=1e-6, atol=0)


def test_real_gap_is_reproducible_and_bn_is_centred(fake_source):
    root, _ = fake_source
    a = real_gap(**_setup(root, architectures=["mlp"]))
    b = real_gap(**_setup(root, architectures=["mlp"]))
    assert torch.equal(a.values["gap"], b.values["gap"])
    bn = a.values["gap"][0, 0, :, 1:]
    assert torch.all(bn >= centred_floor(4) - 1e-12)


def test_shared_init_uses_one_network(fake_source, monkeypatch):
    root, _ = fake_source
    seen = []
    build = djb21.build

    def spy(*args, generator=None, **kwargs):
        seen.append(generator.initial_seed())
        return build(*args, generator=generator, **kwargs)

    monkeypatch.setattr(djb21, "build", spy)
    real_gap(**_setup(root, architectures=["mlp"], norms=["none"], init_per_batch=False))
    assert len(seen) == 3 and len(set(seen)) == 1
    seen.clear()
    real_gap(**_setup(root, architectures=["mlp"], norms=["none"]))
    assert len(set(seen)) == 3


def test_missing_dataset_fails_before_any_compute(tmp_path, monkeypatch):
    """CIFAR-10 absent, download off or impossible: DatasetNotFoundError, no network built."""

    def forbidden(*args, **kwargs):
        raise AssertionError("a network was built before the data was found")

    monkeypatch.setattr(djb21, "build", forbidden)
    monkeypatch.delenv(data.ENV_SOURCES, raising=False)
    for download in (False, True):
        with pytest.raises(data.DatasetNotFoundError, match="CIFAR-10"):
            real_gap(**_setup(str(tmp_path / "data"), dataset="cifar10", download=download))


def test_cifar10_spec_names_torchvision_files():
    spec = data.DATASETS["cifar10"]
    assert spec.title == "CIFAR-10" and spec.cls.__name__ == "CIFAR10"
    assert "cifar-10-batches-py/data_batch_5" in spec.files
    assert "cifar-10-batches-py/test_batch" in spec.files


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"architectures": ["resnet"]}, "architecture must be in"),
        ({"norms": ["layernorm"]}, "norm must be in"),
        ({"padding_mode": "zero"}, "padding_mode must be one of"),
        ({"dataset": "imagenet"}, "unknown dataset 'imagenet'"),
        ({"batch_size": 1}, "batch_size >= 2"),
        ({"normalize_std": 0.0}, "normalize_std must be > 0"),
        ({"dtype": "float16"}, "dtype must be one of"),
    ],
)
def test_bad_config_raises(fake_source, overrides, match):
    root, _ = fake_source
    with pytest.raises(ValueError, match=match):
        real_gap(**_setup(root, **overrides))


def test_load_images_normalizes_like_torchvision(fake_source):
    root, images = fake_source
    x = real_simulations.load_images("fashion_mnist", root, False, 0.5, 0.25)
    assert x.shape == (N_IMAGES, 1, 28, 28)
    torch.testing.assert_close(x[3, 0], (torch.as_tensor(images[3]) / 255 - 0.5) / 0.25)


# ---- the centred-BN floor and the claims ---------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 8, 16])
def test_centred_floor_is_attained_and_holds(n, gen):
    """V >= 1/sqrt(n(n-1)) when H 1 = 0, with equality for H = the centring projector."""
    projector = torch.eye(n, dtype=torch.float64) - 1.0 / n
    h = torch.cat([projector, torch.zeros(5, n, dtype=torch.float64)])
    assert metrics.orthogonality_gap(h).item() == pytest.approx(centred_floor(n), rel=1e-12)
    g = torch.randn(200, 30, n, generator=gen, dtype=torch.float64)
    centred = g - g.mean(-1, keepdim=True)
    assert torch.all(metrics.orthogonality_gap(centred) >= centred_floor(n) * (1 - 1e-12))
    # uncentred Gaussian columns go below it: the floor is specific to centring
    assert torch.any(
        metrics.orthogonality_gap(torch.randn(500, 400, n, generator=gen)) < centred_floor(n)
    )


def _table(bn_late_slope=0.0, vanilla_slope=0.01, bn_floor_offset=0.05, n_batches=12, seed=0):
    """Synthetic Fig. 5 rows: vanilla rises linearly; BN falls to a plateau (maybe drifting)."""
    rng = np.random.default_rng(seed)
    floor = centred_floor(8)
    rows = []
    for arch in ("mlp", "convnet"):
        for b in range(n_batches):
            v0 = 0.5 + 0.05 * rng.standard_normal()
            for layer in range(1, 31):
                van = min(0.93, v0 + vanilla_slope * (layer - 1)) + 0.01 * rng.standard_normal()
                plateau = floor + bn_floor_offset + bn_late_slope * max(0, layer - 15)
                bn = v0 if layer == 1 else plateau + 0.3 * math.exp(-layer)
                bn += 0.005 * abs(rng.standard_normal()) * (layer > 1)
                rows += [(arch, "vanilla", b, layer, van), (arch, "BN", b, layer, bn)]
    return pd.DataFrame(rows, columns=["architecture", "network", "batch", "layer", "gap"])


ARGS = {"batch_size": 8, "growth_window": (2, 30), "plateau_window": (16, 30), "plateau_drift": 0.1}


def _verdicts(table, **kwargs):
    claims = fig5_claims(table, **{**ARGS, "float_tolerance": 1e-6, **kwargs})
    return {c.id: c.verdict == "holds" for c in claims}


def test_fig5_claims_pass_on_the_claimed_shape():
    verdicts = _verdicts(_table())
    assert len(verdicts) == 11 and all(verdicts.values()), verdicts
    kinds = {
        c.id.rsplit(".", 1)[1]: c.kind
        for c in fig5_claims(_table(), **{**ARGS, "float_tolerance": 1e-6})
    }
    assert kinds["flatness_power"] == "control" and kinds["bn_floor"] == "identity"


def test_fig5_claims_fail_on_counterexamples():
    drifting = _verdicts(_table(bn_late_slope=0.005))
    assert not drifting["orthogonality.fig5.mlp.bn_flat"]
    assert not drifting["orthogonality.fig5.convnet.bn_flat"]
    flat_vanilla = _verdicts(_table(vanilla_slope=0.0))
    assert not flat_vanilla["orthogonality.fig5.mlp.vanilla_grows"]
    assert not flat_vanilla["orthogonality.fig5.mlp.flatness_power"]
    uncentred = _verdicts(_table(bn_floor_offset=-0.05))
    assert not uncentred["orthogonality.fig5.mlp.bn_floor"]
    high = _verdicts(_table(bn_floor_offset=0.9))
    assert not high["orthogonality.fig5.mlp.bn_below_vanilla"]
    assert not high["orthogonality.fig5.mlp.bn_decreases"]


def test_fig5_bn_flat_requires_its_flatness_control():
    """bn_flat is an equivalence test: it presumes its control flatness_power (the same test
    rejects the vanilla net's drift). With a flat vanilla net the control fails, and bn_flat,
    whose own interval holds, is invalid with the reason in its note."""
    from dataclasses import asdict

    from sigprop.verdicts.claims import apply_requirements

    claims = fig5_claims(_table(vanilla_slope=0.0), **{**ARGS, "float_tolerance": 1e-6})
    own = {c.id: c for c in claims}
    assert own["orthogonality.fig5.mlp.bn_flat"].verdict == "holds"
    assert own["orthogonality.fig5.mlp.flatness_power"].verdict != "holds"
    out = {r["id"]: r for r in apply_requirements([asdict(c) for c in claims], strict=False)}
    flat = out["orthogonality.fig5.mlp.bn_flat"]
    assert flat["verdict"] == "invalid"
    assert flat["requires"] == "orthogonality.fig5.mlp.flatness_power"
    assert "requires orthogonality.fig5.mlp.flatness_power" in flat["note"]
    assert own["orthogonality.fig5.mlp.bn_flat"].tolerance_reason.startswith("wording: ")
    good = fig5_claims(_table(), **{**ARGS, "float_tolerance": 1e-6})
    kept = {r["id"]: r for r in apply_requirements([asdict(c) for c in good], strict=False)}
    assert kept["orthogonality.fig5.mlp.bn_flat"]["verdict"] == "holds"


# ---- config --------------------------------------------------------------------------------


def _quick_config():
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def test_quick_config_is_consistent_and_paper_uses_cifar10():
    check_config(_quick_config())
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    assert paper["orthogonality"]["real_gap"]["dataset"] == "cifar10"


@pytest.mark.parametrize(
    ("item", "key", "value", "match"),
    [
        ("fig5", "plateau_window", [16, 31], "exceeds orthogonality.real_gap.depth"),
        ("fig5", "growth_window", [0, 30], "layers start at 1"),
        ("fig5", "plateau_window", [29, 30], "at least 3 layers"),
        ("real_gap", "kernel_size", 4, "kernel_size = 4 must be odd"),
    ],
)
def test_inconsistent_config_names_the_key(item, key, value, match):
    config = copy.deepcopy(_quick_config())
    config["orthogonality"][item][key] = value
    with pytest.raises(ConfigError, match=match):
        check_config(config)
