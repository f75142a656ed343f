"""Thesis Fig. C.2: early-layer explosion rate vs gain exponent for several depths.

{% set sim = snakemake.config["gradients"]["exponent_rate"] %}App. C.5;
{{ snakemake.config["scale"] }} scale. Early-layer explosion rate R = (log||grad W_a|| - log||grad
W_(a+10)||) / 10, a = {{ sim["from_layer"] }} (the seed's "l = 10"; a = 1 keeps the window in the
hidden layers, since the input projection fc_0 has another gradient scale), against the gain
exponent gamma of alpha_l = (l + 1)^-gamma, for depths {{ sim["depths"] }}; dashed: the identity
network (no explosion, Thm. 6.5), averaged over depths. Orthogonal weights, PyTorch BatchNorm1d,
biases, d = n = {{ sim["width"] }}; mean and 95% CI over {{ sim["runs"] }} runs.
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.rates)  # activation, depth, exponent, run, rate
table["activation"] = table["activation"].replace({"linear": "identity"})
table.to_csv(snakemake.output.csv, index=False)

acts = sorted(a for a in table["activation"].unique() if a != "identity")
fig, axes = plotting.figure(ncols=len(acts), sharey=True)
for ax, act in zip(np.atleast_1d(axes), acts, strict=True):
    part = table[table["activation"] == act]  # numeric hue: depths in numeric order
    plotting.mean_ci(ax, part, x="exponent", y="rate", hue="depth", marker="o")
    base = table[table["activation"] == "identity"].groupby("exponent")["rate"].mean()
    ax.plot(base.index, base.to_numpy(), "k--", lw=1, label="identity (all L)")
    ax.set(
        xlabel=r"gain exponent $\gamma$", ylabel=r"$R$ at $\ell = 10$ (hidden layers)", title=act
    )
    ax.legend(title="depth $L$")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
