"""Thesis Figs. 6.4, C.5-C.8: train (and test) accuracy over epochs of BN MLPs with shaped sin,
shaped tanh and identity (and, Fig. 6.4, the unshaped control), one column per depth.

{% set fig = snakemake.params.figure %}{% set setup = snakemake.params.setup %}
{%- set train = snakemake.params.training %} {%- set printed = {"fig6_4": "cifar10", "fig_c5":
"mnist", "fig_c6": "fashion_mnist", "fig_c7": "cifar100", "fig_c8": "cifar10"}[fig] %}
{{ snakemake.params.source }} ({{ snakemake.config["scale"] }} scale): {{ "training accuracy" if fig
== "fig6_4" else "train (top) and test (bottom) accuracy" }} over epochs of BN MLPs with shaped sin,
shaped tanh and identity activations {{- ", and the unshaped sin control (gain exponent 0)" if fig
== "fig6_4" else "" }}, one column per depth L {{ setup["depths"] }}, on {{ setup["dataset"] }}
({{ setup["train_size"] or "all" }} training and {{ setup["test_size"] or "all" }} test samples {{-
"; " ~ setup["dataset"] ~ " stands in for " ~ printed ~ (", not reachable on the quick machine" if
snakemake.config["scale"] == "quick" else "") if setup["dataset"] != printed else "" }}). Network
(Eq. (6.11)): orthogonal weights (the draw of ``bn_mlp``), {{ train["norm"] }} before the
activation, X_(l+1) = act(alpha_l BN(W_l X_l)) with alpha_l = (l + 1)^-gamma, gamma =
{{ train["gain_exponent"] }} for the shaped nets and identity (the thesis never states the gain
exponent of its training runs; this value is Fig. 6.5's, our presumption). Vanilla SGD, lr
{{ train["lr"] }}, width {{ train["width"] }}, batch {{ train["batch_size"] }},
{{ setup["epochs"] }} epochs; accuracy in eval mode after each epoch (train on
{{ train["eval_size"] or "all" }} training samples); mean and 95% CI over {{ train["n_runs"] }}
run(s), {{ train["dtype"] }}.
"""

from sigprop.base import store
from sigprop.papers.gradients.training_spec import CONTROL
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
figure = item_params(snakemake).figure
table = store.load_frame(snakemake.input.curves)  # network, depth, run, point, curves, epoch
if figure != "fig6_4":  # the unshaped control is Fig. 6.4's alone (Fig. C.8 shares its runs)
    table = table[table["network"] != CONTROL]
table.to_csv(snakemake.output.csv, index=False)

splits = ["train"] if figure == "fig6_4" else ["train", "test"]
depths = sorted(table["depth"].unique())
fig, axes = plotting.figure(ncols=len(depths), nrows=len(splits), squeeze=False, sharey=True)
for row, split in zip(axes, splits, strict=True):
    for ax, depth in zip(row, depths, strict=True):
        part = table[table["depth"] == depth]
        plotting.mean_ci(ax, part, x="epoch", y=f"{split}_accuracy", hue="network", marker="o")
        ax.set(
            xlabel="epoch", ylabel=f"{split} accuracy", title=f"depth $L$ = {depth}", ylim=(0, 1)
        )
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
