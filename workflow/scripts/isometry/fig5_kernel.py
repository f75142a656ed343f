"""Thesis Figs. 5.1 and 5.2: per activation, phi / C, the kernel map with the cobweb of
rho_l = kappa(rho_{l-1}) from rho_0 (red dot) to rho* (star), and |rho_l - rho*| with its bound.
The CSV holds every plotted number: iterations and curves, told apart by ``panel``."""

import numpy as np

from sigprop import plotting
from sigprop.jobs import item_params, log_to_file
from sigprop.papers.isometry.kernel_convergence_tables import (
    kernel_convergence,
    kernel_curves,
    plotted_numbers,
)
from sigprop.store import atomic_path

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = kernel_convergence(
    list(params.subjects), list(params.rho0), params.layers, params.order, params.case_tolerance
)
curves = kernel_curves(list(params.subjects), params.n_points)
with atomic_path(snakemake.output.csv) as tmp:
    plotted_numbers(table, curves).to_csv(tmp, index=False)

fig, axes = plotting.figure(
    ncols=3, nrows=len(params.subjects), width=3.6, height=2.8, squeeze=False
)
for row, name in zip(axes, params.subjects, strict=True):
    run = table[table["activation"] == name]
    first = run.iloc[0]
    case, trunc = int(first.case), int(first.case_truncated)
    label = f"case {case}" + (
        f" (order-{params.order} series: case {trunc})" if trunc != case else ""
    )
    act = curves.query("activation == @name and panel == 'activation'")
    row[0].plot(act.x, act.y, color="C0")
    row[0].set(xlabel="$x$", ylabel=r"$\phi(x)/C$", title=f"{name}: {label}")
    ker = curves.query("activation == @name and panel == 'kernel'")
    row[1].plot(ker.x, ker.y, color="C0", label=r"$\kappa(\rho)$")
    row[1].plot([-1, 1], [-1, 1], "k--", lw=0.8, label="identity")
    r = run["rho"].to_numpy()
    row[1].plot(
        np.repeat(r, 2)[:-1], np.concatenate([[r[0]], np.repeat(r[1:], 2)]), color="C1", lw=0.8
    )
    row[1].plot(r[0], r[0], "o", color="red", zorder=5, label=rf"$\rho_0={r[0]:+.2f}$")
    row[1].plot(
        first.rho_star,
        first.rho_star,
        "*",
        ms=12,
        color="gold",
        mec="k",
        clip_on=False,
        zorder=5,
        label=rf"$\rho^*={first.rho_star:.2f}$",
    )
    row[1].set(
        xlabel=r"$\rho$", ylabel=r"$\kappa(\rho)$", xlim=(-1, 1), ylim=(-1, 1), aspect="equal"
    )
    row[1].legend(fontsize=7, loc="upper left")
    row[2].plot(run.layer, run.distance, "o-", ms=3, color="C0", label="empirical")
    row[2].plot(run.layer, run.bound, "--", color="C3", label=f"theory upper bound (case {case})")
    positive = run.distance[run.distance > 0]
    if len(positive) and run.bound.max() / positive.min() > 20:  # log y where it helps
        row[2].set_yscale("log")
    row[2].set(xlabel=r"layer $\ell$", ylabel=r"$|\rho_\ell-\rho^*|$")
    row[2].legend(fontsize=7)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
