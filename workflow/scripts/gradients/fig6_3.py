"""Thesis Fig. 6.3: orthogonal vs Gaussian weights (Thm. 6.5); log gradient norm vs depth L."""

from sigprop import plotting, store
from sigprop.checks.gradients_depth import CURVES, palette, tidy
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = tidy(store.load_frame(snakemake.input.sweep), "fig6_3")
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure()
plotting.mean_ci(
    ax,
    table,
    x="depth",
    y="log_grad",
    hue=CURVES["fig6_3"][0],
    palette=palette("fig6_3"),
    marker="o",
)
ax.set(xlabel=r"depth $L$", ylabel=r"$\log \|\nabla_{W_1} \mathcal{L}\|_F$")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
