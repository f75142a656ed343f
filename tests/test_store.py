"""Tests of sigprop.store: round trip, sidecar, atomic writes."""

import json
import os
import stat

import pytest
import torch

from sigprop import store


def labelled():
    return store.Labelled(
        dims=["width", "run"],
        coords={"width": [8, 16], "run": [0, 1, 2]},
        values={"gap": torch.arange(6.0).reshape(2, 3)},
        seeds={"experiment_id": "t"},
    )


def test_save_load_roundtrip_and_frame(tmp_path):
    path = tmp_path / "r" / "sim.pt"
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
        store.save(tmp_path / "x.pt", bad, {})


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
