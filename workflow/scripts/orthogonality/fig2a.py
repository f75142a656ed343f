"""DJB21 Fig. 2a (Thesis Fig. 2.2a): log V(H_l) vs layer l for two widths.

{{ snakemake.config["scale"] | capitalize }} scale. Natural log of the orthogonality gap V(H_l)
(DJB21 Eq. (2)) against layer l (0 = input) for the BN chain of DJB21 Eq. (1) with n =
{{ snakemake.params.chain["batch_size"] }} samples, widths {{ snakemake.params.widths }}, from the
nearly rank-one H_0 of the authors' code. Mean and 95% CI over
{{ snakemake.params.chain["n_runs"] }} runs.
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

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
