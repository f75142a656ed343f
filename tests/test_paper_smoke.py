"""Paper shapes (issue 25): every real-data simulation at ``config/paper.yaml`` with its loops cut
(``sigprop.pipeline.paper_smoke.cut``) and its shapes kept, on generated files in the datasets' real
formats at full size, on each available device; it must finish, and hold NaN or inf only where
its item declares them.

CI runs all 27 items on a CPU (``IN_CI``, beside the unit tests on the pytest-xdist workers), four
of them with their depth cut to a few layers of the same shapes (``CI_LAYERS``; Dan+20 Fig. 13's
ResNet-50 to two Bottleneck blocks per stage, at full width with two SGD steps of 128 CIFAR
images and two log points), three with the first of their networks only (``CI_ONE_NETWORK``). On
a CPU the runs take their large blocks from glibc's heap (``devices.heap_allocations``). Opt-in
(``make smoke``, or ``SIGPROP_PAPER_SMOKE=1 pytest tests/test_paper_smoke.py``): every item at
its full depth and with all its networks; on a GPU the whole smoke takes a
few minutes (``bench/gpu_session.sh``). The synthetic items ran at paper shapes in
``bench/paper_cost.py`` and the first paper-scale ledger (``ledgers/paper_cpu.csv``).
"""

import os

import pytest
import yaml
from workflow_copy import ROOT

from sigprop.base import store
from sigprop.base.config import merge_configs
from sigprop.base.registry import dataset_names, simulation_setup
from sigprop.datasets import generated_datasets
from sigprop.engine.devices import heap_allocations
from sigprop.papers import load_registry
from sigprop.pipeline.paper_smoke import cut, with_data_root

OPT_IN = os.environ.get("SIGPROP_PAPER_SMOKE") == "1"
IN_CI = {  # seconds of the cut run on one thread of the 2-core CPU machine (2026-11-27)
    "gradients/constant_gain": 5.2, "gradients/exponent_rate": 4.6, "gradients/gain_depth": 4.4,
    "gradients/depth_mean_reduction": 2.1, "gradients/depth_degenerate": 1.6,
    "gradients/depth_tanh": 1.4, "gradients/depth_sin": 1.4, "gradients/depth_gaussian": 1.3,
    "gradients/depth_no_mean_reduction": 1.2, "gradients/depth_orthogonal": 1.2,
    "orthogonality/real_gap": 2.5, "rank_collapse/depth_training": 0.6,
    # 2026-11-27, the AMD EPYC 2-core machine (with writing the generated dataset, where first)
    "gradients/shaped_cifar100": 16.9, "gradients/shaped_cifar10": 15.6,
    "gradients/weight_orthogonality": 14.2, "rank_collapse/pretrain_levels": 10.9,
    "gradients/shaped_mnist": 10.7, "gradients/shaped_fmnist": 10.7, "gradients/table_c1": 6.0,
    "rank_collapse/pretrain_vs_bn": 4.2, "rank_collapse/pretrain_vs_bn_fmnist": 2.5,
    # 2026-11-27, the same machine, another item's cut run on the other core
    "orthogonality/init_mlp": 14.1, "orthogonality/deep_convnets": 13.5,
    "orthogonality/depth_orthogonality": 7.2,
    # a third of their three networks' time (2026-11-27, the same machine: 66.3 s, 60.0 s, and
    # 115.6 s alone with heap_allocations): one network in CI (CI_ONE_NETWORK)
    "rank_collapse/gradient_alignment_vgg": 22.1, "rank_collapse/breaking_bn_vgg": 20.0,
    "rank_collapse/breaking_bn_resnet": 38.5,
}  # fmt: skip

CI_LAYERS = {"orthogonality/init_mlp": 3, "orthogonality/depth_orthogonality": 3,
             "orthogonality/deep_convnets": 4, "rank_collapse/breaking_bn_resnet": 26}  # fmt: skip
"""Items whose full-depth cut run takes minutes on one CPU thread (width 800 on 2400 float64
samples through 75 layers; 80 conv layers; ResNet-50's 16 Bottleneck blocks at full width): in CI
on a CPU, their depth is cut to this many layers too (ResNet-50: two blocks per stage), every
shape kept; ``make smoke`` and a GPU run them at full depth."""

CI_ONE_NETWORK = ("rank_collapse/breaking_bn_resnet", "rank_collapse/breaking_bn_vgg",
                  "rank_collapse/gradient_alignment_vgg")  # fmt: skip
