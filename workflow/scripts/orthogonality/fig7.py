"""DJB21 Fig. 7 (App. G): training loss over epochs of the conv nets of Table 3, Xavier (blue)
vs the orthogonalizing init (red), one panel per number of convolutions."""

from sigprop import plotting, store
from sigprop.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates

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
