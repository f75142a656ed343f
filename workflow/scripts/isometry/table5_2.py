"""Thesis Table 5.2 made numeric: kernel-map properties per activation, exact and truncated."""

from sigprop.checks.isometry_hermite import markdown, table5_2
from sigprop.store import atomic_path
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
p = snakemake.params
table = table5_2(
    list(p.activations),
    p.order,
    p.series_order,
    p.series_rho_max,
    p.case_tolerance,
    p.mc_samples,
    list(p.mc_rhos),
)
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
columns = ["activation", "C", "kappa0", "dkappa0", "dkappa1", "dkappa1_truncated", "rho_star"]
columns += ["dkappa_star", "case", "case_truncated", "alpha"]
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(markdown(table, columns, f"Thesis Table 5.2 (truncation order {p.order})"))
