"""Collect every claims file into results/claims.csv and results/claims.md, each failing or
fails-leaning paper claim with its finding (src/sigprop/papers/<family>/findings.yaml)."""

from sigprop.pipeline.jobs import log_to_file
from sigprop.verdicts import findings
from sigprop.verdicts.claims import verdict_counts, write_ledger

log = log_to_file(snakemake.log[0])
table = write_ledger(
    [path for path in snakemake.input if str(path).endswith(".json")],
    snakemake.output.csv,
    snakemake.output.md,
    run=dict(snakemake.params.run),
    findings=findings.load(),
)
log.info("%d claims: %s", len(table), verdict_counts(table["verdict"]))
