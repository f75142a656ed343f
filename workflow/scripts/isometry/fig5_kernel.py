r"""Thesis Figs. 5.1 and 5.2: per activation, phi / C, the kernel map with the cobweb of rho_l =
kappa(rho_{l-1}) from rho_0 (red dot) to rho* (star), and \|rho_l - rho*\| with its bound.

{% set subjects = snakemake.params.subjects %}{{ snakemake.params.source }}
({{ snakemake.config["scale"] }} scale): one row per activation ({{ subjects | join(", ") }}), from
rho_0 = {{ snakemake.params.rho0 | join(", ") }}. Left: phi / C on [-3, 3]. Middle: the kernel map
kappa on [-1, 1] with the identity (dashed) and the cobweb of rho_l = kappa(rho_{l-1}) (Eq. (5.4))
from rho_0 (red dot) to the attracting fixed point rho* (star). Right: \|rho_l - rho*\| for
{{ snakemake.params.layers }} layers (log y where it spans more than two decades) and the upper
bound of the row's case of Thm. 5.11 with the corrected rates (Thm. 5.8, Eq. (5.6)). Plotted
numbers: ``results/isometry/{{ snakemake.wildcards.item }}.csv`` (iterations and curves, told apart
by its ``panel`` column).

{% if "case1" in subjects %}The rows are the thesis's custom activations, one per case of Thm. 5.11
(the printed caption of Fig. 5.1 says Thm. 5.8): normalized Hermite series phi = c_0 he_0 + c_1 he_1
+ c_2 he_2 recovered from the authors' figure titles, case 1 (0, 0.4, sqrt 0.84), case 2 (0.8, -0.2,
0.4 sqrt 2), case 3 (1, 0, 1) / sqrt 2, case 4 (sqrt 0.168, 0.4, sqrt 0.672), so kappa(rho) = c_0^2
+ c_1^2 rho + c_2^2 rho^2 exactly. Bounds: case 1 Cor. 5.10 with alpha = 1 / (2 - kappa'(0)), case 2
Eq. (5.8), case 3 Eq. (5.9) with alpha = 1 - kappa(0) - kappa'(0), case 4 Eq. (5.10) with
denominator 2 - kappa'(rho*). For these degree-2 polynomials the printed case-1 rate 1 / kappa'(1)
coincides with the corrected one. {% else %}Each activation is scaled by 1 / C, C = sqrt(E phi^2)
(stability condition); GELU is its tanh approximation; kappa is exact (closed forms for ReLU and
exp, 2-D quadrature otherwise). {%- if "relu" in subjects %} ReLU is case 3 exactly: kappa'(1) = E
phi'^2 / E phi^2 = 1 for any positively homogeneous phi, so its bound is Eq. (5.9), polynomial in l;
the thesis labels it case 2 because the Hermite series truncated at order
{{ snakemake.params.order }} and renormalized (authors' code) gives kappa'(1) = 0.9487 (the row
title shows both).{% endif %} {%- if "exp" in subjects %} Exp is also case 3 (the only
polynomial-rate row of the thesis).{% endif %}{% endif %}
"""

import numpy as np

from sigprop.base.store import atomic_path
from sigprop.papers.isometry.kernel_convergence_tables import (
    kernel_convergence,
    kernel_curves,
    plotted_numbers,
)
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

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
