"""DJB21 Lemma 2, Cor. 3 (Thesis 2.2, 2.3): W2^2 to the Gaussian vs depth, sandwich, bounds.

DJB21 Eq. (4), (5); {{ snakemake.config["scale"] }} scale. The squared Wasserstein-2 distance
between law(W_l H_l) and law(G / sqrt n) against the layer l, one panel per n and d =
{{ snakemake.params.widths }}. The distance itself has no estimator in d n dimensions; we draw its
computable sandwich (our derivation): the Gelbrich lower bound sum_i (sqrt(lambda_i(E C)) - 1/sqrt
n)^2 from the mean Gram matrix (estimated as (1/n - c) I + c 1 1^T with c the mean off-diagonal
entry, exact for the exchangeable input), and the upper bound E sum_i (sigma_i(H_l) - 1/sqrt n)^2,
the mean of the exact conditional W2^2 given H_l (Bures formula). Above them n E[V^2] and 2 n E[V]
(Lemma 2), and the Cor. 3 right-hand side 4 n (1 - 2 alpha/3)^l + 6 n^2 / (alpha sqrt d) with alpha
= alpha_hat(l) (dashed) and alpha_hat(l)^2 (dotted). Grey: 2 - 2/sqrt(n), the largest conditional
W2^2 (rank-one H). Means over {{ snakemake.params.chain["n_runs"] }} runs of the chain of ``thm1``.
The claims also read the chain at d = {{ snakemake.params.wide["widths"] }} (not drawn; the CSV's
``part`` = wide), as ``thm1`` does.
"""

import pandas as pd

from sigprop.base import store
from sigprop.papers.orthogonality.gaussian_tables import w2_depth_table
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
parts = {"grid": snakemake.input.chain, "wide": snakemake.input.wide}
table = pd.concat(  # per (n, d, layer): sandwich and bounds; the claims read both parts
    w2_depth_table(store.load_frame(path), part) for part, path in parts.items()
).reset_index(drop=True)
table.to_csv(snakemake.output.csv, index=False)
table = table.query("part == 'grid'")  # drawn: the grid's widths

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
