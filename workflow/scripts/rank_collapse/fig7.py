"""Dan+20 Fig. 7 (App. C), centering for BN: VGG19 with BN (blue) and BN without mean subtraction
(orange); training accuracy (left) and r(H_L) on the probe batch (right) over iterations. The runs
of Fig. 5.

{{ snakemake.config["scale"] | capitalize }} scale. r(H_L) is Eq. (4); one simulation serves Figs. 5
and 7 (Fig. 7's axis runs to 30000 iterations at paper scale).

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
table = table[table["network"].isin(["BN", "BN w/o centering"])]
table.to_csv(snakemake.output.csv, index=False)

panels = {
    "train_accuracy": "VGG19: training accuracy",
    "r_lower_bound": r"VGG19: lower bound on rank $r(H_L)$",
}
curves = curves_at_chosen_rates(table, "train_accuracy")
fig, _ = plotting.metric_panels(curves, panels, x="iteration", hue="network", clip="auto")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
