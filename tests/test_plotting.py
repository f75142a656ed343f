"""Tests of sigprop.verdicts.plotting: deterministic files and the CI band."""

import hashlib

import numpy as np
import pandas as pd

from sigprop.verdicts import plotting


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


def theme_params(apply) -> dict:
    """rcParams after ``apply()`` from matplotlib's defaults (restored afterwards)."""
    import matplotlib.pyplot as plt

    with plt.rc_context():
        plt.rcdefaults()
        apply()
        return dict(plt.rcParams)


def test_style_file_is_the_seaborn_theme():
    """figure_style.mplstyle is seaborn's set_theme(paper, whitegrid, 1.1, deep), key for key."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from matplotlib.colors import to_rgb

    ours = theme_params(lambda: plt.style.use(plotting.STYLE))
    theirs = theme_params(lambda: sns.set_theme(context="paper", style="whitegrid", font_scale=1.1))
    defaults = theme_params(lambda: None)
    changed = {k for k in theirs if theirs[k] != defaults[k]} | {
        k for k in ours if ours[k] != defaults[k]
    }
    assert changed - {"image.cmap"} <= set(ours)  # "rocket" exists only inside seaborn
    for key in sorted(changed - {"image.cmap", "axes.prop_cycle"}):
        a, b = ours[key], theirs[key]
        if isinstance(a, float):
            assert np.isclose(a, b), key
        else:
            assert a == b, key
    cycle = [to_rgb(c) for c in ours["axes.prop_cycle"].by_key()["color"]]
    assert np.allclose(cycle, sns.color_palette("deep"), atol=1 / 255)


def test_colormap_colors_sample_like_seaborn():
    import seaborn as sns

    ours = np.array(plotting.colors(5, "viridis"))[:, :3]
    assert np.allclose(ours, sns.color_palette("viridis", 5))
    assert len(plotting.colors(12)) == 12 and plotting.colors(12)[10] == plotting.colors(1)[0]
