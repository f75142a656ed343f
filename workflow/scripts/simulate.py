"""Run one registry simulation and cache its tensors (+ provenance sidecar)."""

from sigprop.papers import load_registry
from sigprop.workflow import log_to_file, run_simulation

log_to_file(snakemake.log[0])
item = load_registry().get(snakemake.wildcards.family, snakemake.wildcards.item, "simulation")
run_simulation(
    item.run,
    dict(snakemake.params.setup),
    snakemake.params.device,
    snakemake.output.tensor,
    threads=snakemake.threads,
    nonfinite=item.nonfinite,
)
