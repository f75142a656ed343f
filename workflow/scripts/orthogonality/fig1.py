"""DJB21 Fig. 1 (Thesis Fig. 2.1): |cos| of two samples vs layer, BN vs vanilla."""

import numpy as np

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
setup = params.setup
table = store.load_frame(snakemake.input.cosines)  # network, run, layer, abs_cos
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure()
plotting.mean_ci(ax, table, x="layer", y="abs_cos", hue="network", palette=plotting.PALETTE)
ax.axhline(1 / np.sqrt(setup["width"]), ls="--", c="grey", label=r"$1/\sqrt{d}$")
ax.set(
    ylim=(0, 1.05),
    xlabel=r"layer $\ell$ (0 = input)",
    ylabel=r"$|\cos(h_1^{(\ell)}, h_2^{(\ell)})|$",
    title=f"d = {setup['width']}",
)
ax.legend()
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
