"""Dan+20 Fig. 5 (VGG19) and Fig. 13 (ResNet-50), "breaking BN": training accuracy (left) and
numerical rank of the last hidden layer on the probe batch (right) over iterations, BN with the
default init, with the asymmetric init U[0, 2/sqrt(fan_in)], and without mean subtraction."""

from sigprop import plotting, store
from sigprop.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

panels = {"train_accuracy": "training accuracy", "rank": "rank of the last hidden layer"}
curves = curves_at_chosen_rates(table, "train_accuracy")
fig, _ = plotting.metric_panels(curves, panels, x="iteration", hue="network", clip="auto")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
