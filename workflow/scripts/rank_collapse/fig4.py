"""Dan+20 Fig. 4: training loss over epochs of rank-pre-trained vanilla, BN and vanilla ReLU MLPs,
one panel per depth; each network at the step size with the lowest mean final training loss.

{{ snakemake.config["scale"] | capitalize }} scale. Training loss on
{{ snakemake.params.setup["eval_size"] or "all" }} training samples, depths
{{ snakemake.params.setup["depths"] }}.
{{ " Fashion-MNIST stands in for CIFAR-10 at quick scale (not reachable on the quick machine)."
if snakemake.params.setup["dataset"] != "cifar10" and snakemake.config["scale"] == "quick"
else "" }}

{% include "rank_collapse/pretraining_mlps.rst" %}
"""

from sigprop import plotting, store
from sigprop.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_loss")
rows = {"train_loss": "training loss"}
fig, _ = plotting.metric_grid(
    curves, rows, "depth", "depth {}", x="epoch", hue="network", palette=plotting.PALETTE,
    clip="auto",
)  # fmt: skip
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
