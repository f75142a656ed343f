"""DJB21 Fig. 2b (Thesis Fig. 2.2b): layer-averaged gap V vs width d, log-log, two protocols.

{{ snakemake.config["scale"] | capitalize }} scale. The orthogonality gap averaged per run over two
windows, against width d, log-log, n = {{ snakemake.params.chain["batch_size"] }}; mean and 95% CI
over {{ snakemake.params.chain["n_runs"] }} runs; W_l H_l sampled by the
{{ snakemake.params.chain["product"] }} product. Thesis protocol: layers
{{ snakemake.params.window }} (after the transient). Paper protocol: layers
{{ snakemake.params.paper_window }} (transient included; the paper prints slope -0.46). Dashed: a
d^{-1/2} guide through the widest thesis point. The authors' code divides the plotted values by 20
(a bug); we reproduce the slopes, not that intercept.
"""

import numpy as np
import pandas as pd

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
windows = {"thesis": params.window, "paper": params.paper_window}
gaps = store.load_frame(snakemake.input.gaps)  # width, run, layer, gap
table = pd.concat(  # one layer average per (protocol, width, run)
    gaps.query("@first <= layer <= @last")
    .groupby(["width", "run"], as_index=False)["gap"]
    .mean()
    .rename(columns={"gap": "mean_gap"})
    .assign(protocol=protocol, first=first, last=last)
    for protocol, (first, last) in windows.items()
)
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure()
curves = table.assign(
    average=table["protocol"]
    + ": layers "
    + table["first"].astype(str)
    + ".."
    + table["last"].astype(str)
)
plotting.mean_ci(ax, curves, x="width", y="mean_gap", hue="average", marker="o")
widths = np.sort(table["width"].unique()).astype(float)
anchor = table.query("protocol == 'thesis' and width == @widths[-1]")["mean_gap"].mean()
ax.plot(widths, anchor * np.sqrt(widths[-1] / widths), "k--", lw=1, label=r"$\propto d^{-1/2}$")
plotting.width_axis(ax, widths)
ax.set(yscale="log", ylabel=r"$\bar V$: mean of $V(H_\ell)$ over the window")
ax.legend()
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
