"""DJB21 Thm. 1 (Thesis Thm. 2.1): E V(H_l) vs layer with both bounds; plateau vs width and n.

DJB21 Eq. (3), Thesis Eq. (2.3); {{ snakemake.config["scale"] }} scale. Left panels: the
orthogonality gap E V(H_l) of the BN chain Eq. (1) against the layer l, log y, for n =
{{ snakemake.params.chain["batch_sizes"] }} and d = {{ snakemake.params.widths }}; mean and 95% CI
over {{ snakemake.params.chain["n_runs"] }} runs. H_0 is Gaussian with i.i.d. rows N(0, (1 - rho) I
+ rho 1 1^T), rho = {{ snakemake.params.chain["correlation"] }}, scaled to unit Frobenius norm (with
rho = 0 the gap starts at its plateau level and there is no decay to see); W_l H_l is sampled
through its Gram matrix (exact in law). Dashed: the bound 2 (1 - 2 alpha/3)^l + 3 n / (alpha sqrt d)
at layer l + 1 with the literal alpha = alpha_hat(l), the minimum over runs and 1 <= k <= l of
sigma_n(H_k) (Assumption A_1); dotted: the rigorous reading alpha = alpha_hat^2 (the proof needs
sigma_n^2 >= alpha). Grey: sqrt((n - 1)/n), the largest possible gap; a bound above it is vacuous.
Black: the same chain at d = {{ snakemake.params.wide["widths"] }} for n =
{{ snakemake.params.wide["batch_sizes"] }} ({{ snakemake.params.wide["n_runs"] }} runs), where the
bound falls below that level and the bound claims can fail; dotted black: its rigorous bound.
Right panel: the plateau, V averaged over layers {{ snakemake.params.plateau_window }}, against d
for each n (error bars 3 SE), with a d^{-1/2} guide.
"""

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from sigprop.base import store
from sigprop.papers.orthogonality.gaussian_tables import thm1_table
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
p = item_params(snakemake)
parts = {"grid": snakemake.input.chain, "wide": snakemake.input.wide}
table = pd.concat(  # per (n, d, layer): mean, CI, alpha_hat, bounds; the bound claims read both
    thm1_table(store.load_frame(path), p.decay_window, p.plateau_window, part)
    for part, path in parts.items()
).reset_index(drop=True)
table.to_csv(snakemake.output.csv, index=False)
wide = table.query("part == 'wide' and layer >= 1")
table = table.query("part == 'grid'")

ns = sorted(table["batch_size"].unique())
fig, axes = plotting.figure(ncols=len(ns) + 1, width=3.4, height=3.2)
for ax, n in zip(axes, ns, strict=False):
    for i, d in enumerate(p.widths):
        part = table.query("batch_size == @n and width == @d")
        color = f"C{i}"
        ax.plot(part["layer"], part["mean_gap"], color=color, label=f"d={d}")
        ax.fill_between(part["layer"], part["low_gap"], part["high_gap"], color=color, alpha=0.3)
        ax.plot(part["layer"], part["bound_literal"], color=color, ls="--", lw=0.9)
        ax.plot(part["layer"], part["bound_rigorous"], color=color, ls=":", lw=0.9)
    ax.axhline(np.sqrt((n - 1) / n), color="grey", lw=0.8)
    ax.set(yscale="log", title=f"n = {n}", xlabel=r"layer $\ell$", ylabel=r"$E\,V(H_\ell)$")
    for j, (_, part) in enumerate(wide.query("batch_size == @n").groupby("width")):
        ax.plot(part["layer"], part["mean_gap"], color="k", lw=0.8, alpha=min(1.0, 0.4 + 0.3 * j))
        ax.plot(part["layer"], part["bound_rigorous"], color="k", ls=":", lw=0.8)
    ax.set_ylim(top=min(ax.get_ylim()[1], 1e3))  # larger bound values: see the CSV
handles = [Line2D([], [], color=f"C{i}", label=f"d={d}") for i, d in enumerate(p.widths)] + [
    Line2D([], [], color="k", label=r"$E\,V$ (95% CI)"),
    Line2D([], [], color="k", ls="--", label=r"Eq. (3), $\alpha=\hat\alpha$"),
    Line2D([], [], color="k", ls=":", label=r"Eq. (3), $\alpha=\hat\alpha^2$"),
    Line2D([], [], color="grey", label=r"$\sqrt{(n-1)/n}$ (vacuous above)"),
    Line2D([], [], color="k", lw=0.8, alpha=0.6, label="wide d (bound claims)"),
]
fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8)
plateau = table.drop_duplicates(["batch_size", "width"])
for i, n in enumerate(ns):
    part = plateau.query("batch_size == @n")
    axes[-1].errorbar(part["width"], part["plateau_gap"], 3 * part["plateau_gap_se"], marker="o",
                      color=f"C{i}", label=f"n={n}")  # fmt: skip
widths = np.sort(plateau["width"].unique()).astype(float)
anchor = plateau.query("batch_size == @ns[0] and width == @widths[-1]")["plateau_gap"].iloc[0]
axes[-1].plot(widths, anchor * np.sqrt(widths[-1] / widths), "k--", lw=1, label=r"$d^{-1/2}$")
plotting.width_axis(axes[-1], widths)
first, last = p.plateau_window
axes[-1].set(yscale="log", ylabel=rf"plateau: mean $V$, $\ell$ = {first}..{last}")
axes[-1].legend(fontsize=7)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
