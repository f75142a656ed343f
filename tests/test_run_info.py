"""The scale label comes from what ran (issue 12, item 5)."""

import importlib.util
from pathlib import Path

import pytest
import yaml

from sigprop.base.config import merge_configs
from sigprop.pipeline.run_info import config_sha256, run_record

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config"


def load(*names):
    config = {}
    for name in names:
        config = merge_configs(config, yaml.safe_load((CONFIG / name).read_text()))
    return config


def test_the_two_config_files_are_quick_and_paper():
    assert run_record(load("config.yaml"), ["config/config.yaml"], CONFIG)["scale"] == "quick"
    paper = run_record(load("config.yaml", "paper.yaml"), ["a", "b"], CONFIG)
    assert paper["scale"] == "paper" and paper["configfiles"] == ["a", "b"]


def test_any_other_value_is_custom_whatever_the_label_says():
    config = load("config.yaml")
    config["scale"] = "paper"
    config["rank_collapse"]["depth_rank"]["n_runs"] = 3
    record = run_record(config, ["config/config.yaml"], CONFIG, overrides=True)
    assert record["scale"] == "custom" and record["config_overrides"]
    config = load("config.yaml", "paper.yaml")
    config["device"] = "cpu"
    assert run_record(config, [], CONFIG)["scale"] == "custom"


def test_the_config_hash_ignores_the_label_only():
    a, b = load("config.yaml"), load("config.yaml")
    b["scale"] = "anything"
    assert config_sha256(a) == config_sha256(b)
    b["device"] = "cpu"
    assert config_sha256(a) != config_sha256(b)


def test_item_scale_comes_from_the_item_slice():
    """Issue 24, item 7: quick, paper or custom per item, from its own config slice."""
    from sigprop.papers import load_registry
    from sigprop.pipeline.run_info import item_scale, reference_configs

    registry = load_registry()
    references = reference_configs(CONFIG)
    quick, paper = load("config.yaml"), load("config.yaml", "paper.yaml")
    fig2b = registry.get("orthogonality", "fig2b", "figure")
    assert item_scale(registry, "orthogonality", fig2b, quick, references) == "quick"
    assert item_scale(registry, "orthogonality", fig2b, paper, references) == "paper"
    # one judge key of fig2b: fig2b is custom, an item that does not read it keeps its label
    custom = load("config.yaml")
    key = next(k for k, v in custom["orthogonality"]["fig2b"].items() if isinstance(v, float))
    custom["orthogonality"]["fig2b"][key] *= 2
    assert item_scale(registry, "orthogonality", fig2b, custom, references) == "custom"
    fig2a = registry.get("orthogonality", "fig2a", "figure")
    assert item_scale(registry, "orthogonality", fig2a, custom, references) == "quick"
    # a simulation's setup reaches every item that reads it
    custom["orthogonality"]["gap_chain"]["n_runs"] = 3
    assert item_scale(registry, "orthogonality", fig2a, custom, references) == "custom"
    # the label in the run's config is no part of the slice
    quick["scale"] = "paper"
    assert item_scale(registry, "orthogonality", fig2b, quick, references) == "quick"
    # nor where a site keeps its data, nor the device (a cluster profile sets both)
    site = {**load("config.yaml", "paper.yaml"), "device": "cuda"}
    site["data"] = {**site["data"], "root": "/scratch/datasets"}
    for family, item in registry.judged():
        assert item_scale(registry, family, item, site, references) == item_scale(
            registry, family, item, paper, references
        ), f"{family}.{item.name}"


def test_an_item_whose_slice_is_the_same_at_both_scales_is_labelled_paper():
    from sigprop.papers import load_registry
    from sigprop.pipeline.run_info import item_scale, reference_configs

    registry = load_registry()
    references = reference_configs(CONFIG)
    quick = load("config.yaml")
    same = [
        (family, item)
        for family, item in registry.judged()
        if registry.item_slice(family, item, references["quick"])
        == registry.item_slice(family, item, references["paper"])
    ]
    assert same, "no item runs at the seed's settings in the quick config"
    for family, item in same:
        assert item_scale(registry, family, item, quick, references) == "paper"
    differ = [(f, i) for f, i in registry.judged() if (f, i) not in same]
    assert {item_scale(registry, f, i, quick, references) for f, i in differ} == {"quick"}


