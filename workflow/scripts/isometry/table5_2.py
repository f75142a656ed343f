"""Thesis Table 5.2 made numeric: kernel-map properties per activation, exact and truncated."""

from sigprop.jobs import item_params, log_to_file
from sigprop.papers.isometry.hermite_tables import table5_2
from sigprop.store import atomic_path, markdown_table

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = table5_2(
    list(params.activations),
    params.order,
    params.series_order,
    params.series_rho_max,
    params.case_tolerance,
    params.mc_samples,
    list(params.mc_rhos),
)
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
columns = ["activation", "C", "kappa0", "dkappa0", "dkappa1", "dkappa1_truncated", "rho_star"]
columns += ["dkappa_star", "case", "case_truncated", "alpha"]
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(
        markdown_table(table, columns, f"Thesis Table 5.2 (truncation order {params.order})")
    )
