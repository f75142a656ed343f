"""DJB21 Table 1 (Thesis Table 2.1): distribution of representations, BN row measured."""

from sigprop import store
from sigprop.jobs import item_params, log_to_file
from sigprop.papers.orthogonality.gaussian_tables import table1, w2_width_table
from sigprop.store import atomic_path

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
