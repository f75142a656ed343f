"""DJB21 Fig. 3b (Thesis Fig. 2.4b): one Xavier ReLU MLP without BN; the orthogonality gap
V(H_L) (red, left axis) and the training loss (blue, right axis) per epoch."""

from sigprop import plotting, store
from sigprop.training.curves import curves_at_chosen_rates
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
depth = snakemake.params.item["figure"]["depth"]
table = table[(table["depth"] == depth) & (table["network"] == "Xavier")]
table.to_csv(snakemake.output.csv, index=False)

curves = curves_at_chosen_rates(table, "train_loss")
fig, left = plotting.figure(width=4.6)
right = left.twinx()
plotting.mean_ci(left, curves, x="epoch", y="orthogonality_gap", hue="network", palette=["tab:red"])
plotting.mean_ci(right, curves, x="epoch", y="train_loss", hue="network", palette=["tab:blue"])
for ax in (left, right):
    ax.get_legend().remove()
left.set(xlabel="epoch", ylabel=r"orthogonality gap $V(H_L)$", title=f"depth {depth}")
right.set_ylabel("training loss")
left.yaxis.label.set_color("tab:red")
right.yaxis.label.set_color("tab:blue")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
