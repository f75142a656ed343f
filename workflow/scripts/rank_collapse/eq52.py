"""Dan+20 Eq. (52): the ergodic average of delta_F / (2 d^2) per (gamma, width) on the BN chain.

{{ snakemake.config["scale"] | capitalize }} scale, on the linear BN chain of Eq. (1) (the
``bn_chain`` simulation): per gamma and width d = N, the ergodic average over the recorded layers
after burn-in of delta_F / (2 d^2) = (2 d^2 - 2 ||M||_F^2 - 8 Tr M^3 + 8 Tr diag(M^2)^2) / (2 d^2),
mean and SE over runs; delta_F is the step of Lemma 13's proof.
"""

from sigprop.base.store import atomic_path, load_frame, markdown_table
from sigprop.papers.rank_collapse.bn_chain_tables import eq52_table
from sigprop.pipeline.jobs import log_to_file

log_to_file(snakemake.log[0])
table = eq52_table(load_frame(snakemake.input.chain))
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(markdown_table(table, list(table.columns), "Dan+20 Eq. (52) on the BN chain"))
