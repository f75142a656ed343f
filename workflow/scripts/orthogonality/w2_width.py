"""DJB21 Table 1 / Cor. 3 (Thesis Table 2.1, Cor. 2.3): plateau W2 radius vs width, log-log.

{{ snakemake.config["scale"] | capitalize }} scale. The plateau Wasserstein-2 distance of W_l H_l to
the Gaussian G / sqrt n, bounded above by the square root of the exact conditional W2^2 averaged
over layers {{ snakemake.params.window }} and runs, against the width d, log-log, one curve per n;
bands: the 95% CI of the mean W2^2 over {{ snakemake.params.chain["n_runs"] }} runs, mapped through
the square root. Guides: d^{-1/4}, the radius of Table 1, and d^{-1/2}. It is an upper bound: the
Gelbrich lower bound (``w2_depth``) is orders of magnitude smaller on the plateau.
"""

import numpy as np

from sigprop.base import store
from sigprop.papers.orthogonality.gaussian_tables import w2_width_table
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
first, last = params.window
table = w2_width_table(store.load_frame(snakemake.input.chain), (first, last))
table.to_csv(snakemake.output.csv, index=False)  # per (n, d, run): layer-averaged cond. W2^2

summary = plotting.run_summary(table, x="width", y="plateau_upper", by=["batch_size"])
fig, ax = plotting.figure(width=4.4, height=3.4)
for i, (n, part) in enumerate(summary.groupby("batch_size")):
    # W2 = sqrt(E W2^2); the square root maps the CI of the mean onto a CI of its square root
    ax.plot(part["width"], np.sqrt(part["mean"]), marker="o", color=f"C{i}", label=f"n={n}")
    ax.fill_between(part["width"], np.sqrt(part["low"]), np.sqrt(part["high"]), color=f"C{i}",
                    alpha=0.3, lw=0)  # fmt: skip
widths = np.sort(summary["width"].unique()).astype(float)
top = np.sqrt(summary["mean"].max())
ax.plot(widths, top * (widths[0] / widths) ** 0.25, "k--", lw=1, label=r"$d^{-1/4}$ (Table 1)")
ax.plot(widths, top * (widths[0] / widths) ** 0.5, "k:", lw=1, label=r"$d^{-1/2}$")
plotting.width_axis(ax, widths)
ax.set(yscale="log", ylabel=rf"plateau $W_2$ upper bound, $\ell$ = {first}..{last}")
ax.legend(fontsize=7)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
