"""Dan+20 Fig. 12 (Fig. 4 on Fashion-MNIST): training loss (top) and test loss (bottom) over epochs,
one panel per depth; each network at the step size with the lowest mean final training loss.

{{ snakemake.config["scale"] | capitalize }} scale. Depths {{ snakemake.params.setup["depths"] }}.

ReLU MLPs of width {{ snakemake.params.setup["width"] }} on {{ snakemake.params.setup["dataset"] }}
({{ snakemake.params.setup["train_size"] or "all" }} training samples), networks
{{ snakemake.params.setup["networks"] }}. Rank pre-training is Algorithm 1 (App. G), variant
{{ snakemake.params.setup["pretraining"]["variant"] }} (our reading of "layer-wise": r(H_l) ascended
block after block), with {{ snakemake.params.setup["pretraining"]["optimizer"] }} at step
{{ snakemake.params.setup["pretraining"]["lr"] }} on minibatches of
{{ snakemake.params.setup["pretraining"]["batch_size"] }},
{{ snakemake.params.setup["pretraining"]["steps"] }} step(s) each (the seed gives none of these).
SGD with batch {{ snakemake.params.setup["batch_size"] }} for {{ snakemake.params.setup["epochs"] }}
epochs (the seed: not given) over the step-size grid {{ snakemake.params.setup["lrs"] }}. Mean and
95% CI over {{ snakemake.params.setup["n_runs"] }} runs (the seed: 5).
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
