"""DJB21 Fig. 5 (App. F): V per layer, BN vs vanilla, (a) ReLU MLP, (b) ConvNet; mean +- SD."""

import numpy as np

from sigprop import plotting, store
from sigprop.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
setup = params.setup
n = setup["batch_size"]
table = store.load_frame(snakemake.input.gaps)  # architecture, norm, batch, layer, gap
table.insert(1, "network", table.pop("norm").map({"batch_norm": "BN", "none": "vanilla"}))
table.to_csv(snakemake.output.csv, index=False)

titles = {
    "mlp": f"(a) MLP, width {setup['width']}",
    "convnet": f"(b) ConvNet, {setup['channels']} ch.",
}
fig, axes = plotting.figure(ncols=len(setup["architectures"]), squeeze=False)
for ax, arch in zip(axes[0], setup["architectures"], strict=True):
    rows = table[table["architecture"] == arch]
    plotting.mean_ci(
        ax, rows, x="layer", y="gap", hue="network", palette=plotting.PALETTE, band="sd"
    )
    for level, text in (
        (np.sqrt((n - 1) / n), "max"),
        (1 / np.sqrt(n * (n - 1)), "centred-BN floor"),
    ):
        ax.axhline(level, ls=":", c="black", lw=1)
        ax.annotate(
            text,
            (setup["depth"], level),
            xytext=(0, 2),
            textcoords="offset points",
            ha="right",
            fontsize=8,
        )
    ax.set(ylim=(0, 1.1), xlabel="layer (1 = input)", ylabel=r"$V(H_\ell)$", title=titles[arch])
    ax.legend(title=None, fontsize="small", loc="center right")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
