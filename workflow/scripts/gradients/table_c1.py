"""Thesis Table C.1 (app. C.4): rank of random image batches, measured beside the printed table."""

from sigprop.checks.gradients_rank import markdown, table_c1
from sigprop.store import atomic_path, load_frame
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = table_c1(load_frame(snakemake.input.batches))
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(markdown(table, snakemake.params.scale))
