"""Dan+20 Fig. 2: log rank of the last hidden layer vs total depth, BN vs vanilla.

{% set setup = snakemake.params.setup %}{{ snakemake.config["scale"] | capitalize }} scale. Natural
log of the numerical rank (singular values above sigma_max * d * 1e-7, Dan+20 footnote 2) of the
last hidden layer H_L against the total number of layers L, for BN (Eq. (2), no centering; blue) and
vanilla (orange) MLPs of width d = {{ setup["width"] }} on Gaussian inputs with N =
{{ setup["batch_size"] }}; left linear, right ReLU (after BN). Mean and 95% CI over
{{ setup["n_runs"] }} runs; weights {{ setup["weight_law"] }}, {{ setup["dtype"] }}. Dashed: log
sqrt(d).
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
setup = params.setup
table = store.load_frame(snakemake.input.ranks)  # network, activation, run, depth, rank
table["log_rank"] = np.log(table["rank"])
table.to_csv(snakemake.output.csv, index=False)  # exactly the plotted numbers

fig, axes = plotting.figure(ncols=len(setup["activations"]), sharey=True, squeeze=False)
for ax, act in zip(axes[0], setup["activations"], strict=True):
    panel = table.query("activation == @act")
    plotting.mean_ci(ax, panel, x="depth", y="log_rank", hue="network", palette=plotting.PALETTE)
    ax.axhline(np.log(np.sqrt(setup["width"])), ls="--", c="grey", label=r"$\log\sqrt{d}$")
    ax.set(
        xscale="log",
        title=f"{act}, d = {setup['width']}",
        xlabel=r"total number of layers $L$",
        ylabel=r"$\log \mathrm{rank}(H_L)$",
    )
    ax.legend()
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
