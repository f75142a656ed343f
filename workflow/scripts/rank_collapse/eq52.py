"""Dan+20 Eq. (52): the ergodic average of delta_F / (2 d^2) per (gamma, width) on the BN chain."""

from sigprop.jobs import log_to_file
from sigprop.papers.rank_collapse.bn_chain_tables import eq52_table
from sigprop.store import atomic_path, load_frame, markdown_table

log_to_file(snakemake.log[0])
table = eq52_table(load_frame(snakemake.input.chain))
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(markdown_table(table, list(table.columns), "Dan+20 Eq. (52) on the BN chain"))
