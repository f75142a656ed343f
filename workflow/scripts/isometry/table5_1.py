"""Thesis Table 5.1: Hermite polynomials He_k, he_k and their orthonormality."""

from sigprop.jobs import item_params, log_to_file
from sigprop.papers.isometry.hermite_tables import table5_1
from sigprop.store import atomic_path, markdown_table

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = table5_1(params.max_order, params.nodes)
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(markdown_table(table, ["k", "He_k", "he_k"], "Thesis Table 5.1"))
