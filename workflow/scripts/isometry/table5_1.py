"""Thesis Table 5.1: Hermite polynomials He_k, he_k and their orthonormality."""

from sigprop.checks.isometry_hermite import markdown, table5_1
from sigprop.store import atomic_path
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = table5_1(snakemake.params.max_order, snakemake.params.nodes)
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(markdown(table, ["k", "He_k", "he_k"], "Thesis Table 5.1"))
