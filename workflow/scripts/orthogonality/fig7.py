"""DJB21 Fig. 7 (App. G): training loss over epochs of the conv nets of Table 3, Xavier (blue) vs
the orthogonalizing init (red), one panel per number of convolutions.

{% set setup = snakemake.params.setup %}{{ snakemake.config["scale"] | capitalize }} scale.
Convolutions {{ setup["depths"] }}; the orthogonalizing init is Eq. (6) on the unfolded input, Eq.
(21), for every convolution with as many input as output channels, as the authors' code, from
{{ setup["init_batch_size"] }} training images. Channels x {{ setup["width_multiplier"] }} (1 =
Table 3), first convolution of stride 2 (the authors' code), dropout 0 (ours);
{{ setup["dataset"] }} ({{ setup["train_size"] or "all" }} training samples, zero-padded to 32 x
32{{ "; quick scale: Fashion-MNIST stands in for CIFAR-10" if setup["dataset"] != "cifar10" and
snakemake.config["scale"] == "quick" else "" }}). SGD at step size(s) {{ setup["lrs"] }}, batch
{{ setup["batch_size"] }}, {{ setup["epochs"] }} epochs (the authors' code: 0.001, 30, 20). Mean and
95% CI over {{ setup["n_runs"] }} runs (the paper: 4).
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_loss")
palette = {"Xavier": "tab:blue", "iterative orthogonalization": "tab:red"}
fig, _ = plotting.metric_grid(
    curves, {"train_loss": "training loss"}, "depth", "{} convolutions", x="epoch",
    hue="network", palette=palette,
)  # fmt: skip
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
