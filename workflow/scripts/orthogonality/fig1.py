r"""DJB21 Fig. 1 (Thesis Fig. 2.1): \|cos\| of two samples vs layer, BN vs vanilla.

{{ snakemake.config["scale"] | capitalize }} scale. Absolute cosine similarity of the two samples of
H_l against layer l (0 = input; the seed's x is l + 1) for the BN chain of DJB21 Eq. (1) started
from nearly collinear samples (eps = {{ snakemake.params.setup["epsilon"] }}) and the vanilla linear
chain started from orthogonal samples, both with the same Gaussian weights, d =
{{ snakemake.params.setup["width"] }}. Mean and 95% CI over {{ snakemake.params.setup["n_runs"] }}
runs. Dashed: 1/sqrt(d).
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

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
