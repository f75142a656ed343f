"""Tests of sigprop.base.store: round trip, sidecar, atomic writes."""

import json
import os
import stat

import pytest
import torch
from safetensors import safe_open
from safetensors.numpy import save

from sigprop.base import store


def labelled():
    return store.Labelled(
        dims=["width", "run"],
        coords={"width": [8, 16], "run": [0, 1, 2]},
        values={"gap": torch.arange(6.0).reshape(2, 3)},
        seeds={"experiment_id": "t"},
    )


def test_labelled_over_takes_the_dims_from_the_coordinates():
    made = store.Labelled.over(
        {"width": (8, 16), "run": range(3)},
        values={"gap": torch.arange(6.0).reshape(2, 3)},
        seeds={"experiment_id": "t"},
    )
    plain = labelled()
    assert (made.dims, made.coords, made.seeds) == (plain.dims, plain.coords, plain.seeds)
    assert torch.equal(made.values["gap"], plain.values["gap"])
    assert store.Labelled.over({"run": [0]}, values={}).seeds == {}


def test_results_load_without_torch(tmp_path):
    """Jobs that draw and judge read results with numpy alone (issue 13): no torch import."""
    import subprocess
    import sys

    path = tmp_path / "sim.safetensors"
    store.save(path, labelled(), store.provenance({}, {}, "cpu", 0.1))
    code = (
        "import sys; from sigprop.base import store; from sigprop.verdicts import claims; "
        f"f = store.load_frame({str(path)!r}); assert f['gap'].sum() == 15; "
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_save_load_roundtrip_and_frame(tmp_path):
    path = tmp_path / "r" / "sim.safetensors"
    meta = store.provenance({"width": [8, 16]}, {"experiment_id": "t"}, "cpu", 1.23)
    store.save(path, labelled(), meta)
    frame = store.load_frame(path)
    assert list(frame.columns) == ["width", "run", "gap"]
    assert frame.query("width == 16 and run == 2")["gap"].item() == 5.0
    side = store.load_metadata(path)
    assert side["config"] == {"width": [8, 16]} and side["device"] == "cpu"
    assert {"torch", "numpy", "python"} <= set(side["versions"])
    assert side["wall_time_s"] == 1.23


def test_save_rejects_mismatched_shapes(tmp_path):
    bad = labelled()
    bad.values["gap"] = torch.zeros(3, 2)
    with pytest.raises(ValueError, match="does not match dims"):
        store.save(tmp_path / "x.safetensors", bad, {})


def test_atomic_path_leaves_nothing_behind_on_failure(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with store.atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_atomic_files_get_ordinary_permissions(tmp_path):
    """Not mkstemp's 0600: 0666 less the umask, like any new file."""
    mask = os.umask(0o022)
    try:
        store.write_json(tmp_path / "a.json", {})
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o644


def test_write_json_is_sorted_and_complete(tmp_path):
    store.write_json(tmp_path / "a.json", {"b": 1, "a": torch.tensor([1.0])})
    assert json.loads((tmp_path / "a.json").read_text()) == {"a": [1.0], "b": 1}


def saved(tmp_path, name="sim.safetensors", result=None, **kw):
    path = tmp_path / name
    meta = store.provenance({"n_runs": 3}, {"experiment_id": "t"}, "cpu", 0.5)
    store.save(path, result or labelled(), meta, **kw)
    return path


def test_identical_results_have_identical_bytes_and_the_sidecar_holds_their_sha256(tmp_path):
    """No temporary file name (nor time) inside a result: a checksum means something (issue 12)."""
    a, b = saved(tmp_path, "a.safetensors"), saved(tmp_path, "b.safetensors")
    assert a.read_bytes() == b.read_bytes()
    assert store.load_metadata(a)["sha256"] == store.sha256_bytes(a.read_bytes())


@pytest.mark.parametrize("damage", ["truncate", "scale", "nan", "swap"])
def test_a_damaged_result_is_refused_with_the_rebuild_command(tmp_path, damage):
    path = saved(tmp_path)
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:100])
    elif damage in ("scale", "nan"):
        with safe_open(path, framework="numpy") as f:
            header = f.metadata()
            values = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 - not a dict
        values["gap"][0, 0] = 10.0 if damage == "scale" else float("nan")
        path.write_bytes(save(values, metadata=header))
    else:
        other = labelled()
        other.values["gap"] = other.values["gap"] * 2
        path.write_bytes(saved(tmp_path, "other.safetensors", other).read_bytes())
    with pytest.raises(store.StaleResultError, match=f"snakemake -f {path}"):
        store.load_frame(path)


@pytest.mark.parametrize(
    "edit", [("config", {"n_runs": 30}), ("git_revision", "0123abcd"), ("device", "cuda")]
)
def test_an_edited_sidecar_is_refused(tmp_path, edit):
    path = saved(tmp_path)
    meta = store.load_metadata(path)
    meta[edit[0]] = edit[1]
    store.sidecar(path).write_text(json.dumps(meta))
    with pytest.raises(store.StaleResultError, match=f"edited.*{edit[0]}"):
        store.load(path)


def test_a_missing_sidecar_is_refused(tmp_path):
    path = saved(tmp_path)
    store.sidecar(path).unlink()
    with pytest.raises(store.StaleResultError, match="missing"):
        store.load(path)


def test_non_finite_values_are_refused_unless_declared(tmp_path):
    result = labelled()
    result.values["gap"][1, 2] = float("inf")
    result.values["gap"][0, 0] = float("nan")
    with pytest.raises(store.NonFiniteError, match="'nan': 1, 'inf': 1"):
        saved(tmp_path, result=result)
    assert not (tmp_path / "sim.safetensors").exists()
    path = saved(tmp_path, result=result, nonfinite=("gap",))
    assert store.load_metadata(path)["nonfinite"] == {"gap": {"nan": 1, "inf": 1}}
    assert store.load_frame(path)["gap"].isna().sum() == 1


def test_a_measured_table_is_checked_against_its_sidecar(tmp_path):
    import pandas as pd

    path = tmp_path / "t.csv"
    store.write_table(path, pd.DataFrame({"x": [1.0, 2.0]}), {"config": {}})
    store.verify_table(path)
    path.write_text(path.read_text().replace("2.0", "3.0"))
    with pytest.raises(store.StaleResultError, match="sha256"):
        store.verify_table(path)


def test_a_measured_table_with_undeclared_nan_is_refused_before_writing(tmp_path):
    """pandas averages skip NaN silently: a NaN the item did not declare stops the job."""
    import pandas as pd

    path = tmp_path / "t.csv"
    table = pd.DataFrame({"kind": ["a", "b"], "x": [1.0, float("nan")], "y": [1.0, float("inf")]})
    with pytest.raises(store.NonFiniteError, match=r"\{'x': 1, 'y': 1\}.*first at rows"):
        store.write_table(path, table, {"config": {}})
    assert not path.exists()
    store.write_table(path, table, {"config": {}}, nonfinite=("x", "y"))
    assert path.exists()
