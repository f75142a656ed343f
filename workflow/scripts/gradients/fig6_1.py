"""Thesis Fig. 6.1: isometry gap psi(X_l) vs layer (Haar W, identity, theory BN), dashed theory.

Meterez, Joudaki et al. 2024 Fig. 1; {{ snakemake.config["scale"] }} scale. Isometry gap psi(X_l)
(Eq. (6.5), float64, log scale) of X_{l+1} = BN(W_l X_l) with Haar orthogonal W_l, identity
activation and theory BN (Eq. (6.4), unit rows, no mean reduction), for d = n in
{{ snakemake.config["gradients"]["isometry_chain"]["widths"] }}. Input X_0 = (1 - f) I + f u v^T, u,
v ~ U[0, 1]^d, f = {{ snakemake.config["gradients"]["isometry_chain"]["input_fraction"] }}, drawn
once per width. Solid: mean and 95% CI over
{{ snakemake.config["gradients"]["isometry_chain"]["n_runs"] }} runs. Dashed: the authors' "theory"
psi_0 exp(-l / (C d^2 (1 + d psi_0))) with the hand-set C = {{ snakemake.params.authors_c }}.
"""

import numpy as np

from sigprop.base import store
from sigprop.papers.gradients.isometry_chain_spec import authors_rate
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = store.load_frame(snakemake.input.gaps)  # width, run, layer, psi
table.to_csv(snakemake.output.csv, index=False)

widths = sorted(table["width"].unique())
palette = dict(zip(widths, plotting.colors(len(widths)), strict=True))
fig, ax = plotting.figure(width=4.6)
plotting.mean_ci(ax, table, "layer", "psi", hue="width", palette=palette)  # numeric order
for d, rows in table.groupby("width"):
    psi0, layers = rows.loc[rows["layer"] == 0, "psi"].mean(), np.sort(rows["layer"].unique())
    k = authors_rate(d, psi0, params.authors_c)
    ax.plot(layers, psi0 * np.exp(-layers / k), "--", color=palette[d], lw=1)
ax.plot([], [], "k--", lw=1, label=f"theory, C = {params.authors_c:g}")
ax.set(yscale="log", xlabel=r"layer $\ell$", ylabel=r"isometry gap $\psi(X_\ell)$")
ax.set_ylim(bottom=max(ax.get_ylim()[0], 0.1 * table["psi"].min()))
ax.legend(title=r"width $d$", fontsize="small")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
