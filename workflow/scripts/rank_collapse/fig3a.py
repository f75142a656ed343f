"""Dan+20 Fig. 3a: layer-averaged rank_1/2 vs width d, one curve per gamma (inf: no skip).

{% set setup = snakemake.params.setup %}Thm. 2, Thm. 14; {{ snakemake.config["scale"] }} scale. The
layer average of rank_1/2(H_l) (Eq. (3), tau = 1/2) of the linear BN chain of Eq. (1) against width
d = N, one curve per residual strength gamma (inf: no skip connection), log-log; mean and 95% t
interval (the claims' interval; the seed plots one standard deviation) over {{ setup["n_runs"] }}
runs of {{ setup["depth"] }} layers (statistics every {{ setup["stride"] }} layers after
{{ setup["burn_in"] }}; the seed uses L = 10^6). Dashed: sqrt(d).
"""

import numpy as np

from sigprop.base import store
from sigprop.papers.rank_collapse.bn_chain_tables import ergodic_averages
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = ergodic_averages(store.load_frame(snakemake.input.chain))  # per (gamma, width, run)
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure()
table["gamma"] = table["gamma"].map(lambda g: "∞" if np.isinf(g) else f"{g:g}")
plotting.mean_ci(ax, table, x="width", y="soft_rank_0.5", hue="gamma", clip="auto", marker="o")
widths = np.sort(table["width"].unique()).astype(float)
ax.plot(widths, np.sqrt(widths), "k--", lw=1, label=r"$\sqrt{d}$")
plotting.width_axis(ax, widths, r"width $d$ ($= N$)")
ax.set_yscale("log", base=2)
ax.set(
    ylabel=r"$\frac{1}{L}\sum_\ell \mathrm{rank}_{1/2}(H_\ell)$",
)
ax.legend(title=r"$\gamma$")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
