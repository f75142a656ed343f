"""Thesis Fig. C.1: explosion rate R(l, alpha) vs constant gain alpha, with the c1 alpha^c2 fit.

{% set sim = snakemake.config["gradients"]["constant_gain"] %}App. C.5;
{{ snakemake.config["scale"] }} scale. Explosion rate R(l, alpha) = (log||grad W_(l-10)|| -
log||grad W_l||) / 10 (Eq. (C.155) with the sign fixed so explosion is positive) at layers
{{ sim["layers"] }} of one {{ sim["depth"] }}-layer network with the same gain alpha in every layer,
against alpha; orthogonal weights, PyTorch BatchNorm1d, biases, d = n = {{ sim["width"] }}; mean and
95% CI over {{ sim["runs"] }} runs. Black: c1 alpha^c2 fitted in log-log space to the layer- and
run-averaged R at alpha >= {{ snakemake.params.fit_min_gain }} (below, R is dominated by a small
input-side transient). The seed gives neither the alpha grid, the layers nor c1, c2.
"""

import numpy as np

from sigprop.base import store
from sigprop.papers.gradients import shaping
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = store.load_frame(snakemake.input.rates)  # activation, gain, layer, run, rate
table.to_csv(snakemake.output.csv, index=False)

acts = sorted(table["activation"].unique())
fig, axes = plotting.figure(ncols=len(acts))
for ax, act in zip(np.atleast_1d(axes), acts, strict=True):
    part = table[table["activation"] == act]  # numeric hue: layers in numeric order
    plotting.mean_ci(ax, part, x="gain", y="rate", hue="layer", marker="o")
    mean = part.groupby("gain")["rate"].mean()
    fitted = mean[mean.index >= params.fit_min_gain]
    fit = shaping.fit_power_law(fitted.index, fitted.to_numpy())
    grid = np.linspace(mean.index.min(), mean.index.max(), 100)
    label = rf"${fit.c1:.3f}\,\alpha^{{{fit.c2:.2f}}}$"
    ax.plot(grid, fit.c1 * grid**fit.c2, "k-", lw=1, label=label)
    ax.set(xlabel=r"gain $\alpha$", ylabel=r"$R(\ell, \alpha)$", title=act)
    ax.legend(title=r"layer $\ell$")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
