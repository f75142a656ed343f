"""DJB21 Fig. 6 (paper App. F): layer-averaged L(Q) = ||M - K||_F vs width d, per activation.

Conjecture F.1; {{ snakemake.config["scale"] }} scale. Non-linear BN chain Q_{l+1} = BN(W_l F(Q_l))
with unit-norm rows as in the authors' code, n = {{ snakemake.params.chain["batch_size"] }}, Q_0 =
randn(d, n), W_l ~ N(0, 1) sampled by the {{ snakemake.params.chain["product"] }} product. Per run,
K is the time average of M = Q^T Q / d over {{ snakemake.params.chain["reference_depth"] }} layers
of an independent chain, and L-bar the mean of L(Q_l) = ||M(Q_l) - K||_F (Eq. (19)) over layers
1..{{ snakemake.params.chain["depth"] }} of a fresh chain (no burn-in, as in the code). Log-log
axes; mean and 95% CI over {{ snakemake.params.chain["n_runs"] }} runs. Solid: the seed's four
curves {{ snakemake.params.main }}; "sigmoid" is the logistic. Dashed controls: linear (Thm. 1) and
tanh + 1, which is what the code calls "sigmoid". Dotted: a d^{-1/2} guide. Erratum: the code plots
one array (sin) for all four curves, hence the caption's "difference ... is negligible"; here each
curve is its own.
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

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
