"""Evaluate a figure's claims from the numbers it plots (its CSV); write the verdicts."""

from sigprop.workflow import log_to_file, run_check

log_to_file(snakemake.log[0])
run_check(
    snakemake.params.check,
    snakemake.input.table,
    dict(snakemake.params.arguments),
    snakemake.output.claims,
    figure=snakemake.params.figure,
    scale=snakemake.params.scale,
    description_path=snakemake.input.description,
    caption_path=snakemake.output.caption,
)
