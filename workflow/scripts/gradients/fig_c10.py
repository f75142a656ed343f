"""Thesis Fig. C.10: BN with vs without mean reduction; log gradient norm vs depth L."""

from sigprop import plotting, store
from sigprop.checks.gradients_depth import CURVES, palette, tidy
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = tidy(store.load_frame(snakemake.input.sweep), "fig_c10")
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure()
plotting.mean_ci(
    ax,
    table,
    x="depth",
    y="log_grad",
    hue=CURVES["fig_c10"][0],
    palette=palette("fig_c10"),
    marker="o",
)
ax.set(xlabel=r"depth $L$", ylabel=r"$\log \|\nabla_{W_0} \mathcal{L}\|_F$ (fc$_0$)")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
