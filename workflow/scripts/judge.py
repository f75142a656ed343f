"""Judge one registry item from its CSV: the claims file and the caption with its verdicts."""

from sigprop.papers import load_registry
from sigprop.workflow import log_to_file, run_judge

log_to_file(snakemake.log[0])
item = load_registry().judged_item(snakemake.wildcards.family, snakemake.wildcards.item)
run_judge(
    item.judge,
    snakemake.input.table,
    dict(snakemake.params.arguments),
    snakemake.output.claims,
    figure=snakemake.params.figure,
    scale=snakemake.params.scale,
    description=snakemake.params.description,
    caption_path=snakemake.output.caption,
    page_path=snakemake.output.page,
    measured=item.kind == "theorem",
)