def test_the_run_record_reuses_the_reference_configs():
    from sigprop.pipeline.run_info import reference_configs

    references = reference_configs(CONFIG)
    assert references["quick"] == load("config.yaml")
    assert references["paper"] == load("config.yaml", "paper.yaml")
    record = run_record(load("config.yaml"), [], CONFIG, references=references)
    assert record["scale"] == "quick"


def test_job_placement_from_the_cost_table_and_paper_measurements():
    """sigprop.pipeline.job_resources: CPU-faster items stay on the CPU under device cuda; GPUs
    exactly on CUDA; runtimes from the projection (measured CPU seconds win at paper scale); memory
    raised to 1.5 x a measured paper-scale peak, only at paper scale."""
    from sigprop.pipeline.job_resources import placement

    costs = {
        "f/launch": {"flags": "launch-bound: slower on the GPU than on one core",
                     "cpu_paper_s": "60", "paper_gpu_s": "600"},
        "f/big": {"cpu_paper_s": "1200", "paper_gpu_s": "120", "cpu_s": "2400",
                  "max_rss_mb": "10000"},
    }  # fmt: skip
    launch = placement("f/launch", "cuda", 30, 2000, costs)
    assert (launch.device, launch.gpus, launch.runtime) == ("cpu", 0, 10)
    big = placement("f/big", "cuda", 30, 2000, costs)
    assert (big.device, big.gpus, big.runtime, big.mem_mb) == ("cuda", 1, 11, 15000)
    on_cpu = placement("f/big", "cpu", 30, 2000, costs)
    assert (on_cpu.gpus, on_cpu.runtime, on_cpu.mem_mb) == (0, 125, 15000)
    quick = placement("f/big", "cpu", 30, 2000, costs, paper_scale=False)
    assert (quick.runtime, quick.mem_mb) == (65, 2000)
    assert placement("f/unknown", "auto", 600, 4000, costs) == placement(
        "f/unknown", "auto", 600, 4000, {}
    )
    assert placement("f/unknown", "auto", 600, 4000, {}).runtime == 600
    # an H100 measurement beats the model: slower there than one core -> CPU; else its time
    slow = dict(costs["f/big"], gpu_s="1300", cpu_over_gpu="0.92")
    assert placement("f/slow", "cuda", 30, 2000, {"f/slow": slow}).device == "cpu"
    fast = dict(costs["f/launch"], gpu_s="30", cpu_over_gpu="2")
    on_gpu = placement("f/fast", "cuda", 30, 2000, {"f/fast": fast})
    assert (on_gpu.device, on_gpu.gpus, on_gpu.runtime) == ("cuda", 1, 10)


