"""Thesis Fig. 6.5: log||grad W_1|| vs depth, identity / sin / tanh, without and with gain.

{% set sim = snakemake.config["gradients"]["gain_depth"] %}ICLR 2024 Fig. 5;
{{ snakemake.config["scale"] }} scale. Log of the Frobenius norm of the gradient of ``fc_1`` (the
first hidden d x d layer) at initialization against depth L, for identity, sin and tanh, without
gain (left) and with the gain schedule alpha_l = (l + 1)^-gamma, gamma = {{ sim["exponents"][-1] }}
(right), Eq. (6.11). Orthogonal weights, PyTorch BatchNorm1d (training mode) before the activation,
biases, d = n = {{ sim["width"] }}, one {{ snakemake.config["gradients"]["data"]["dataset"] }}
training batch; mean and 95% CI over {{ sim["runs"] }} runs (float64).
"""

from sigprop.base import store
from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import plotting

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
