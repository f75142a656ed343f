"""Thesis Fig. 3.3: ||G_l - G_*||_F at one deep layer l vs width d, log-log, per activation.

Thm. 3.2; {{ snakemake.config["scale"] }} scale. ||G_{{ snakemake.params.fig["layer"] }} - G_*||_F
against width d, log-log, n = {{ snakemake.params.fig["batch_size"] }}, one line per activation
(centred BN), mean and 95% CI over {{ snakemake.config["mean_field"]["gram_chain"]["n_runs"] }}
runs. Dashed: a d^{-1/2} guide, the second term O(n / sqrt(d)) of Thm. 3.2, which dominates at this
depth.
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

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
