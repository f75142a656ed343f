"""Run one theorem check of sigprop.theorems; write its measured table and its claims."""

from sigprop.workflow import log_to_file, run_theorem

log_to_file(snakemake.log[0])
run_theorem(
    snakemake.params.check,
    dict(snakemake.params.arguments),
    snakemake.params.device,
    snakemake.output.table,
    snakemake.output.claims,
    scale=snakemake.params.scale,
    threads=snakemake.threads,
)
