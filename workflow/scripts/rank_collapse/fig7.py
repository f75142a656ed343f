"""Dan+20 Fig. 7 (App. C), centering for BN: VGG19 with BN (blue) and BN without mean subtraction
(orange); training accuracy (left) and r(H_L) on the probe batch (right) over iterations. The runs
of Fig. 5.

{{ snakemake.config["scale"] | capitalize }} scale. r(H_L) is Eq. (4); one simulation serves Figs. 5
and 7 (Fig. 7's axis runs to 30000 iterations at paper scale).

{% include "rank_collapse/conv_training.rst" %}
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table = table[table["network"].isin(["BN", "BN w/o centering"])]
table.to_csv(snakemake.output.csv, index=False)

panels = {
    "train_accuracy": "VGG19: training accuracy",
    "r_lower_bound": r"VGG19: lower bound on rank $r(H_L)$",
}
curves = curves_at_chosen_rates(table, "train_accuracy")
fig, _ = plotting.metric_panels(curves, panels, x="iteration", hue="network", clip="auto")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
