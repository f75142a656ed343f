"""Thesis Fig. 2.3: pass/fail map of assumption A_1 over (n, d).

{{ snakemake.config["scale"] | capitalize }} scale; not in the DJB21 paper. Pixel (n, d): black if
assumption A_1({{ snakemake.params.grid["threshold"] }} alpha_0,
{{ snakemake.params.grid["depth"] }}) failed in at least one of
{{ snakemake.params.grid["n_runs"] }} runs, light if it held in all, grey if d < n (not simulated:
DJB21 assumes d >= n). A run holds A_1 if sigma_n(H_k) >= {{ snakemake.params.grid["threshold"] }}
alpha_0 for k = 1..{{ snakemake.params.grid["depth"] }}, with H_0 i.i.d. N(0, 1) in R^{d x n},
alpha_0 = sigma_min(H_0) / ||H_0||_F (the unit-Frobenius scale of every H_k; on the raw H_0 every
pixel would fail), and the BN chain of DJB21 Eq. (1) with W_l H_l sampled through its Gram matrix
(exact in law), {{ snakemake.params.grid["dtype"] }}. Grid: n =
{{ snakemake.params.grid["batch_sizes"] }}, d = {{ snakemake.params.grid["widths"] }} (ours; the
thesis gives none). Blue: the printed curve d = (n - 28)^1.8 (real only for n > 28). Red dashed: our
fit d_min = c n^k of the boundary d_min(n) (smallest grid d from which every larger d passes) over
the n whose boundary lies inside the grid, fewest {{ snakemake.params.min_fit_points }} points.
Green dotted: d = {{ snakemake.params.n2_constant }} n^2.
"""

import numpy as np
from matplotlib.colors import ListedColormap

from sigprop.base import store
from sigprop.papers.orthogonality.assumption_tables import (
    boundary,
    fit_boundary,
    pixel_table,
    printed_curve,
)
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting


def edges(centers, log=False):
    """Cell edges halfway between grid values (geometric midpoints on a log axis)."""
    c = np.log(centers) if log else np.asarray(centers, float)
    mid = (c[1:] + c[:-1]) / 2
    e = np.concatenate([[c[0] - (mid[0] - c[0])], mid, [c[-1] + (c[-1] - mid[-1])]])
    return np.exp(e) if log else e


log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = pixel_table(store.load_frame(snakemake.input.grid))
table.to_csv(snakemake.output.csv, index=False)

ns, ds = np.sort(table["n"].unique()), np.sort(table["d"].unique())
state = table.pivot(index="d", columns="n", values="passed").astype(float)
state[~table.pivot(index="d", columns="n", values="valid")] = 2.0  # 0 fail, 1 pass, 2 invalid
n_edges, d_edges = edges(ns), edges(ds, log=True)
fig, ax = plotting.figure(width=4.6, height=3.8)
cmap = ListedColormap(["black", "#ffe680", "#b0b0b0"])
ax.pcolormesh(n_edges, d_edges, state.loc[ds, ns].to_numpy(), cmap=cmap, vmin=-0.5, vmax=2.5)
curve_n = np.linspace(n_edges[0], n_edges[-1], 400)
ax.plot(curve_n, printed_curve(curve_n), color="tab:blue", lw=2, label=r"printed $(n-28)^{1.8}$")
fit = fit_boundary(boundary(table), params.min_fit_points)
if np.isfinite(fit["k"]):
    label = rf"fit ${fit['c']:.2g}\,n^{{{fit['k']:.2f}}}$"
    ax.plot(curve_n, fit["c"] * curve_n ** fit["k"], "--", color="tab:red", lw=1.5, label=label)
c2 = params.n2_constant
n2_label = r"$d = n^2$" if c2 == 1 else rf"$d = {c2:g}\,n^2$"
ax.plot(curve_n, c2 * curve_n**2, ":", color="tab:green", lw=1.5, label=n2_label)
ax.set(yscale="log", xlim=n_edges[[0, -1]], ylim=d_edges[[0, -1]], xticks=ns, yticks=ds)
ax.set_yticklabels([f"{d:.0f}" for d in ds])
ax.minorticks_off()
ax.grid(False)
ax.set(xlabel=r"batch size $n$", ylabel=r"width $d$")
ax.legend(loc="upper left", fontsize="small", framealpha=0.9)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
