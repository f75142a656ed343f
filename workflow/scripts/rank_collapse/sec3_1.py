"""Dan+20 (seed 002) Sec. 3.1: rank / N of H_l vs layer, N = round(sqrt d) vs N = d.

{% set setup = snakemake.params.setup %}"Necessary assumptions", {{ snakemake.config["scale"] }}
scale: "we observed that hidden representations remain full rank if H_0 is full-rank and N = O(sqrt
d)". Numerical rank (Dan+20 footnote 2) of H_l divided by the batch size N along the BN chain of Eq.
(1) (Eq. (2) BN, {{ setup["weight_law"] }} weights, {{ setup["dtype"] }}), from Gaussian inputs with
N = round(sqrt d) (the seed's statement) and N = d (the contrast: Thm. 2 and Cor. 15 promise only
Omega(sqrt d)), for widths {{ setup["widths"] }}, one panel per gamma; mean and 95% CI over
{{ setup["n_runs"] }} runs, every {{ setup["stride"] }}th layer up to {{ setup["depth"] }}.
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.ranks)  # gamma, batch, width, run, layer, rank_fraction
table.to_csv(snakemake.output.csv, index=False)
table["curve"] = [
    f"d = {w}, N = {n:.0f}" for w, n in zip(table["width"], table["batch_size"], strict=True)
]

gammas = sorted(table["gamma"].unique())
fig, axes = plotting.figure(ncols=len(gammas), sharey=True, squeeze=False)
for ax, gamma in zip(axes[0], gammas, strict=True):
    panel = table[table["gamma"] == gamma].sort_values(["batch", "width"])
    plotting.mean_ci(ax, panel, x="layer", y="rank_fraction", hue="curve", clip="auto")
    ax.legend(title="width d, batch N", fontsize="small", loc="center right")
    ax.set(
        ylim=(0, 1.05),
        xlabel=r"layer $\ell$",
        ylabel=r"numerical rank of $H_\ell$ / $N$",
        title=r"$\gamma = \infty$" if gamma == float("inf") else rf"$\gamma = {gamma:g}$",
    )
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
