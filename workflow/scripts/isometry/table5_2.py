"""Thesis Table 5.2 made numeric: kernel-map properties per activation, exact and truncated.

{{ snakemake.config["scale"] | capitalize }} scale. For each activation phi, normalized to E phi^2 =
1 by C = sqrt(E phi^2), the kernel map kappa (Def. 5.3) at 0 and its derivative at 0 and 1, exactly
(Stein identities, 2-D quadrature, closed forms) and from the Hermite series truncated at order
{{ snakemake.params.order }} and renormalized as in the authors' code; the attracting fixed point
rho*, kappa'(rho*), the case of Thm. 5.11 (exact and truncated) and the corrected rate alpha (case
1: 1 / (2 - kappa'(0)); case 3: 1 - kappa(0) - kappa'(0); Thm. 5.8 Eq. (5.6), Thm. 5.11 Eq. (5.9)).
ReLU and leaky ReLU are case 3 exactly (kappa'(1) = 1 for any positively homogeneous phi) and case 2
only after truncation, which is where the thesis's label in Fig. 5.2b comes from. A Markdown copy is
``results/isometry/table5_2.md``.
"""

from sigprop.base.store import atomic_path, markdown_table
from sigprop.papers.isometry.hermite_tables import table5_2
from sigprop.pipeline.jobs import item_params, log_to_file

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
