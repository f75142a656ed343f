"""DJB21 Fig. 2a (Thesis Fig. 2.2a): log V(H_l) vs layer l for two widths."""

import numpy as np

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
widths, layers = params.widths, params.layers
gaps = store.load_frame(snakemake.input.gaps)  # width, run, layer, gap
table = gaps.query("width in @widths and layer <= @layers").copy()
table["log_gap"] = np.log(table["gap"])
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure()
plotting.mean_ci(ax, table, x="layer", y="log_gap", hue="width", palette="viridis")
ax.set(xlabel=r"layer $\ell$ (0 = input)", ylabel=r"$\log V(H_\ell)$")
ax.legend(title=r"width $d$")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
