"""Dan+20 Fig. 10 (App. H), directional gradient vanishing: VGG19 with BN, and without BN
trained with SGD, SGD at 100x the step size and SGD on uniform-noise images; training accuracy
on a log scale (left) and the mean |cos| between per-sample gradients of the classification
layer's rows on the probe batch (right) over iterations."""

from sigprop import plotting, store
from sigprop.papers.rank_collapse.training_judges import curves_at_chosen_rates
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_accuracy")
names = list(dict.fromkeys(table["network"]))
palette = dict(zip(names, plotting.colors(len(names)), strict=True))
fig, (left, right) = plotting.figure(ncols=2, width=4.2)
for ax, metric, label in (
    (left, "train_accuracy", "training accuracy (log scale)"),
    (right, "gradient_alignment", "gradient alignment, mean |cos|"),
):
    plotting.mean_ci(ax, curves, x="iteration", y=metric, hue="network", palette=palette)
    ax.set(xlabel="iteration", ylabel=label)
left.set_yscale("log")
right.set_ylim(0, 1.05)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
