"""Measure one registry theorem item: its table of measured numbers (+ provenance sidecar)."""

from sigprop.pipeline.jobs import import_function, log_to_file, run_measure

log_to_file(snakemake.log[0])
function = snakemake.params.function
run_measure(
    import_function(function["name"]),
    dict(snakemake.params.setup),
    snakemake.params.device,
    snakemake.output.table,
    threads=snakemake.threads,
    nonfinite=tuple(function["nonfinite"]),
    code=str(snakemake.params.code),
)
