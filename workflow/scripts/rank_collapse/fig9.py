"""Dan+20 Fig. 9: log2 of the layer-averaged ||M(H_l)||_F^2 vs log2 d, one panel per gamma.

Lemma 13; {{ snakemake.config["scale"] }} scale. log2 of the layer average of ||M(H_l)||_F^2 against
log2 d for the linear BN chain, one panel per gamma; mean and one standard deviation over
{{ snakemake.params.setup["n_runs"] }} runs (the seed uses L = 10^5). Green dashed: log2 d^1.5.
"""

import numpy as np

from sigprop.base import store
from sigprop.papers.rank_collapse.bn_chain_tables import ergodic_averages
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
averages = ergodic_averages(store.load_frame(snakemake.input.chain))
table = averages[["gamma", "width", "run", "frobenius_m_squared", "alpha_hat"]].copy()
table["log2_width"] = np.log2(table["width"])
table["log2_frobenius"] = np.log2(table["frobenius_m_squared"])
table.to_csv(snakemake.output.csv, index=False)

gammas = sorted(table["gamma"].unique())
fig, axes = plotting.figure(ncols=len(gammas), sharey=True, squeeze=False)
for ax, gamma in zip(axes[0], gammas, strict=True):
    part = table[table["gamma"] == gamma]
    plotting.mean_ci(
        ax, part, x="log2_width", y="log2_frobenius", band="sd", marker="o", label="simulation"
    )
    x = np.sort(part["log2_width"].unique())
    ax.plot(x, 1.5 * x, "g--", lw=1, label=r"$\log_2 d^{1.5}$")
    ax.set(
        xlabel=r"$\log_2 d$",
        ylabel=r"$\log_2 \frac{1}{L}\sum_\ell \|M(H_\ell)\|_F^2$",
        title=r"$\gamma = \infty$" if np.isinf(gamma) else rf"$\gamma = {gamma:g}$",
    )
    ax.legend()
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
