"""DJB21 Fig. 3b (Thesis Fig. 2.4b): one Xavier ReLU MLP without BN; the orthogonality gap V(H_L)
(red, left axis) and the training loss (blue, right axis) per epoch.

{{ snakemake.config["scale"] | capitalize }} scale. The MLP of depth
{{ snakemake.params.figure["depth"] }} (the paper: 20 Linear layers).

{% include "orthogonality/mlp_training.rst" %}
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
depth = snakemake.params.item["figure"]["depth"]
table = table[(table["depth"] == depth) & (table["network"] == "Xavier")]
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_loss")
fig, left, _ = plotting.twin_mean_ci(
    curves, "epoch", ("orthogonality_gap", r"orthogonality gap $V(H_L)$"),
    ("train_loss", "training loss"), hue="network",
)  # fmt: skip
left.set_title(f"depth {depth}")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
