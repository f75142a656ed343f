"""Theorem checks without a figure of their own, for every family: one job per THEOREMS entry."""


rule check_theorem:
    """A theorem check of THEOREMS[family][item] (common.smk): measured table and claims."""
    output:
        table=report(
            "results/{family}/{item}.csv",
            caption="../report/theorem.rst",
            category="{family}",
            subcategory="theorem checks",
        ),
        claims="results/claims/{family}/{item}.json",
    log:
        "logs/{family}/check_{item}.log",
    benchmark:
        "benchmarks/{family}/check_{item}.tsv"
    wildcard_constraints:
        family="|".join(THEOREMS),
        item="|".join(item for items in THEOREMS.values() for item in items),
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        check=lookup(within=THEOREMS, dpath="{family}/{item}"),
        arguments=lookup(within=config, dpath="{family}/{item}"),
        device=config["device"],
        scale=config["scale"],
    script:
        "../scripts/theorem.py"
