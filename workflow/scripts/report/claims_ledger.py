"""Collect every claims file into results/claims.csv and results/claims.md."""

from sigprop.claims import verdict_counts, write_ledger
from sigprop.jobs import log_to_file

log = log_to_file(snakemake.log[0])
table = write_ledger(
    snakemake.input, snakemake.output.csv, snakemake.output.md, run=dict(snakemake.params.run)
)
log.info("%d claims: %s", len(table), verdict_counts(table["verdict"]))
