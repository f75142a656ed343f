"""Dan+20 Fig. 12 (Fig. 4 on Fashion-MNIST): training loss (top) and test loss (bottom) over epochs,
one panel per depth; each network at the step size with the lowest mean final training loss.

{{ snakemake.config["scale"] | capitalize }} scale. Depths {{ snakemake.params.setup["depths"] }}.

{% include "rank_collapse/pretraining_mlps.rst" %}
"""

from sigprop import plotting, store
from sigprop.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_loss")
rows = {"train_loss": "training loss", "test_loss": "test loss"}
fig, _ = plotting.metric_grid(
    curves, rows, "depth", "depth {}", x="epoch", hue="network", palette=plotting.PALETTE,
    clip="auto",
)  # fmt: skip
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
