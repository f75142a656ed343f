"""Thesis Figs. 6.4, C.5-C.8: train (and test) accuracy over epochs of BN MLPs with shaped sin,
shaped tanh and identity (and, Fig. 6.4, the unshaped control), one column per depth."""

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file
from sigprop.papers.gradients.training_spec import CONTROL

log_to_file(snakemake.log[0])
figure = item_params(snakemake).figure
table = store.load_frame(snakemake.input.curves)  # network, depth, run, point, curves, epoch
if figure != "fig6_4":  # the unshaped control is Fig. 6.4's alone (Fig. C.8 shares its runs)
    table = table[table["network"] != CONTROL]
table.to_csv(snakemake.output.csv, index=False)

splits = ["train"] if figure == "fig6_4" else ["train", "test"]
depths = sorted(table["depth"].unique())
fig, axes = plotting.figure(ncols=len(depths), nrows=len(splits), squeeze=False, sharey=True)
for row, split in zip(axes, splits, strict=True):
    for ax, depth in zip(row, depths, strict=True):
        part = table[table["depth"] == depth]
        plotting.mean_ci(ax, part, x="epoch", y=f"{split}_accuracy", hue="network", marker="o")
        ax.set(
            xlabel="epoch", ylabel=f"{split} accuracy", title=f"depth $L$ = {depth}", ylim=(0, 1)
        )
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
