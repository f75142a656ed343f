"""Orthogonality gap per layer at initialization: Xavier vs iterative orthogonalization vs
orthogonal weights, on the initialization batch and an independent one (DJB21 Sec. 5.2).

{% set setup = snakemake.params.setup %}DJB21 Sec. 5.2 and Eq. (6), Thesis Sec. 2.4, Eq. (2.6) and
App. A.5 (i); the architecture of DJB21 Figs. 3-4 / Thesis Figs. 2.4-2.5;
{{ snakemake.config["scale"] }} scale. Orthogonality gap V(H_l) per layer at initialization of a
bias-free ReLU MLP without BN: {{ setup["depth"] }} Linear layers of width {{ setup["width"] }} on
{{ setup["dataset"] }} images normalized to [-1, 1] (the seed uses CIFAR-10 with width 800; quick
scale substitutes Fashion-MNIST). Methods on the same Xavier weights (xavier_uniform, gain sqrt 2):
Xavier alone; iterative orthogonalization, the authors' code variant (exponent -1, W H = V' V^T,
input and output layers kept) and the paper variant (exponent -1/2 with an orthogonal Q), fitted on
an initialization batch of n = 3 width images; orthogonal weights (each W -> mean(s) U V^T). Left:
the initialization batch; right: an independent batch of {{ setup["eval_batch_size"] }} images. Mean
and 95% CI over {{ setup["n_runs"] }} runs (batches and weights redrawn). Dashed: the least gap of n
samples in R^d, sqrt((n - d) / (n d)), when n > d. A wide band of the code variant on the
independent batch comes from single runs where a hidden unit active on few initialization samples
makes H_l ill-conditioned: Sigma^{-1} amplifies that direction on new samples.
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

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
