"""DJB21 Fig. 2b (Thesis Fig. 2.2b): layer-averaged gap V vs width d, log-log."""

import numpy as np

from sigprop import plotting, store
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
first, last = snakemake.params.window
gaps = store.load_frame(snakemake.input.gaps)  # width, run, layer, gap
table = (
    gaps.query("@first <= layer <= @last")
    .groupby(["width", "run"], as_index=False)["gap"]
    .mean()
    .rename(columns={"gap": "mean_gap"})
)
table.to_csv(snakemake.output.csv, index=False)  # one layer average per (width, run)

fig, ax = plotting.figure()
plotting.mean_ci(ax, table, x="width", y="mean_gap", marker="o", label="simulation")
widths = np.sort(table["width"].unique()).astype(float)
anchor = table.query("width == @widths[-1]")["mean_gap"].mean()
ax.plot(widths, anchor * np.sqrt(widths[-1] / widths), "k--", lw=1, label=r"$\propto d^{-1/2}$")
plotting.width_axis(ax, widths)
ax.set(
    yscale="log",
    ylabel=rf"$\bar V$: mean of $V(H_\ell)$ over $\ell = {first}..{last}$",
)
ax.legend()
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