def _bench_cost_table():
    """``bench/cost_table.py``, the writer of the shipped cost table (standard library only)."""
    spec = importlib.util.spec_from_file_location("cost_table", ROOT / "bench" / "cost_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_cost_table_is_the_merge_of_the_measured_tables():
    """``job_resources.cost_table()`` reads the package's table; it holds what
    ``bench/cost_table.py`` merges from ``bench/results/`` (rewrite it after a measurement)."""
    from sigprop.pipeline.job_resources import cost_table

    shipped = cost_table()
    assert shipped == _bench_cost_table().merge(ROOT / "bench" / "results")
    assert shipped["rank_collapse/depth_rank"]["cpu_paper_s"] == "1.468"


def test_cost_table_merges_the_measured_tables(tmp_path):
    from sigprop.pipeline.job_resources import cost_table

    (tmp_path / "paper_cost.csv").write_text("item,cpu_paper_s,paper_gpu_s\nf/a,10,20\n")
    (tmp_path / "paper_cpu_jobs.csv").write_text(
        "item,rule,cpu_s,max_rss_mb\nf/a,simulate,12,300\n"
    )
    (tmp_path / "gpu_cost.csv").write_text(
        "item,gpu_paper_s,cpu_over_gpu,status\nf/a,5,2,ok\nf/b,1,9,A: timeout > 40 s\n"
        "f/c,870,12,quick timeout > 40 s\n"
    )
    rows = cost_table(_bench_cost_table().write(tmp_path, tmp_path / "table.csv"))
    assert rows["f/a"] == {
        "item": "f/a", "cpu_paper_s": "10", "paper_gpu_s": "20", "cpu_s": "12",
        "max_rss_mb": "300", "gpu_s": "5", "cpu_over_gpu": "2",
    }  # fmt: skip
    assert "f/b" not in rows  # a failed measurement counts for nothing
    assert rows["f/c"]["gpu_s"] == "870"  # a slow warm-up does not void runs A and B


def test_cost_table_takes_projected_training_seconds_on_the_gpu(tmp_path):
    from sigprop.pipeline.job_resources import cost_table, placement

    (tmp_path / "gpu_training.csv").write_text(
        "item,projected_paper_s_low,projected_paper_s_high,status\n"
        "f/t,3000,3600,ok\nf/u,,,A: timeout > 45 s\n"
    )
    rows = cost_table(_bench_cost_table().write(tmp_path, tmp_path / "table.csv"))
    assert rows == {"f/t": {"item": "f/t", "gpu_s": "3600"}}  # a cut run that failed: nothing
    on_gpu = placement("f/t", "cuda", 600, 4000, rows)
    assert (on_gpu.device, on_gpu.gpus) == ("cuda", 1)
    assert on_gpu.runtime == 3600 / 60 * 3 + 5  # RUNTIME_MARGIN x projection + overhead
    assert placement("f/t", "cpu", 600, 4000, rows).runtime == 600  # the CPU has no projection


def test_a_job_longer_than_the_partition_maximum_asks_for_the_maximum_on_each_attempt():
    """``max_runtime`` (the partition's MaxTime, a site setting): a job whose runtime would
    exceed it asks for exactly the maximum, and its rule's retries cover its attempts."""
    from sigprop.pipeline.job_resources import MAX_TIME_LIMIT_ATTEMPTS, placement, retries_for

    rows = {"f/t": {"gpu_s": "36000"}, "f/s": {"gpu_s": "60"}}  # 10 h and 1 min on the GPU
    whole = placement("f/t", "cuda", 600, 4000, rows).runtime
    assert whole == 36000 / 60 * 3 + 5
    capped = placement("f/t", "cuda", 600, 4000, rows, max_runtime=1440)
    assert (capped.runtime, capped.attempts) == (1440, -(-whole // 1440))
    short = placement("f/s", "cuda", 600, 4000, rows, max_runtime=1440)
    assert (short.runtime, short.attempts) == (placement("f/s", "cuda", 600, 4000, rows).runtime, 1)
    assert retries_for({"t": capped, "s": short}, retries=1) == (1 + capped.attempts - 1, [])
    assert retries_for({"s": short}, retries=2) == (2, [])
    tiny = placement("f/t", "cuda", 600, 4000, rows, max_runtime=10)
    assert tiny.attempts > MAX_TIME_LIMIT_ATTEMPTS
    assert retries_for({"t": tiny}, retries=1) == (MAX_TIME_LIMIT_ATTEMPTS, ["t"])
    with pytest.raises(ValueError, match="max_runtime"):
        placement("f/t", "cuda", 600, 4000, rows, max_runtime=0)


def test_a_tiny_job_runs_on_the_cpu_with_a_short_runtime():
    """A job projected under a minute on one CPU core asks for no GPU (its start-up alone would
    cost more) and for its projection with a small margin, and is marked tiny (the workflow
    runs it where it runs, never submitted); at quick scale the projection is the quick
    config's."""
    from sigprop.pipeline.job_resources import placement

    rows = {"f/tiny": {"cpu_paper_s": "12", "paper_gpu_s": "0.5", "quick_s": "0.2"},
            "f/long": {"cpu_paper_s": "600", "paper_gpu_s": "30", "quick_s": "90"}}  # fmt: skip
    tiny = placement("f/tiny", "cuda", 30, 2000, rows)
    assert (tiny.device, tiny.gpus, tiny.runtime, tiny.tiny) == ("cpu", 0, 3, True)
    long = placement("f/long", "cuda", 30, 2000, rows)
    assert (long.device, long.gpus, long.tiny) == ("cuda", 1, False)
    assert placement("f/tiny", "auto", 30, 2000, rows).device == "auto"
    assert not placement("f/long", "cpu", 30, 2000, rows, paper_scale=False).tiny
    assert placement("f/tiny", "cpu", 30, 2000, rows, paper_scale=False).tiny
    assert not placement("f/unknown", "cuda", 30, 2000, rows).tiny  # no projection
