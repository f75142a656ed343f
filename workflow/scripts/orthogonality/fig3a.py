"""DJB21 Fig. 3a (Thesis Fig. 2.4a): Xavier ReLU MLPs without BN; the orthogonality gap V(H_L)
at initialization (red, left axis) and the training loss after training (blue, right axis) vs
depth."""

from sigprop import plotting, store
from sigprop.papers.orthogonality.training_judges import gap_and_loss
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.curves)  # network, depth, lr, run, point, metrics
table.to_csv(snakemake.output.csv, index=False)

points = gap_and_loss(table).assign(curve="Xavier")
epochs = table["epoch"].max()
fig, left = plotting.figure(width=4.6)
right = left.twinx()
plotting.mean_ci(left, points, x="depth", y="gap_at_init", hue="curve", palette=["tab:red"])
plotting.mean_ci(right, points, x="depth", y="final_loss", hue="curve", palette=["tab:blue"])
for ax in (left, right):
    ax.get_legend().remove()
left.set(xlabel="depth (hidden layers)", ylabel=r"orthogonality gap $V(H_L)$ at init")
right.set_ylabel(f"training loss after {epochs:g} epochs")
left.yaxis.label.set_color("tab:red")
right.yaxis.label.set_color("tab:blue")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
