"""DJB21 Fig. 6 (paper App. F): layer-averaged L(Q) = ||M - K||_F vs width d, per activation."""

import numpy as np

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
main = list(params.main)
table = store.load_frame(snakemake.input.fluctuations)  # activation, width, run, mean_...
table.to_csv(snakemake.output.csv, index=False)  # one layer average per (activation, width, run)

names = {"sigmoid": "sigmoid (logistic)", "tanh_plus_one": 'tanh + 1 (code\'s "sigmoid")'}
table["activation"] = table["activation"].map(lambda a: names.get(a, a))
shown = [names.get(a, a) for a in main]
levels = list(dict.fromkeys(table["activation"]))
palette = dict(zip(levels, plotting.colors(len(levels)), strict=True))
fig, ax = plotting.figure(width=6.6, height=3.6)
for is_main, style in ((True, dict(marker="o")), (False, dict(marker="s", ls="--", ms=3))):
    part = table[table["activation"].isin(shown) == is_main]
    plotting.mean_ci(
        ax, part, x="width", y="mean_fluctuation", hue="activation", palette=palette, **style
    )
widths = np.sort(table["width"].unique()).astype(float)
anchor = table.query("width == @widths[-1]")["mean_fluctuation"].mean()
ax.plot(widths, anchor * np.sqrt(widths[-1] / widths), "k:", lw=1, label=r"$\propto d^{-1/2}$")
plotting.width_axis(ax, widths)
ax.set(yscale="log", ylabel=r"$\bar L$: mean of $\|M(Q_\ell) - K\|_F$ over layers")
ax.legend(fontsize="small", title="activation F", loc="center left", bbox_to_anchor=(1.02, 0.5))
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
