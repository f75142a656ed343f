"""Thesis Figs. 6.2, 6.3, C.10: ln ||grad W_l||_F vs depth L, one curve per sweep variant.

{% set fig = snakemake.params.figure %}{% set sweep = snakemake.params.sweep %}
{{ snakemake.params.source }} ({{ snakemake.config["scale"] }} scale): natural log of the Frobenius
norm of the gradient of {{
"``fc_0`` (the input projection, as in the authors' code; the seed's label says W_1)" if fig ==
"fig_c10" else "``fc_1`` (the first hidden d x d layer)" }} at initialization against the depth L,
cross-entropy on one {{ snakemake.config["gradients"]["data"]["dataset"] }} training batch shared by
all depths and runs (the seed uses CIFAR-10), a fresh network per depth and run. The setup of Fig.
6.3 unless a curve says otherwise: Haar orthogonal weights, identity activation, BN without mean
reduction scaled to norm sqrt(n) per neuron, no bias; d = {{ sweep["width"] }}, n =
{{ snakemake.config["gradients"]["data"]["batch_size"] }}; mean and 95% CI over
{{ sweep["n_runs"] }} runs; {{ sweep["dtype"] }}.

{% if fig == "fig6_3" %}Curves: Haar orthogonal weights (Thm. 6.5) and xavier_normal Gaussian
weights (Yang et al. 2019).{% elif fig == "fig6_2" %}Curves (Remark 6.6): the non-degenerate batch
of distinct images and a degenerate one made of the first {{ sweep["degenerate"]["distinct"] }}
images each repeated {{ sweep["degenerate"]["repeats"] }} times (rank
{{ sweep["degenerate"]["distinct"] }}, psi(X_0) = inf, the bound of Thm. 6.5 is vacuous; our reading
of the caption's "repeated samples"); both curves share their weights. No authors' code exists for
this figure.{% else %}Curves: BN "with mean reduction" (centred, scaled to norm sqrt(n)) and
"without" (Eq. (6.4) exactly: unit-norm rows); both curves share their weights, so their levels
differ by a constant (the scale factor).{% endif %}
"""

import pandas as pd

from sigprop.base import store
from sigprop.papers.gradients.depth_sweep_tables import CURVES, palette, tidy, variants
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

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
