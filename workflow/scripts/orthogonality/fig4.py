"""DJB21 Fig. 4 (Thesis Fig. 2.5): training loss after training vs depth, ReLU MLPs without BN,
Xavier (blue) vs iterative orthogonalization (red).

{{ snakemake.config["scale"] | capitalize }} scale. Iterative orthogonalization is Eq. (6), the
variant of the authors' code, from {{ snakemake.params.setup["init_batch_size"] }} training samples;
input and output layers keep Xavier.

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
table = table[table["network"].isin(["Xavier", "iterative orthogonalization"])]
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_loss")
final = curves[curves["point"] == curves["point"].max()]
palette = {"Xavier": "tab:blue", "iterative orthogonalization": "tab:red"}
fig, ax = plotting.figure(width=4.6)
plotting.mean_ci(ax, final, x="depth", y="train_loss", hue="network", palette=palette)
ax.set(
    xlabel="depth (hidden layers)", ylabel=f"training loss after {table['epoch'].max():g} epochs"
)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
