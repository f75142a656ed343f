"""DJB21 Fig. 3a (Thesis Fig. 2.4a): Xavier ReLU MLPs without BN; the orthogonality gap V(H_L) at
initialization (red, left axis) and the training loss after training (blue, right axis) vs depth.

{{ snakemake.config["scale"] | capitalize }} scale.

{% include "orthogonality/mlp_training.rst" %}
"""

from sigprop.base import store
from sigprop.papers.orthogonality.training_tables import gap_and_loss
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

points = gap_and_loss(table).assign(network="Xavier")
epochs = table["epoch"].max()
fig, left, _ = plotting.twin_mean_ci(
    points, "depth", ("gap_at_init", r"orthogonality gap $V(H_L)$ at init"),
    ("final_loss", f"training loss after {epochs:g} epochs"), hue="network",
)  # fmt: skip
left.set_xlabel("depth (hidden layers)")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
