"""Thesis Table C.1 (app. C.4): rank of random image batches, measured beside the printed table."""

from sigprop.jobs import item_params, log_to_file
from sigprop.papers.gradients.batch_rank_tables import markdown, table_c1
from sigprop.store import atomic_path, load_frame

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = table_c1(load_frame(snakemake.input.batches))
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(markdown(table, params.scale))
