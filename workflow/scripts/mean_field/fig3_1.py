"""Thesis Fig. 3.1: ||G_l - G_ref||_F vs layer at the widest d, with and without BN.

Sec. 3.3.3; {{ snakemake.config["scale"] }} scale. ||G_l - G_ref||_F against layer l for the chain
h_{l+1} = W_l phi(BN(h_l)) (Eq. (3.1), centred BN, Gram Eq. (3.2)), n =
{{ snakemake.params.fig["batch_size"] }}, the widest simulated width d =
{{ snakemake.config["mean_field"]["gram_chain"]["widths"] | max }}; mean and
{{ (100 * snakemake.params.fig["band"]) | round | int }}% Student-t CI over
{{ snakemake.config["mean_field"]["gram_chain"]["n_runs"] }} runs. With BN (solid, one line per
activation): G_ref = G_* (sphere average; n/(n-1) M for linear phi). Without BN (dashed, linear phi,
no normalization): G_ref = G_0, the mean-field prediction of the linear chain at every layer (our
choice; the thesis does not say which reference it used). Input rows i.i.d. N(0, C), C_ij =
{{ snakemake.config["mean_field"]["gram_chain"]["input_correlation"] }}^|i-j|; W_l A sampled through
its Gram (exact in law).
"""

from sigprop.base import store
from sigprop.papers.mean_field.gram_tables import band
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
fig_cfg = params.fig
frame = store.load_frame(snakemake.input.chain)
width = frame["width"].max()
table = frame.query("batch_size == @fig_cfg['batch_size'] and width == @width")
table = table[["network", "run", "layer", "distance"]]
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure(width=4.6)
summary = band(table, "layer", "distance", "network", fig_cfg["band"]).query("mean > 0")
for net, part in summary.groupby("network", sort=False):
    style = "--" if net.startswith("no_bn") else "-"
    (line,) = ax.plot(part["layer"], part["mean"], style, label=net)
    ax.fill_between(part["layer"], part["low"], part["high"], color=line.get_color(), alpha=0.2)
ax.set(yscale="log", xlabel=r"layer $\ell$", ylabel=r"$\|G_\ell - G_{ref}\|_F$")
ax.set_title(f"n = {fig_cfg['batch_size']}, d = {width}", fontsize=9)
ax.legend(fontsize=7)
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
