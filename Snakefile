"""sigprop: every figure, table and theorem check of the seeds, as one DAG.

snakemake --cores 8 all                                   # quick scale (config/config.yaml)
snakemake --cores 8 all --configfile config/paper.yaml    # the seeds' scale
snakemake --cores 8 figures/orthogonality/fig2b.pdf       # one figure
sigprop list                                              # every paper item (src/sigprop/papers)
"""

import time

from snakemake.utils import min_version

min_version("9.19")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/items.smk"
include: "workflow/rules/report.smk"


RUN_STARTED = time.time()


onsuccess:
    # Where this run's time went: results/benchmarks.csv (sigprop.pipeline.job_benchmarks).
    from sigprop.pipeline.job_benchmarks import write
    from sigprop.pipeline.jobs import remove_finished_checkpoints

    remove_finished_checkpoints()
    if write(since=RUN_STARTED).size:
        print("job times: results/benchmarks.csv (summary: sigprop benchmarks)")


onerror:
    # Finished simulations' checkpoints go; a failed or stopped one's stay, to resume from.
    from sigprop.pipeline.jobs import remove_finished_checkpoints

    remove_finished_checkpoints()


rule all:
    """Every figure and the claims ledger (results/claims.csv, results/claims.md)."""
    default_target: True
    input:
        get_figures(),
        rules.claims_ledger.output,
