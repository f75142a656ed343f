"""Tests of sigprop.plotting: deterministic files and the CI band."""

import hashlib

import numpy as np
import pandas as pd

from sigprop import plotting


def draw(pdf, png):
    table = pd.DataFrame(
        [(x, r, x + 0.1 * r) for x in range(5) for r in range(4)], columns=["x", "run", "y"]
    )
    fig, ax = plotting.figure()
    plotting.mean_ci(ax, table, x="x", y="y")
    plotting.save(fig, pdf, png)


def test_figures_are_byte_identical_across_saves(tmp_path):
    draw(tmp_path / "a.pdf", tmp_path / "a.png")
    draw(tmp_path / "b.pdf", tmp_path / "b.png")
    for ext in ("pdf", "png"):
        digests = {hashlib.sha256((tmp_path / f"{n}.{ext}").read_bytes()).digest() for n in "ab"}
        assert len(digests) == 1


def test_run_summary_is_mean_and_t_interval():
    table = pd.DataFrame({"x": [0, 0, 0], "run": [0, 1, 2], "y": [1.0, 2.0, 3.0]})
    row = plotting.run_summary(table, "x", "y").iloc[0]
    assert row["mean"] == 2.0
    assert np.isclose(row["high"] - 2.0, 4.302653 / np.sqrt(3))
