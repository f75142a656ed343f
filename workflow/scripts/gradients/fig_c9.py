"""Thesis Fig. C.9: sin, tanh, identity without gain; log gradient norm and last-layer psi vs L.

App. C.7; {{ snakemake.config["scale"] }} scale. Orthogonal networks without gain with sin, tanh and
identity activations (BN without mean reduction, factor sqrt(n), as the authors' "Gradients"
notebook). Left: log-norm of the gradient of ``fc_1`` against depth L. Right: the isometry gap psi
(Eq. (6.5)) of the ``fc_(L-1)`` output, log scale. d = n = {{ snakemake.params.sweep["width"] }},
one {{ snakemake.config["gradients"]["data"]["dataset"] }} batch; mean and 95% CI over
{{ snakemake.params.sweep["n_runs"] }} runs; float64.
"""

import pandas as pd

from sigprop.base import store
from sigprop.papers.gradients.depth_sweep_tables import palette, tidy, variants
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
sweep = pd.concat([store.load_frame(getattr(snakemake.input, v)) for v in variants("fig_c9")])
table = tidy(sweep, "fig_c9")
table.to_csv(snakemake.output.csv, index=False)

fig, (left, right) = plotting.figure(ncols=2)
plotting.mean_ci(
    left, table, x="depth", y="log_grad", hue="activation", palette=palette("fig_c9"), marker="o"
)
left.set(xlabel=r"depth $L$", ylabel=r"$\log \|\nabla_{W_1} \mathcal{L}\|_F$")
plotting.mean_ci(
    right, table, x="depth", y="gap_last", hue="activation", palette=palette("fig_c9"), marker="o"
)
right.set(xlabel=r"depth $L$", ylabel=r"$\psi$ of the fc$_{L-1}$ output", yscale="log")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
