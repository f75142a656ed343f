"""Run one simulation of sigprop.experiments and cache its tensors (+ provenance sidecar)."""

from sigprop.workflow import log_to_file, run_simulation

log_to_file(snakemake.log[0])
run_simulation(
    snakemake.params.experiment,
    dict(snakemake.params.setup),
    snakemake.params.device,
    snakemake.output.tensor,
    threads=snakemake.threads,
)
