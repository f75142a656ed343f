"""Thesis Fig. C.2: early-layer explosion rate vs gain exponent for several depths."""

import numpy as np

from sigprop import plotting, store
from sigprop.jobs import log_to_file

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
