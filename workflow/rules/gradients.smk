"""Thesis ch. 6 and app. C (Meterez, Joudaki et al. 2024): gradients of BN networks at initialization."""


rule gradients_simulate_table_c1:
    """Per batch: float32 Gram rank (the authors'), float64 rank of X, mean cosine, raw and
    normalized pixels (Thesis Table C.1, app. C.4)."""
    output:
        tensor="results/gradients/table_c1.pt",
        meta="results/gradients/table_c1.json",
    log:
        "logs/gradients/simulate_table_c1.log",
    benchmark:
        "benchmarks/gradients/simulate_table_c1.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.gradients_rank:table_c1",
        setup={
            **config["gradients"]["table_c1"],
            "data_root": config["gradients"]["data"]["data_root"],
            "download": config["gradients"]["data"]["download"],
        },
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule gradients_table_c1:
    """Thesis Table C.1: mean +- std over batches per dataset, normalization and n, beside the
    printed table."""
    input:
        batches=rules.gradients_simulate_table_c1.output.tensor,
    output:
        csv=report(
            "results/gradients/table_c1.csv",
            caption="../../results/captions/gradients/table_c1.rst",
            category="gradients",
        ),
        md="results/gradients/table_c1.md",
    log:
        "logs/gradients/table_c1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        scale=config["scale"],
    script:
        "../scripts/gradients/table_c1.py"


rule gradients_check_table_c1:
    """Claims of Thesis Table C.1: batches have full rank; the printed deficits are the float32
    Gram tolerance; printed FashionMNIST (etc.) ranks and cosines reproduced with raw pixels."""
    input:
        table=rules.gradients_table_c1.output.csv,
        description="workflow/report/gradients/table_c1.rst",
    output:
        claims="results/claims/gradients/table_c1.json",
        caption="results/captions/gradients/table_c1.rst",
    log:
        "logs/gradients/check_table_c1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.gradients_rank:table_c1_claims",
        arguments=lookup(within=config, dpath="gradients/table_c1_check"),
        figure=rules.gradients_table_c1.output.md,
        scale=config["scale"],
    script:
        "../scripts/check.py"
