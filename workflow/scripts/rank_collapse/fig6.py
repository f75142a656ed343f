"""Dan+20 Fig. 6: deep ReLU MLPs; training accuracy (left) and r(H_L) on the probe batch (right)
over epochs: vanilla (blue), pre-trained 25 (orange) and 75 (green) iterations, solid; BN with the
default and the asymmetric init, dashed. Each network at the step size with the best mean final
training accuracy.

{{ snakemake.config["scale"] | capitalize }} scale. Depth {{ snakemake.params.setup["depths"][0] }};
r(H_L) is Eq. (4) on {{ snakemake.params.setup["probe_size"] }} training samples; the pre-trained
nets start from the vanilla net's initial draw.

{% include "rank_collapse/pretraining_mlps.rst" %}
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.training.curves import curves_at_chosen_rates
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_accuracy")
names = list(dict.fromkeys(table["network"]))
palette = dict(zip(names, plotting.colors(len(names)), strict=True))
fig, (left, right) = plotting.figure(ncols=2, width=4.2)
for ax, metric, label in (
    (left, "train_accuracy", "training accuracy"),
    (right, "r_lower_bound", r"$r(H_L)$, lower bound on rank"),
):
    for dashed in (False, True):
        part = curves[curves["network"].str.startswith("BN") == dashed]
        plotting.mean_ci(
            ax, part, x="epoch", y=metric, hue="network", palette=palette,
            linestyle="--" if dashed else "-", clip="auto",
        )  # fmt: skip
    ax.set(xlabel="epoch", ylabel=label)
handles, labels = right.get_legend_handles_labels()
for ax in (left, right):
    ax.get_legend().remove()
right.legend(handles, labels, fontsize="small")
right.set_yscale("log")
left.set_ylim(0, 1)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
