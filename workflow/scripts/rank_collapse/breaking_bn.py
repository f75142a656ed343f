"""Dan+20 Fig. 5 (VGG19) and Fig. 13 (ResNet-50), "breaking BN": training accuracy (left) and
numerical rank of the last hidden layer on the probe batch (right) over iterations, BN with the
default init, with the asymmetric init U[0, 2/sqrt(fan_in)], and without mean subtraction.

{{ "Dan+20 Fig. 5" if snakemake.params.setup["architecture"] == "vgg19" else
"Dan+20 Fig. 13 (App. I)" }} ({{ snakemake.config["scale"] }} scale). The rank is that of H_L, the
input of the classification layer, with footnote 2's torch.matrix_rank tolerance; the default init
is PyTorch's U[-1/sqrt(fan_in), 1/sqrt(fan_in)], the asymmetric one has the same variance; without
mean subtraction, every BatchNorm2d is swapped.

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
from sigprop.training.curves import curves_at_chosen_rates

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

panels = {"train_accuracy": "training accuracy", "rank": "rank of the last hidden layer"}
curves = curves_at_chosen_rates(table, "train_accuracy")
fig, _ = plotting.metric_panels(curves, panels, x="iteration", hue="network", clip="auto")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
