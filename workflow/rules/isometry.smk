"""Thesis ch. 4-5 (Joudaki 2024): isometry of normalization, Hermite kernel maps."""


rule isometry_fig4_1:
    """Parallelepipeds of n = 2 and n = 3 vectors with their isometry I (Thesis Fig. 4.1)."""
    output:
        pdf="figures/isometry/fig4_1.pdf",
        png=report(
            "figures/isometry/fig4_1.png",
            caption="../../results/captions/isometry/fig4_1.rst",
            category="isometry",
        ),
        csv="results/isometry/fig4_1.csv",
    log:
        "logs/isometry/fig4_1.log",
    benchmark:
        "benchmarks/isometry/fig4_1.tsv"
    conda:
        "../../envs/sigprop.yaml"
    params:
        labels=lookup(within=config, dpath="isometry/fig4_1/labels"),
        parallelograms=lookup(within=config, dpath="isometry/fig4_1/parallelograms"),
        parallelepipeds=lookup(within=config, dpath="isometry/fig4_1/parallelepipeds"),
    script:
        "../scripts/isometry/fig4_1.py"


rule isometry_check_fig4_1:
    """Claims of Thesis Fig. 4.1: annotated I equal the closed forms (n = 2, 3)."""
    input:
        table=rules.isometry_fig4_1.output.csv,
        description="workflow/report/isometry/fig4_1.rst",
    output:
        claims="results/claims/isometry/fig4_1.json",
        caption="results/captions/isometry/fig4_1.rst",
    log:
        "logs/isometry/check_fig4_1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.isometry:fig4_1_claims",
        arguments={
            "tolerance": lookup(within=config, dpath="isometry/fig4_1_check/tolerance"),
        },
        figure=rules.isometry_fig4_1.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"
