"""Thesis Fig. 3.3: ||G_20 - G_*||_F vs width d, log-log, n = 10, per activation."""

import numpy as np

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
cfg = params.fig
frame = store.load_frame(snakemake.input.chain)
table = frame.query(
    "batch_size == @cfg['batch_size'] and layer == @cfg['layer'] and network.str.startswith('bn_')"
)[["network", "width", "run", "distance"]]
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure(width=4.6)
plotting.mean_ci(ax, table, x="width", y="distance", hue="network", marker="o")
widths = np.sort(table["width"].unique()).astype(float)
top = table.groupby("width")["distance"].mean().iloc[0]
ax.plot(widths, top * np.sqrt(widths[0] / widths), "k--", lw=1, label=r"$\propto d^{-1/2}$")
plotting.width_axis(ax, widths)
ax.set(yscale="log", ylabel=rf"$\|G_{{{cfg['layer']}}} - G_*\|_F$")
ax.legend(fontsize=7)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
