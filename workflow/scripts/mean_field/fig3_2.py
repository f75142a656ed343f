"""Thesis Fig. 3.2: ||G_l - G_*||_F vs layer l at the widest d, per activation; fitted shape.

Thm. 3.2, Eq. (3.9); {{ snakemake.config["scale"] }} scale. ||G_l - G_*||_F for l =
1..{{ snakemake.params.fig["last_layer"] }}, n = {{ snakemake.params.fig["batch_size"] }}, d =
{{ snakemake.config["mean_field"]["gram_chain"]["widths"] | max }}, one line per activation (centred
BN), mean and 90% CI over {{ snakemake.config["mean_field"]["gram_chain"]["n_runs"] }} runs. Dashed:
the fitted shape c1 (1 - alpha)^{l/2} + c2 n / sqrt(d) of Thm. 3.2 / Eq. (3.9), least squares on the
mean curve. It is a fitted shape, not a certified bound: the thesis gives neither the constants nor
alpha.
"""

import numpy as np

from sigprop.base import store
from sigprop.papers.mean_field.gram_tables import band, decay_plateau_shape, fit_decay_plateau
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
cfg = params.fig
frame = store.load_frame(snakemake.input.chain)
width = int(frame["width"].max())
table = frame.query(
    "batch_size == @cfg['batch_size'] and width == @width and network.str.startswith('bn_')"
    " and 1 <= layer <= @cfg['last_layer']"
)[["network", "run", "layer", "distance"]]
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure(width=4.6)
for net, part in band(table, "layer", "distance", "network", 0.9).groupby("network", sort=False):
    (line,) = ax.plot(part["layer"], part["mean"], "o-", ms=3, label=net)
    ax.fill_between(part["layer"], part["low"], part["high"], color=line.get_color(), alpha=0.2)
    shape = fit_decay_plateau(part["layer"], part["mean"], cfg["batch_size"], width)
    ls = np.linspace(1, cfg["last_layer"], 100)
    fit = decay_plateau_shape(ls, *shape, cfg["batch_size"], width)
    ax.plot(ls, fit, "--", color=line.get_color(), lw=1)
ax.set(yscale="log", xlabel=r"layer $\ell$", ylabel=r"$\|G_\ell - G_*\|_F$")
ax.set_title(f"n = {cfg['batch_size']}, d = {width}; dashed: fitted shape", fontsize=9)
ax.legend(fontsize=7)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
