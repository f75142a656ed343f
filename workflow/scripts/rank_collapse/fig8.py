"""Dan+20 Fig. 8: the regularity constant alpha_hat vs width d, one panel per gamma.

Lemma 10; {{ snakemake.config["scale"] }} scale. The regularity constant alpha_hat = sum_l Tr
diag(M_l^2)^2 / sum_l Tr M_l^3 (Def. 3, Eq. (46), a ratio of layer averages) of the linear BN chain
against d, one panel per gamma; mean and 95% t interval (the claims' interval; the seed plots one
standard deviation) over {{ snakemake.params.setup["n_runs"] }} runs of
{{ snakemake.params.setup["depth"] }} layers (the seed uses L = 10^5). Dashed: 0.9.
"""

import numpy as np

from sigprop.base import store
from sigprop.papers.rank_collapse.bn_chain_tables import ergodic_averages
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
averages = ergodic_averages(store.load_frame(snakemake.input.chain))
table = averages[["gamma", "width", "run", "alpha_hat"]]
table.to_csv(snakemake.output.csv, index=False)

gammas = sorted(table["gamma"].unique())
fig, axes = plotting.figure(ncols=len(gammas), sharey=True, squeeze=False)
for ax, gamma in zip(axes[0], gammas, strict=True):
    plotting.mean_ci(
        ax,
        table[table["gamma"] == gamma],
        x="width",
        y="alpha_hat",
        clip=(0.0, 1.0),
        marker="o",
        label=r"$\hat\alpha$",
    )
    ax.axhline(0.9, ls="--", c="grey", lw=1, label="0.9")
    widths = np.sort(table["width"].unique()).astype(float)
    plotting.width_axis(ax, widths)
    ax.set(
        ylabel=r"regularity constant $\hat\alpha$",
        title=r"$\gamma = \infty$" if np.isinf(gamma) else rf"$\gamma = {gamma:g}$",
    )
    ax.legend()
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
