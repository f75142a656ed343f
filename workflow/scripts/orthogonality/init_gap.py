"""Orthogonality gap per layer at initialization: Xavier vs iterative orthogonalization vs
orthogonal weights, on the initialization batch and an independent one (DJB21 Sec. 5.2)."""

import numpy as np

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
setup = params.setup
table = store.load_frame(snakemake.input.gaps)  # method, batch, run, layer, gap
table.to_csv(snakemake.output.csv, index=False)

d = setup["width"]
sizes = {"init": 3 * d, "eval": setup["eval_batch_size"]}
fig, axes = plotting.figure(ncols=2, sharey=True)
for ax, (batch, n) in zip(axes, sizes.items(), strict=True):
    plotting.mean_ci(ax, table[table["batch"] == batch], x="layer", y="gap", hue="method")
    if n > d:
        ax.axhline(np.sqrt((n - d) / (n * d)), ls="--", c="grey", lw=1, label="rank floor")
    ax.set(title=f"{batch} batch, n = {n}", xlabel=r"layer $\ell$ (0 = input)", ylim=(0, 1.05))
    ax.legend(fontsize="small")
axes[0].set_ylabel(r"$V(H_\ell)$")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
