"""Thesis Figs. 6.2, 6.3, C.10: ln ||grad W_l||_F vs depth L, one curve per sweep variant.

The figure (``params.figure``) picks the curves and the layer (fc_1, or fc_0 for Fig. C.10) from
``sigprop.papers.gradients.depth_sweep_tables.CURVES``; each curve is its variant's simulation.
"""

import pandas as pd

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file
from sigprop.papers.gradients.depth_sweep_tables import CURVES, palette, tidy, variants

log_to_file(snakemake.log[0])
figure = item_params(snakemake).figure
sweep = pd.concat([store.load_frame(getattr(snakemake.input, v)) for v in variants(figure)])
table = tidy(sweep, figure)
table.to_csv(snakemake.output.csv, index=False)

hue, _, column = CURVES[figure]
layer = column.removeprefix("log_grad_fc")
fig, ax = plotting.figure()
plotting.mean_ci(ax, table, x="depth", y="log_grad", hue=hue, palette=palette(figure), marker="o")
ylabel = rf"$\log \|\nabla_{{W_{layer}}} \mathcal{{L}}\|_F$ (fc$_{layer}$)"
ax.set(xlabel=r"depth $L$", ylabel=ylabel)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
