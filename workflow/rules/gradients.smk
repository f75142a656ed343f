"""Thesis ch. 6 and app. C (Meterez, Joudaki et al. 2024): gradients of BN networks at initialization."""


rule gradients_simulate_isometry_chain:
    """psi(X_l) of the BN chain with Haar weights, identity activation, theory BN (Thesis Fig. 6.1)."""
    output:
        tensor="results/gradients/isometry_chain.pt",
        meta="results/gradients/isometry_chain.json",
    log:
        "logs/gradients/simulate_isometry_chain.log",
    benchmark:
        "benchmarks/gradients/simulate_isometry_chain.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.gradients_isometry:isometry_chain",
        setup=lookup(within=config, dpath="gradients/isometry_chain"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule gradients_fig6_1:
    """Isometry gap vs layer for two widths with the dashed theory curves (Thesis Fig. 6.1)."""
    input:
        gaps=rules.gradients_simulate_isometry_chain.output.tensor,
    output:
        pdf="figures/gradients/fig6_1.pdf",
        png=report(
            "figures/gradients/fig6_1.png",
            caption="../../results/captions/gradients/fig6_1.rst",
            category="gradients",
        ),
        csv="results/gradients/fig6_1.csv",
    log:
        "logs/gradients/fig6_1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        authors_c=lookup(within=config, dpath="gradients/fig6_1/authors_c"),
    script:
        "../scripts/gradients/fig6_1.py"


rule gradients_check_fig6_1:
    """Claims of Thesis Fig. 6.1 / Thm. 6.1: monotone, exponential, width-dependent decay; bounds."""
    input:
        table=rules.gradients_fig6_1.output.csv,
        description="workflow/report/gradients/fig6_1.rst",
    output:
        claims="results/claims/gradients/fig6_1.json",
        caption="results/captions/gradients/fig6_1.rst",
    log:
        "logs/gradients/check_fig6_1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.gradients_isometry:fig6_1_claims",
        arguments=lookup(within=config, dpath="gradients/fig6_1"),
        figure=rules.gradients_fig6_1.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"
