"""{{ snakemake.params.source }}: {{ snakemake.params.shows }} over epochs, one panel per depth;
each network at the step size with the lowest mean final training loss.

{% set setup = snakemake.params.setup %}{{ snakemake.config["scale"] | capitalize }} scale. Depths
{{ setup["depths"] }}.{% for metric, label in snakemake.params.rows.items() %}
{% set split = "test" if metric.startswith("test") else "training" %}{{ label | capitalize }} on
{{ setup["test_size" if split == "test" else "eval_size"] or "all" }} {{ split }} samples.
{%- endfor %}{{ " Fashion-MNIST stands in for CIFAR-10 (not reachable on the quick machine)."
if setup["dataset"] != snakemake.params.seed_dataset else "" }}

{% include "rank_collapse/pretraining_mlps.rst" %}
"""

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.training.curves import curves_at_chosen_rates
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_loss")
fig, _ = plotting.metric_grid(
    curves, dict(params.rows), "depth", "depth {}", x="epoch", hue="network",
    palette=plotting.PALETTE, clip="auto",
)  # fmt: skip
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
