"""Thesis Fig. 6.2 (Remark 6.6): degenerate vs non-degenerate batch; log grad norm vs depth L."""

from sigprop import plotting, store
from sigprop.checks.gradients_depth import CURVES, palette, tidy
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = tidy(store.load_frame(snakemake.input.sweep), "fig6_2")
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure()
plotting.mean_ci(
    ax,
    table,
    x="depth",
    y="log_grad",
    hue=CURVES["fig6_2"][0],
    palette=palette("fig6_2"),
    marker="o",
)
ax.set(xlabel=r"depth $L$", ylabel=r"$\log \|\nabla_{W_1} \mathcal{L}\|_F$")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
