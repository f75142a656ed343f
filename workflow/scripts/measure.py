"""Measure one registry theorem item: its table of measured numbers (+ provenance sidecar)."""

from sigprop.papers import load_registry
from sigprop.workflow import log_to_file, run_measure

log_to_file(snakemake.log[0])
item = load_registry().get(snakemake.wildcards.family, snakemake.wildcards.item, "theorem")
run_measure(
    item.measure,
    dict(snakemake.params.setup),
    snakemake.params.device,
    snakemake.output.table,
    threads=snakemake.threads,
)
