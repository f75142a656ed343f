"""Dan+20 Fig. 5 (VGG19) and Fig. 13 (ResNet-50), "breaking BN": training accuracy (left) and
numerical rank of the last hidden layer on the probe batch (right) over iterations, BN with the
default init, with the asymmetric init U[0, 2/sqrt(fan_in)], and without mean subtraction.

{{ "Dan+20 Fig. 5" if snakemake.params.setup["architecture"] == "vgg19" else
"Dan+20 Fig. 13 (App. I)" }} ({{ snakemake.config["scale"] }} scale). The rank is that of H_L, the
input of the classification layer, with footnote 2's torch.matrix_rank tolerance; the default init
is PyTorch's U[-1/sqrt(fan_in), 1/sqrt(fan_in)], the asymmetric one has the same variance; without
mean subtraction, every BatchNorm2d is swapped.

{% include "rank_collapse/conv_training.rst" %}
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

panels = {"train_accuracy": "training accuracy", "rank": "rank of the last hidden layer"}
curves = curves_at_chosen_rates(table, "train_accuracy")
fig, _ = plotting.metric_panels(curves, panels, x="iteration", hue="network", clip="auto")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
