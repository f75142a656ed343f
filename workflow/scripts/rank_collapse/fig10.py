r"""Dan+20 Fig. 10 (App. H), directional gradient vanishing: VGG19 with BN, and without BN trained
with SGD, SGD at 100x the step size and SGD on uniform-noise images; training accuracy on a log
scale (left) and the mean \|cos\| between per-sample gradients of the classification layer's rows on
the probe batch (right) over iterations.

{{ snakemake.config["scale"] | capitalize }} scale. The images of the noise runs have integer pixels
drawn uniformly from [0, 255] (preprocessed as the real ones, real labels). Gradient alignment (the
seed gives no formula; ours): for each row of the classification layer, the mean \|cos\| between
per-sample gradients of the cross-entropy (torch.func) over pairs of the probe batch, averaged over
rows; Prop. 19: 1 when H_L has rank one.

{% include "rank_collapse/conv_training.rst" %}
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

panels = {
    "train_accuracy": "training accuracy (log scale)",
    "gradient_alignment": "gradient alignment, mean |cos|",
}
# one step size per network: the raw curves, so a diverged run shows as a gap, not as a
# missing network (the grid search drops a grid point with a NaN run)
fig, (left, right) = plotting.metric_panels(table, panels, x="iteration", hue="network",
                                            clip="auto")  # fmt: skip
left.set(yscale="log", ylim=(0.01, 1))
right.set_ylim(0, 1.05)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
