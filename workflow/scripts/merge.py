"""Merge a split simulation's parts into the tensors and sidecar one simulate job writes."""

from sigprop.pipeline.jobs import log_to_file, run_merge

log_to_file(snakemake.log[0])
split = snakemake.params.split
run_merge(
    list(snakemake.input.parts),
    dict(snakemake.params.setup),
    {"key": split["key"], "dim": split["dim"]},
    snakemake.output.tensor,
    nonfinite=tuple(split["nonfinite"]),
)
