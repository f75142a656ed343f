"""DJB21 Table 1 (Thesis Table 2.1): distribution of representations, BN row measured.

{{ snakemake.config["scale"] | capitalize }} scale. The vanilla rows are the paper's literature
comparison (Matthews et al. 2018; Garriga-Alonso et al. 2019), reproduced as static text. The BN row
(Cor. 3, linear activations) adds our measurement from ``w2_width``: the exponent beta of the
plateau W2 upper bound c d^beta at n = {{ snakemake.params.batch_size }}, with its bootstrap SE. A
Markdown copy is ``results/orthogonality/table1.md``.
"""

from sigprop.base import store
from sigprop.base.store import atomic_path
from sigprop.papers.orthogonality.gaussian_tables import table1, w2_width_table
from sigprop.pipeline.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
plateau = w2_width_table(store.load_frame(snakemake.input.chain), tuple(params.window))
table = table1(plateau, params.batch_size)  # the plateau radii of figure w2_width
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
columns = ["network", "width", "depth", "distribution", "source"]
lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
lines += ["| " + " | ".join(str(r[c]) for c in columns) + " |" for _, r in table.iterrows()]
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text("DJB21 Table 1 (Thesis Table 2.1)\n\n" + "\n".join(lines) + "\n")
