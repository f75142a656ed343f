"""Thesis Table 5.1: Hermite polynomials He_k, he_k and their orthonormality.

{{ snakemake.config["scale"] | capitalize }} scale. Probabilists' Hermite polynomials He_0..He_4
(Def. 5.4) from the recursion He_k = x He_{k-1} - (k - 1) He_{k-2}, and the normalized he_k = He_k /
sqrt(k!). Orthonormality E he_k he_l = delta_kl (Eq. (5.5)) is checked for k, l <=
{{ snakemake.params.max_order }} with a {{ snakemake.params.nodes }}-node Gauss-Hermite rule, exact
for these degrees. A Markdown copy is ``results/isometry/table5_1.md``.
"""

from sigprop.base.store import atomic_path, markdown_table
from sigprop.papers.isometry.hermite_tables import table5_1
from sigprop.pipeline.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = table5_1(params.max_order, params.nodes)
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(markdown_table(table, ["k", "He_k", "he_k"], "Thesis Table 5.1"))
