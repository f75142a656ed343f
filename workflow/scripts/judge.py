"""Judge one registry item from its CSV: the claims file and the caption with its verdicts.

Only the judge's own module is imported (not the registry), so most judge jobs never load torch.
"""

from sigprop.pipeline.jobs import import_function, log_to_file, run_judge

log_to_file(snakemake.log[0])
function = snakemake.params.function
run_judge(
    import_function(function["name"]),
    snakemake.input.table,
    dict(snakemake.params.arguments),
    snakemake.output.claims,
    figure=snakemake.params.figure,
    scale=snakemake.params.scale,
    confidence=snakemake.params.confidence,
    description=snakemake.params.description,
    caption_path=snakemake.output.caption,
    page_path=snakemake.output.page,
    measured=function["measured"],
    nonfinite=tuple(function["nonfinite"]),
)
