"""Run one registry simulation and cache its tensors (+ provenance sidecar)."""

from sigprop.pipeline.jobs import import_function, log_to_file, run_simulation

log_to_file(snakemake.log[0])
function = snakemake.params.function
run_simulation(
    import_function(function["name"]),
    dict(snakemake.params.setup),
    snakemake.params.device,
    snakemake.output.tensor,
    threads=snakemake.threads,
    nonfinite=tuple(function["nonfinite"]),
    code=str(snakemake.params.code),
)
