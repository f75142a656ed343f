"""Dan+20 Fig. 1: rank at initialization (left) and training accuracy after training (right) vs
depth, BN vs vanilla ReLU MLPs, each network at its grid-searched learning rate.

{% set setup = snakemake.params.setup %}{{ snakemake.config["scale"] | capitalize }} scale. ReLU
MLPs of width {{ setup["width"] }} and depths {{ setup["depths"] }} on {{ setup["dataset"] }}
({{ setup["train_size"] or "all" }} training samples; the seed: all of Fashion-MNIST), BN
(``BatchNorm1d`` after each Linear) vs vanilla, PyTorch default init. Left: numerical rank (footnote
2) of the last hidden layer at initialization, on {{ setup["probe_size"] }} training samples. Right:
training accuracy (on {{ setup["eval_size"] or "all" }} training samples) after
{{ setup["epochs"] }} epochs of SGD (batch {{ setup["batch_size"] }}; the seed: 75 epochs), at the
learning rate of the grid {{ setup["lrs"] }} with the best mean final training accuracy per network
and depth. Mean and 95% CI over {{ setup["n_runs"] }} runs (the seed: 5).
"""

from sigprop.base import store
from sigprop.papers.rank_collapse.training_tables import fig1_panels
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

init, final = fig1_panels(table)
fig, (left, right) = plotting.figure(ncols=2, width=4.2)
plotting.mean_ci(
    left, init, x="depth", y="rank", hue="network", palette=plotting.PALETTE, clip="auto"
)
left.set(xlabel="depth (hidden layers)", ylabel="rank of the last hidden layer at init")
plotting.mean_ci(
    right, final, x="depth", y="train_accuracy", hue="network", palette=plotting.PALETTE,
    clip="auto",
)  # fmt: skip
epochs = table["epoch"].max()
right.set(xlabel="depth (hidden layers)", ylabel=f"training accuracy after {epochs:g} epochs")
right.set_ylim(0, 1)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
