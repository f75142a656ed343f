"""Thesis Fig. A.1: training loss after training vs depth, ReLU MLPs without BN: Xavier, iterative
orthogonalization, orthogonal weights and adaptive gradient clipping (Eq. (A.21)); one panel per
clipping parameter lambda.

{{ snakemake.config["scale"] | capitalize }} scale. Orthogonal weights are mean singular value x U
V^T (App. A.5 (i)); adaptive gradient clipping (Eq. (A.21)) clips every weight's gradient. Networks
{{ snakemake.params.setup["networks"] }}.

Bias-free ReLU MLPs without BN of width {{ snakemake.params.setup["width"] }}, depths
{{ snakemake.params.setup["depths"] }} hidden blocks (DJB21's depth, its Linear layers, is one
more), on {{ snakemake.params.setup["dataset"] }}
({{ snakemake.params.setup["train_size"] or "all" }} training samples{{
"; quick scale: Fashion-MNIST stands in for CIFAR-10, not reachable on the quick machine" if
snakemake.params.setup["dataset"] != "cifar10" and snakemake.config["scale"] == "quick" else "" }}).
Every network starts from the same Xavier draw ({{ snakemake.params.setup["init"] }}:
xavier_uniform_ with gain sqrt 2, the authors' code); SGD at step size(s)
{{ snakemake.params.setup["lrs"] }}, batch {{ snakemake.params.setup["batch_size"] }},
{{ snakemake.params.setup["epochs"] }} epochs (the paper: 0.01, 500, 30). Training loss in
evaluation on {{ snakemake.params.setup["eval_size"] or "all" }} training samples; the orthogonality
gap is V(H_L) of Eq. (2) on the first {{ snakemake.params.setup["probe_size"] }} training samples
(the paper's "gap of representation in the last layer"; the authors' code measures a singular-value
gap of the logits). Mean and 95% CI over {{ snakemake.params.setup["n_runs"] }} runs (the paper: 4).
"""

from sigprop import plotting, store
from sigprop.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_loss")
final = curves[curves["point"] == curves["point"].max()]
names = list(dict.fromkeys(table["network"]))
palette = dict(zip(names, plotting.colors(len(names)), strict=True))
clipped = [n for n in names if n.startswith("AGC")]
fig, axes = plotting.figure(ncols=len(clipped), width=4.2, squeeze=False)
for ax, agc in zip(axes[0], clipped, strict=True):
    shown = final[~final["network"].str.startswith("AGC") | (final["network"] == agc)]
    plotting.mean_ci(ax, shown, x="depth", y="train_loss", hue="network", palette=palette)
    ax.set(xlabel="depth (hidden layers)", ylabel="training loss after training", title=agc)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
