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

panels = {
    "train_accuracy": "training accuracy (log scale)",
    "gradient_alignment": "gradient alignment, mean |cos|",
}
curves = curves_at_chosen_rates(table, "train_accuracy")
fig, (left, right) = plotting.metric_panels(curves, panels, x="iteration", hue="network")
left.set(yscale="log", ylim=(0.01, 1))
right.set_ylim(0, 1.05)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
