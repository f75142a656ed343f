"""Dan+20 Fig. 3b: top singular values of H_l / sqrt(N) vs l from nearly collinear inputs.

{% set setup = snakemake.params.setup %}Example 9; {{ snakemake.config["scale"] }} scale. The top
{{ setup["top"] }} singular values of H_l / sqrt(N) along the linear BN chain from nearly collinear
inputs X = x_0 1^T + eps G (eps = {{ setup["epsilon"] }}, d = N = {{ setup["width"] }}; layer 0
shows BN(X)), one panel per gamma; mean and 95% CI over {{ setup["n_runs"] }} runs. The seed leaves
d, N, gamma and the input open; these are our choices.
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.chain)  # gamma, run, layer, sigma_1 .. sigma_k
table.to_csv(snakemake.output.csv, index=False)
ranks = [c for c in table.columns if c.startswith("sigma_")]
long = table.melt(
    id_vars=["gamma", "run", "layer"], value_vars=ranks, var_name="k", value_name="sigma"
)
long["k"] = long["k"].str.removeprefix("sigma_").astype(int)
long["log10_sigma"] = np.log10(long["sigma"])  # mean and CI on the log scale

gammas = sorted(table["gamma"].unique())
fig, axes = plotting.figure(ncols=len(gammas), sharey=True, squeeze=False)
for ax, gamma in zip(axes[0], gammas, strict=True):
    plotting.mean_ci(
        ax, long[long["gamma"] == gamma], x="layer", y="log10_sigma", hue="k", palette="viridis"
    )
    ax.set(
        xlabel=r"layer $\ell$ (0 = BN of the input)",
        ylabel=r"$\log_{10}\, \sigma_k(H_\ell)/\sqrt{N}$",
        title=r"$\gamma = \infty$" if np.isinf(gamma) else rf"$\gamma = {gamma:g}$",
    )
    ax.legend(title=r"$k$", ncols=2, fontsize="small")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