"""Items that train several networks of one architecture and shapes (Dan+20 Figs. 5, 10, 13:
default BN, asymmetric init, BN without centering), a full-width conv net's minute each on one
CPU thread: in CI on a CPU, their first network only (the others' norms and inits run in the
quick DAG); ``make smoke`` and a GPU run all three."""

PAPER = merge_configs(
    yaml.safe_load((ROOT / "config" / "config.yaml").read_text()),
    yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()),
)
REGISTRY = load_registry()
REAL_DATA = {
    f"{family}/{item.name}": (family, item)
    for family, item in REGISTRY.items("simulation")
    if item.datasets
}


@pytest.fixture(scope="module")
def data_root(tmp_path_factory):
    """A folder of generated full-size datasets, each written once, when an item first needs it."""
    root, written = tmp_path_factory.mktemp("generated"), set()

    def with_datasets(names) -> str:
        for name in sorted(set(names) - written):
            generated_datasets.write(name, root)
            written.add(name)
        return str(root)

    return with_datasets


@pytest.mark.parametrize(
    "key",
    [
        pytest.param(k, marks=pytest.mark.expected_seconds(IN_CI.get(k, 0.0)))
        for k in sorted(REAL_DATA)
    ],
)
def test_real_data_simulation_runs_at_paper_shapes(key, data_root, device, tmp_path):
    if device.type == "cpu" and key not in IN_CI and not OPT_IN:
        pytest.skip("opt-in: SIGPROP_PAPER_SMOKE=1 (make smoke), minutes per conv net on a CPU")
    family, item = REAL_DATA[key]
    root = data_root(dataset_names(item, PAPER))
    layers = CI_LAYERS.get(key) if device.type == "cpu" and not OPT_IN else None
    setup = cut(with_data_root(simulation_setup(family, item, PAPER), root), layers=layers)
    if device.type == "cpu" and not OPT_IN and key in CI_ONE_NETWORK:
        setup["networks"] = dict(list(setup["networks"].items())[:1])
    with generated_datasets.unchecked_cifar(), heap_allocations():
        result = item.run(**setup, device=device)
    store.save(tmp_path / "result.safetensors", result, {}, nonfinite=item.nonfinite)


def test_the_ci_items_are_real_data_items():
    assert set(IN_CI) <= set(REAL_DATA)


def test_the_cut_keeps_every_shape_and_cuts_every_loop():
    for key, (family, item) in REAL_DATA.items():
        paper = simulation_setup(family, item, PAPER)
        smoke = cut(paper)
        for shape in ("width", "batch_size", "image_size", "architecture", "dataset", "dtype"):
            assert smoke.get(shape) == paper.get(shape), (key, shape)
        if "depths" in paper:
            assert smoke["depths"] == [max(paper["depths"])], key
        for loop in ("n_runs", "runs", "epochs", "n_batches"):
            assert smoke.get(loop, 1) == 1, (key, loop)
        if "epochs" in paper:  # one step, and the probe and init batches still fit
            needed = [paper["batch_size"], paper.get("probe_size", 0)]
            assert smoke["train_size"] == max(needed + [paper.get("init_batch_size", 0)]), key
            assert smoke.get("eval_size", 0) <= paper["batch_size"], key


def test_the_ci_layer_cut_keeps_every_other_shape():
    for key, layers in CI_LAYERS.items():
        family, item = REAL_DATA[key]
        paper = simulation_setup(family, item, PAPER)
        full, short = cut(paper), cut(paper, layers=layers)
        depth = "depth" if "depth" in paper else "depths"  # ResNet-50: a depths key is added
        assert short[depth] in (layers, [layers]) and short[depth] != full.get(depth), key
        assert {k: v for k, v in short.items() if k != depth} == {
            k: v for k, v in full.items() if k != depth
        }, key
    with pytest.raises(ValueError, match="no depth to cut"):
        cut({"width": 8}, layers=3)
    with pytest.raises(ValueError, match="resnet50 cuts to 26 layers only"):
        cut({"architecture": "resnet50", "batch_size": 128}, layers=14)


def test_with_data_root_reaches_nested_slices():
    setup = {"data_root": "data", "download": True, "batch": {"data_root": "data", "n": 1}}
    moved = with_data_root(setup, "/tmp/x")
    assert moved == {"data_root": "/tmp/x", "download": False,
                     "batch": {"data_root": "/tmp/x", "n": 1}}  # fmt: skip
    assert setup["batch"]["data_root"] == "data"  # the input is left as it was
