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


rule isometry_table5_1:
    """He_k and he_k, k = 0..4, with orthonormality by Gauss-Hermite (Thesis Table 5.1)."""
    output:
        csv=report(
            "results/isometry/table5_1.csv",
            caption="../../results/captions/isometry/table5_1.rst",
            category="isometry",
        ),
        md="results/isometry/table5_1.md",
    log:
        "logs/isometry/table5_1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        max_order=lookup(within=config, dpath="isometry/table5_1/max_order"),
        nodes=lookup(within=config, dpath="isometry/table5_1/nodes"),
    script:
        "../scripts/isometry/table5_1.py"


rule isometry_check_table5_1:
    """Claims of Thesis Table 5.1: the recursion gives the printed He_k; orthonormality (5.5)."""
    input:
        table=rules.isometry_table5_1.output.csv,
        description="workflow/report/isometry/table5_1.rst",
    output:
        claims="results/claims/isometry/table5_1.json",
        caption="results/captions/isometry/table5_1.rst",
    log:
        "logs/isometry/check_table5_1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.isometry_hermite:table5_1_claims",
        arguments={
            "float_tolerance": lookup(within=config, dpath="isometry/table5_1/float_tolerance"),
        },
        figure=rules.isometry_table5_1.output.md,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule isometry_table5_2:
    """Per activation: C, kappa(0), kappa'(0), kappa'(1) exact and truncated, rho*, case, alpha,
    and the agreement of series, quadrature, closed forms and Monte Carlo (Thesis Table 5.2)."""
    output:
        csv=report(
            "results/isometry/table5_2.csv",
            caption="../../results/captions/isometry/table5_2.rst",
            category="isometry",
        ),
        md="results/isometry/table5_2.md",
    log:
        "logs/isometry/table5_2.log",
    benchmark:
        "benchmarks/isometry/table5_2.tsv"
    conda:
        "../../envs/sigprop.yaml"
    params:
        activations=lookup(within=config, dpath="isometry/table5_2/activations"),
        order=lookup(within=config, dpath="isometry/table5_2/order"),
        series_order=lookup(within=config, dpath="isometry/table5_2/series_order"),
        series_rho_max=lookup(within=config, dpath="isometry/table5_2/series_rho_max"),
        case_tolerance=lookup(within=config, dpath="isometry/table5_2/case_tolerance"),
        mc_samples=lookup(within=config, dpath="isometry/table5_2/mc_samples"),
        mc_rhos=lookup(within=config, dpath="isometry/table5_2/mc_rhos"),
    script:
        "../scripts/isometry/table5_2.py"


rule isometry_check_table5_2:
    """Claims of Thesis Table 5.2: four routes to kappa agree; ReLU is case 3 exactly, case 2
    only when truncated."""
    input:
        table=rules.isometry_table5_2.output.csv,
        description="workflow/report/isometry/table5_2.rst",
    output:
        claims="results/claims/isometry/table5_2.json",
        caption="results/captions/isometry/table5_2.rst",
    log:
        "logs/isometry/check_table5_2.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.isometry_hermite:table5_2_claims",
        arguments={
            "float_tolerance": lookup(within=config, dpath="isometry/table5_2/float_tolerance"),
            "mc_z": lookup(within=config, dpath="isometry/table5_2/mc_z"),
        },
        figure=rules.isometry_table5_2.output.md,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule isometry_fig5_1:
    """Custom polynomial activations, one per case of Thm. 5.11 (Thesis Fig. 5.1)."""
    output:
        pdf="figures/isometry/fig5_1.pdf",
        png=report(
            "figures/isometry/fig5_1.png",
            caption="../../results/captions/isometry/fig5_1.rst",
            category="isometry",
        ),
        csv="results/isometry/fig5_1.csv",
        curves="results/isometry/fig5_1_curves.csv",
    log:
        "logs/isometry/fig5_1.log",
    benchmark:
        "benchmarks/isometry/fig5_1.tsv"
    conda:
        "../../envs/sigprop.yaml"
    params:
        subjects=lookup(within=config, dpath="isometry/fig5_1/activations"),
        rho0=lookup(within=config, dpath="isometry/fig5_1/rho0"),
        layers=lookup(within=config, dpath="isometry/fig5_1/layers"),
        order=lookup(within=config, dpath="isometry/fig5_1/order"),
        case_tolerance=lookup(within=config, dpath="isometry/fig5_1/case_tolerance"),
        n_points=lookup(within=config, dpath="isometry/fig5_1/n_points"),
    script:
        "../scripts/isometry/fig5_kernel.py"


rule isometry_check_fig5_1:
    """Claims of Thesis Fig. 5.1: each case's iterates converge to rho* under its bound."""
    input:
        table=rules.isometry_fig5_1.output.csv,
        description="workflow/report/isometry/fig5_1.rst",
    output:
        claims="results/claims/isometry/fig5_1.json",
        caption="results/captions/isometry/fig5_1.rst",
    log:
        "logs/isometry/check_fig5_1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.isometry_fig5:fig5_claims",
        arguments={
            "item": "fig5_1",
            "float_tolerance": lookup(
                within=config, dpath="isometry/fig5_1_check/float_tolerance"
            ),
            "max_contraction": lookup(
                within=config, dpath="isometry/fig5_1_check/max_contraction"
            ),
        },
        figure=rules.isometry_fig5_1.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule isometry_fig5_2:
    """tanh, ReLU, exp, GELU scaled by 1 / C: activation, cobweb, convergence (Thesis Fig. 5.2)."""
    output:
        pdf="figures/isometry/fig5_2.pdf",
        png=report(
            "figures/isometry/fig5_2.png",
            caption="../../results/captions/isometry/fig5_2.rst",
            category="isometry",
        ),
        csv="results/isometry/fig5_2.csv",
        curves="results/isometry/fig5_2_curves.csv",
    log:
        "logs/isometry/fig5_2.log",
    benchmark:
        "benchmarks/isometry/fig5_2.tsv"
    conda:
        "../../envs/sigprop.yaml"
    params:
        subjects=lookup(within=config, dpath="isometry/fig5_2/activations"),
        rho0=lookup(within=config, dpath="isometry/fig5_2/rho0"),
        layers=lookup(within=config, dpath="isometry/fig5_2/layers"),
        order=lookup(within=config, dpath="isometry/fig5_2/order"),
        case_tolerance=lookup(within=config, dpath="isometry/fig5_2/case_tolerance"),
        n_points=lookup(within=config, dpath="isometry/fig5_2/n_points"),
    script:
        "../scripts/isometry/fig5_kernel.py"


rule isometry_check_fig5_2:
    """Claims of Thesis Fig. 5.2: iterates converge to rho* under the bound; printed (5.7) control."""
    input:
        table=rules.isometry_fig5_2.output.csv,
        description="workflow/report/isometry/fig5_2.rst",
    output:
        claims="results/claims/isometry/fig5_2.json",
        caption="results/captions/isometry/fig5_2.rst",
    log:
        "logs/isometry/check_fig5_2.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.isometry_fig5:fig5_claims",
        arguments={
            "item": "fig5_2",
            "float_tolerance": lookup(
                within=config, dpath="isometry/fig5_2_check/float_tolerance"
            ),
            "max_contraction": lookup(
                within=config, dpath="isometry/fig5_2_check/max_contraction"
            ),
        },
        figure=rules.isometry_fig5_2.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"
