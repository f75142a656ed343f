"""DJB21 Fig. 5 (App. F): V per layer, BN vs vanilla, (a) ReLU MLP, (b) ConvNet; mean +- SD.

{% set setup = snakemake.params.setup %}Paper App. F only; {{ snakemake.config["scale"] }} scale.
Orthogonality gap V (DJB21 Eq. (2), on per-sample flattened features) at the input of each of
{{ setup["depth"] }} blocks (layer 1 = the raw input) of random, untrained ReLU networks, with torch
BatchNorm (training mode: centred, eps 1e-5) or without (vanilla): (a) MLP of width
{{ setup["width"] }}, (b) ConvNet with {{ setup["channels"] }} channels, kernel
{{ setup["kernel_size"] }}, {{ setup["padding_mode"] }} padding (the authors' code; the caption says
zero). Blocks are ReLU -> Linear/Conv (no bias) -> BN or identity, Xavier-normal init (gain sqrt 2
for the MLP, 1 for the ConvNet) as in the authors' code. Data: {{ setup["n_batches"] }} random
batches of n = {{ setup["batch_size"] }} training images of ``{{ setup["dataset"] }}`` (the paper
uses CIFAR-10; quick scale substitutes Fashion-MNIST), normalized with the MNIST constants
({{ setup["normalize_mean"] }}, {{ setup["normalize_std"] }}) of the code; {{
"a fresh random network per batch" if setup["init_per_batch"] else
"one random network for all batches, as in the code" }}, BN and vanilla sharing weights and images.
Mean +- 1 SD over batches, as the paper. Dotted: the maximum sqrt((n-1)/n) and the floor
1/sqrt(n(n-1)) of feature-wise centred representations (binding for the MLP's BatchNorm1d only).
"""

import numpy as np

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

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
