"""DJB21 Fig. 4 (Thesis Fig. 2.5): training loss after training vs depth, ReLU MLPs without BN,
Xavier (blue) vs iterative orthogonalization (red).

{{ snakemake.config["scale"] | capitalize }} scale. Iterative orthogonalization is Eq. (6), the
variant of the authors' code, from {{ snakemake.params.setup["init_batch_size"] }} training samples;
input and output layers keep Xavier.

{% include "orthogonality/mlp_training.rst" %}
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates
from sigprop.verdicts import plotting

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
