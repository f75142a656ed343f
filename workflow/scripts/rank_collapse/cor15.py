"""Dan+20 Cor. 15: the smallest rank_tau over the recorded layers of each BN chain, its bound, and
how often rank_tau rises between recorded layers (the corollary assumes it never does).

{{ snakemake.config["scale"] | capitalize }} scale, on the linear BN chain of Eq. (1) (the
``bn_chain`` simulation of Figs. 3a, 8, 9): per chain (gamma, width d = N, run) and tau in
{{ snakemake.params.taus }}, the smallest rank_tau (Eq. (3)) over the recorded layers after burn-in,
Thm. 14's bound (1 - tau)^2 sqrt((1 - alpha_hat) d) with alpha_hat of Eq. (49) from the same chain,
and the fraction of steps between recorded layers where rank_tau rose.
"""

from sigprop.base.store import atomic_path, load_frame, markdown_table
from sigprop.papers.rank_collapse.bn_chain_tables import cor15_table
from sigprop.pipeline.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = cor15_table(load_frame(snakemake.input.chain), params.taus)
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(
        markdown_table(table, list(table.columns), "Dan+20 Cor. 15 on the BN chain of Eq. (1)")
    )
