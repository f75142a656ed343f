"""DJB21 Table 1 / Cor. 3 (Thesis Table 2.1, Cor. 2.3): plateau W2 radius vs width, log-log."""

import numpy as np

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file
from sigprop.papers.orthogonality.gaussian_tables import w2_width_table

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
