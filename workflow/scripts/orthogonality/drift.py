"""One-step drift (DJB21 Thm. 5, Lemma 8; Thesis Thm. A.2): E[V_hat(H_l+1) | H_l] vs V_hat(H_l).

DJB21 Eq. (11), Thm. 5, Lemma 8; Thesis Eq. (A.5), Thm. A.2, Lemma A.5;
{{ snakemake.config["scale"] }} scale. The Lyapunov function is V_hat(H) = 1/n - sigma_n(H)^2. For
fixed states H_l, given by their spectra ({{ snakemake.params.n_states }} Dirichlet spectra, blue
dots, and {{ snakemake.params.n_degenerate }} near-degenerate ones with sigma_n^2 in 1e-12..1e-4,
blue squares, per panel), the Monte-Carlo mean of V_hat(H_l+1) over {{ snakemake.params.n_draws }}
draws of one BN layer (rotated frame of App. C, exact in law) with its 95% CI, against V_hat(H_l);
one panel per (n, d) in {{ snakemake.params.cases }}. Red: the Theorem 5 bound (1 - 2/3 sigma_n^2)
V_hat + 1/sqrt(d); dashed: the Lemma 8 contraction (1 - 2/3 sigma_n^2) V_hat without the 1/sqrt(d)
slack; open circles: the exact 1/n - p_n(sigma) of Lemma 8 (Sawa quadrature); dotted: no change. The
data are the Monte Carlo rows of the cached measurement of the ``theorem5`` check (its own verdicts:
``results/claims/orthogonality/theorem5.json``).
"""

import numpy as np

from sigprop.papers.orthogonality.drift_spec import drift_contraction
from sigprop.pipeline.jobs import log_to_file, read_table
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
measured = read_table(snakemake.input.table, measured=True)  # theorem5's cached measurement
mc = measured.query("part == 'mc'").astype({"n": int, "d": int})  # its Monte Carlo rows
columns = ["n", "d", "family", "state", "vhat", "mc_mean", "mc_se", "contraction", "sum_p2", "rhs"]
table = mc[columns].assign(low=mc.mc_mean - 1.96 * mc.mc_se, high=mc.mc_mean + 1.96 * mc.mc_se)
table.to_csv(snakemake.output.csv, index=False)

cases = list(table[["n", "d"]].drop_duplicates().itertuples(index=False))
fig, axes = plotting.figure(ncols=len(cases), squeeze=False)
for ax, (n, d) in zip(axes[0], cases, strict=True):
    part = table.query("n == @n and d == @d")
    v = np.linspace(0.0, 1.0 / n, 200)
    ax.plot(v, v, ":", color="grey", lw=1, label=r"$y = \widehat V(H_\ell)$")
    contraction = drift_contraction(v, n) * v
    ax.plot(v, contraction + 1 / np.sqrt(d), "r-", lw=1.2, label="Thm. 5 bound")
    ax.plot(v, contraction, "k--", lw=1, label="Lemma 8 contraction")
    ax.plot(part.vhat, part.contraction, "o", mfc="none", color="k", ms=5, label=r"$1/n - p_n$")
    for family, marker in (("dirichlet", "o"), ("near_degenerate", "s")):
        f = part[part.family == family]
        err = 1.96 * f.mc_se.to_numpy()
        label = f"MC mean, {family.replace('_', '-')} (95% CI)"
        ax.errorbar(f.vhat, f.mc_mean, yerr=err, fmt=marker, ms=3.5, color="C0", label=label)
    ax.set(title=f"n = {n}, d = {d}", xlabel=r"$\widehat V(H_\ell)$", xlim=(0, 1.02 / n))
axes[0][0].set_ylabel(r"$E[\widehat V(H_{\ell+1}) \mid H_\ell]$")
axes[0][-1].legend(fontsize=7, loc="upper left")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
