"""Thesis Figs. 6.6, C.3, C.4 (app. C.6): per layer, the isometry gap of the weights (log y) and the
Frobenius norm of the loss gradient on the fixed probe batch, one line per epoch.

Fig. 6.6: the deepest shaped-tanh net, (a) gap and (b) gradient norms; Fig. C.3: the gaps, one row
per depth, one column per activation; Fig. C.4: the same for the gradient norms.

{% set setup = snakemake.params.setup %}{% set train = snakemake.params.training %}
{{ snakemake.params.source }} ({{ snakemake.config["scale"] }} scale): the isometry gap of W_l W_l^T
is 0 for orthogonal W (round-off clipped at 1e-16 on the log scale); the x axis is the layer l (fc_0
.. fc_L); one line per epoch (0 = at initialization), on a fixed batch of {{ train["probe_size"] }}
training samples (batch statistics). Depths {{ setup["depths"] }} (paper: 100, 500, 1000),
{{ setup["dataset"] }} ({{ setup["train_size"] or "all" }} training samples{{ "; " ~
setup["dataset"] ~ " stands in for cifar10" ~ (", not reachable on the quick machine" if
snakemake.config["scale"] == "quick" else "") if setup["dataset"] != "cifar10" else "" }}),
{{ setup["epochs"] }} epochs of vanilla SGD, lr {{ train["lr"] }}, width {{ train["width"] }}, batch
{{ train["batch_size"] }}, {{ train["norm"] }}, orthogonal init, gain exponent
{{ train["gain_exponent"] }} (never stated in the thesis; Fig. 6.5's value, our presumption); mean
over {{ train["n_runs"] }} run(s), {{ train["dtype"] }}.
"""

from sigprop.base import store
from sigprop.papers.gradients.training_spec import ORTHOGONALITY_NETWORK
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
figure = item_params(snakemake).figure
table = store.load_frame(snakemake.input.curves)  # network, depth, run, layer, point, curves
table = table[table["layer"] <= table["depth"]]  # layers fc_0 .. fc_L of each depth
table.to_csv(snakemake.output.csv, index=False)

LABELS = {
    "weight_isometry_gap": r"isometry gap of $W_\ell W_\ell^\top$",
    "gradient_norm": r"$\|\nabla_{W_\ell}\mathcal{L}\|_F$",
}


def panel(ax, part, metric):
    epochs = sorted(part["epoch"].unique())
    colors = plotting.colors(len(epochs), "viridis")
    for color, epoch in zip(colors, epochs, strict=True):
        rows = part[part["epoch"] == epoch].groupby("layer")[metric].mean()
        # an exactly orthogonal W has gap 0 (or round-off): clip to show it on the log scale
        values = rows.clip(lower=1e-16) if metric == "weight_isometry_gap" else rows
        ax.plot(rows.index, values, color=color, lw=1, label=f"epoch {epoch:g}")
    ax.set(xlabel=r"layer $\ell$", ylabel=LABELS[metric], yscale="log")


if figure == "fig6_6":
    deepest = table[(table["network"] == ORTHOGONALITY_NETWORK)
                    & (table["depth"] == table["depth"].max())]  # fmt: skip
    fig, axes = plotting.figure(ncols=2)
    for ax, metric, tag in zip(axes, LABELS, "ab", strict=True):
        panel(ax, deepest, metric)
        ax.set_title(f"({tag}) tanh, depth {int(deepest['depth'].max())}")
    axes[1].legend(fontsize="x-small")
else:
    metric = "weight_isometry_gap" if figure == "fig_c3" else "gradient_norm"
    depths, networks = sorted(table["depth"].unique()), list(dict.fromkeys(table["network"]))
    fig, axes = plotting.figure(ncols=len(networks), nrows=len(depths), squeeze=False)
    for row, depth in zip(axes, depths, strict=True):
        for ax, network in zip(row, networks, strict=True):
            part = table[(table["depth"] == depth) & (table["network"] == network)]
            panel(ax, part, metric)
            ax.set_title(f"{network}, depth {depth}")
    axes[0][-1].legend(fontsize="x-small")
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
