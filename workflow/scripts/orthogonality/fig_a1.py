"""Thesis Fig. A.1: training loss after training vs depth, ReLU MLPs without BN: Xavier, iterative
orthogonalization, orthogonal weights and adaptive gradient clipping (Eq. (A.21)); one panel per
clipping parameter lambda.

{{ snakemake.config["scale"] | capitalize }} scale. Orthogonal weights are mean singular value x U
V^T (App. A.5 (i)); adaptive gradient clipping (Eq. (A.21)) clips every weight's gradient. Networks
{{ snakemake.params.setup["networks"] }}.

{% include "orthogonality/mlp_training.rst" %}
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_loss")
final = curves[curves["point"] == curves["point"].max()]
names = list(dict.fromkeys(table["network"]))
palette = dict(zip(names, plotting.colors(len(names)), strict=True))
clipped = [n for n in names if n.startswith("AGC")]
fig, axes = plotting.figure(ncols=len(clipped), width=4.2, squeeze=False)
for ax, agc in zip(axes[0], clipped, strict=True):
    shown = final[~final["network"].str.startswith("AGC") | (final["network"] == agc)]
    plotting.mean_ci(ax, shown, x="depth", y="train_loss", hue="network", palette=palette)
    ax.set(xlabel="depth (hidden layers)", ylabel="training loss after training", title=agc)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
