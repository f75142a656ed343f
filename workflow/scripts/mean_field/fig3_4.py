"""Thesis Fig. 3.4: ||G_l - G_*||_F at one deep layer l vs batch size n, log-log, per activation.

Thm. 3.2; {{ snakemake.config["scale"] }} scale. ||G_{{ snakemake.params.fig["layer"] }} - G_*||_F
against batch size n = {{ snakemake.params.fig["batch_sizes"] | join(", ") }}, log-log, d =
{{ snakemake.config["mean_field"]["gram_chain"]["widths"] | max }}, one line per activation (centred
BN), mean and 95% CI over {{ snakemake.config["mean_field"]["gram_chain"]["n_runs"] }} runs. Dashed:
a guide proportional to n. The bound of Thm. 3.2 is proportional to n times kappa(G_*), and
kappa(G_*) itself changes with n (it grows about linearly for ReLU; it is infinite for linear phi,
outside the theorem).
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
cfg = params.fig
frame = store.load_frame(snakemake.input.chain)
width = int(frame["width"].max())
table = frame.query(
    "width == @width and layer == @cfg['layer'] and network.str.startswith('bn_')"
    " and batch_size in @cfg['batch_sizes']"
)[["network", "batch_size", "run", "distance", "kappa"]]
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure(width=4.6)
plotting.mean_ci(ax, table, x="batch_size", y="distance", hue="network", marker="o")
ns = np.sort(table["batch_size"].unique()).astype(float)
low = table.groupby("batch_size")["distance"].mean().iloc[0]
ax.plot(ns, low * ns / ns[0], "k--", lw=1, label=r"$\propto n$")
ax.set(xscale="log", yscale="log", xlabel="batch size $n$")
ax.set(xticks=ns, xticklabels=[f"{v:.0f}" for v in ns])
ax.minorticks_off()
ax.set(ylabel=rf"$\|G_{{{cfg['layer']}}} - G_*\|_F$", title=f"d = {width}")
ax.legend(fontsize=7)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
