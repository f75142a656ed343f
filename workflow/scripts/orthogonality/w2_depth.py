"""DJB21 Lemma 2, Cor. 3 (Thesis 2.2, 2.3): W2^2 to the Gaussian vs depth, sandwich, bounds."""

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file
from sigprop.papers.orthogonality.gaussian_tables import w2_depth_table

log_to_file(snakemake.log[0])
params = item_params(snakemake)
frame = store.load_frame(snakemake.input.chain)
table = w2_depth_table(frame)
table.to_csv(snakemake.output.csv, index=False)  # per (n, d, layer): sandwich and bounds

LINES = {  # column: (label, style)
    "lower": ("Gelbrich lower bound", dict(color="C2")),
    "upper": ("E cond. $W_2^2$ (upper bound)", dict(color="C0", lw=2)),
    "n_mean_gap_sq": (r"$n\,E V^2$", dict(color="C1", ls="-.")),
    "two_n_mean_gap": (r"$2n\,E V$ (Lemma 2)", dict(color="C3")),
    "cor3_literal": (r"Cor. 3, $\alpha=\hat\alpha$", dict(color="k", ls="--")),
    "cor3_rigorous": (r"Cor. 3, $\alpha=\hat\alpha^2$", dict(color="k", ls=":")),
}
ns, widths = sorted(table["batch_size"].unique()), params.widths
fig, axes = plotting.figure(ncols=len(ns), nrows=len(widths), width=3.2, height=2.6, squeeze=False)
for row, d in enumerate(widths):
    for col, n in enumerate(ns):
        ax, part = axes[row][col], table.query("batch_size == @n and width == @d")
        for column, (label, style) in LINES.items():
            ax.plot(part["layer"], part[column], label=label, **style)
        ax.axhline(part["vacuous_level"].iloc[0], color="grey", lw=0.8, label="max cond. $W_2^2$")
        ax.set(yscale="log", title=f"n = {n}, d = {d}", xlabel=r"layer $\ell$", ylabel="$W_2^2$")
handles, labels = axes[0][0].get_legend_handles_labels()
fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
