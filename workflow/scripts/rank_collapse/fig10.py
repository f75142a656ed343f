r"""Dan+20 Fig. 10 (App. H), directional gradient vanishing: VGG19 with BN, and without BN trained
with SGD, SGD at 100x the step size and SGD on uniform-noise images; training accuracy on a log
scale (left) and the mean \|cos\| between per-sample gradients of the classification layer's rows on
the probe batch (right) over iterations.

{{ snakemake.config["scale"] | capitalize }} scale. The images of the noise runs have integer pixels
drawn uniformly from [0, 255] (preprocessed as the real ones, real labels). Gradient alignment (the
seed gives no formula; ours): for each row of the classification layer, the mean \|cos\| between
per-sample gradients of the cross-entropy (torch.func) over pairs of the probe batch, averaged over
rows; Prop. 19: 1 when H_L has rank one.

torchvision's {{ "VGG19" if snakemake.params.setup["architecture"] == "vgg19" else "ResNet-50" }} at
{{ snakemake.params.setup["width_multiplier"] }} x the channel widths (1 = the seed's network; depth
and layer order unchanged; {{ "VGG19 pools to 1x1 before its three Linear layers, dropout 0" if
snakemake.params.setup["architecture"] == "vgg19" else
"the CIFAR stem: 3x3 stride-1 first convolution, no max-pool" }}), on
{{ snakemake.params.setup["dataset"] }} ({{ snakemake.params.setup["train_size"] or "all" }}
training samples, zero-padded to {{ snakemake.params.setup["image_size"] }} x {{
snakemake.params.setup["image_size"] }}{{
"; quick scale: Fashion-MNIST stands in for CIFAR-10, not reachable on the quick machine" if
snakemake.params.setup["dataset"] != "cifar10" and snakemake.config["scale"] == "quick" else "" }}).
SGD with momentum {{ snakemake.params.setup["momentum"] }}, batch
{{ snakemake.params.setup["batch_size"] }}, {{ snakemake.params.setup["epochs"] }} epochs, step
size(s) {{ snakemake.params.setup["lrs"] }} (the seed gives none of these); training accuracy in
eval mode on {{ snakemake.params.setup["eval_size"] or "all" }} training samples; probes on the
first {{ snakemake.params.setup["probe_size"] }} training samples with batch statistics. Mean and
95% CI over {{ snakemake.params.setup["n_runs"] }} runs (the seed: 5).
"""

from sigprop import plotting, store
from sigprop.jobs import log_to_file

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
