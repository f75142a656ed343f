"""Thesis Fig. 6.1: isometry gap psi(X_l) vs layer, orthogonal W, identity, theory BN; dashed theory."""

import numpy as np

from sigprop import isometry_decay, plotting, store
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.gaps)  # width, run, layer, psi
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure(width=4.6)
plotting.mean_ci(ax, table.assign(d=table["width"].map("d = {}".format)), "layer", "psi", hue="d")
colors = [line.get_color() for line in ax.get_lines()]
for color, (d, rows) in zip(colors, table.groupby("width"), strict=True):
    psi0, layers = rows.loc[rows["layer"] == 0, "psi"].mean(), np.sort(rows["layer"].unique())
    k = isometry_decay.authors_rate(d, psi0, snakemake.params.authors_c)
    ax.plot(layers, psi0 * np.exp(-layers / k), "--", color=color, lw=1)
ax.plot([], [], "k--", lw=1, label=f"theory, C = {snakemake.params.authors_c:g}")
ax.set(yscale="log", xlabel=r"layer $\ell$", ylabel=r"isometry gap $\psi(X_\ell)$")
ax.legend(fontsize="small")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
