"""Thesis Fig. 6.5: log||grad W_1|| vs depth, identity / sin / tanh, without and with gain."""

from sigprop import plotting, store
from sigprop.jobs import log_to_file

log_to_file(snakemake.log[0])
table = store.load_frame(snakemake.input.profile)  # exponent, activation, depth, run, log_grad
table["activation"] = table["activation"].replace({"linear": "identity"})
table.to_csv(snakemake.output.csv, index=False)

exponents = sorted(table["exponent"].unique())
fig, axes = plotting.figure(ncols=len(exponents), sharey=False)
for ax, gamma in zip(axes, exponents, strict=True):
    part = table[table["exponent"] == gamma]
    plotting.mean_ci(ax, part, x="depth", y="log_grad", hue="activation", marker="o")
    title = "Without gain" if gamma == 0 else rf"With gain $\alpha_\ell=(\ell+1)^{{-{gamma}}}$"
    ax.set(
        xscale="log", xlabel="depth $L$", ylabel=r"$\log\|\nabla_{W_1}\mathcal{L}\|_F$", title=title
    )
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
