"""Thesis ch. 6 and app. C (Meterez, Joudaki et al. 2024): gradients of BN networks at initialization."""


rule gradients_simulate_gain_depth:
    """log||grad fc_1|| vs depth with and without the gain schedule (Thesis Fig. 6.5)."""
    output:
        tensor="results/gradients/gain_depth.pt",
        meta="results/gradients/gain_depth.json",
    log:
        "logs/gradients/simulate_gain_depth.log",
    benchmark:
        "benchmarks/gradients/simulate_gain_depth.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.gradients_gain:gain_depth",
        setup={
            **config["gradients"]["gain_depth"],
            "batch": config["gradients"]["data"],
        },
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule gradients_fig6_5:
    """log||grad W_1|| vs depth, identity / sin / tanh, without and with gain (Thesis Fig. 6.5)."""
    input:
        profile=rules.gradients_simulate_gain_depth.output.tensor,
    output:
        pdf="figures/gradients/fig6_5.pdf",
        png=report(
            "figures/gradients/fig6_5.png",
            caption="../../results/captions/gradients/fig6_5.rst",
            category="gradients",
        ),
        csv="results/gradients/fig6_5.csv",
    log:
        "logs/gradients/fig6_5.log",
    conda:
        "../../envs/sigprop.yaml"
    script:
        "../scripts/gradients/fig6_5.py"


rule gradients_check_fig6_5:
    """Claims of Thesis Fig. 6.5: sin/tanh explode without gain, nothing grows with it."""
    input:
        table=rules.gradients_fig6_5.output.csv,
        description="workflow/report/gradients/fig6_5.rst",
    output:
        claims="results/claims/gradients/fig6_5.json",
        caption="results/captions/gradients/fig6_5.rst",
    log:
        "logs/gradients/check_fig6_5.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.gradients_gain:fig6_5_claims",
        arguments=lookup(within=config, dpath="gradients/fig6_5"),
        figure=rules.gradients_fig6_5.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule gradients_simulate_constant_gain:
    """Explosion rate R(l, alpha) at several layers of one deep net, constant gain (Thesis Fig. C.1)."""
    output:
        tensor="results/gradients/constant_gain.pt",
        meta="results/gradients/constant_gain.json",
    log:
        "logs/gradients/simulate_constant_gain.log",
    benchmark:
        "benchmarks/gradients/simulate_constant_gain.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.gradients_gain:constant_gain",
        setup={
            **config["gradients"]["constant_gain"],
            "batch": config["gradients"]["data"],
        },
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule gradients_fig_c1:
    """R(l, alpha) vs constant gain alpha with the c1 alpha^c2 fit (Thesis Fig. C.1)."""
    input:
        rates=rules.gradients_simulate_constant_gain.output.tensor,
    output:
        pdf="figures/gradients/fig_c1.pdf",
        png=report(
            "figures/gradients/fig_c1.png",
            caption="../../results/captions/gradients/fig_c1.rst",
            category="gradients",
        ),
        csv="results/gradients/fig_c1.csv",
    log:
        "logs/gradients/fig_c1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        fit_min_gain=lookup(within=config, dpath="gradients/fig_c1/fit_min_gain"),
    script:
        "../scripts/gradients/fig_c1.py"


rule gradients_check_fig_c1:
    """Claims of Thesis Fig. C.1: R increases with alpha as c1 alpha^c2; gain exponent k / c2."""
    input:
        table=rules.gradients_fig_c1.output.csv,
        description="workflow/report/gradients/fig_c1.rst",
    output:
        claims="results/claims/gradients/fig_c1.json",
        caption="results/captions/gradients/fig_c1.rst",
    log:
        "logs/gradients/check_fig_c1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.gradients_gain:fig_c1_claims",
        arguments=lookup(within=config, dpath="gradients/fig_c1"),
        figure=rules.gradients_fig_c1.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule gradients_simulate_exponent_rate:
    """Early-layer explosion rate vs gain exponent for several depths (Thesis Fig. C.2)."""
    output:
        tensor="results/gradients/exponent_rate.pt",
        meta="results/gradients/exponent_rate.json",
    log:
        "logs/gradients/simulate_exponent_rate.log",
    benchmark:
        "benchmarks/gradients/simulate_exponent_rate.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.gradients_gain:exponent_rate",
        setup={
            **config["gradients"]["exponent_rate"],
            "batch": config["gradients"]["data"],
        },
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule gradients_fig_c2:
    """R at l = 10 vs gain exponent, depths as hue, identity as reference (Thesis Fig. C.2)."""
    input:
        rates=rules.gradients_simulate_exponent_rate.output.tensor,
    output:
        pdf="figures/gradients/fig_c2.pdf",
        png=report(
            "figures/gradients/fig_c2.png",
            caption="../../results/captions/gradients/fig_c2.rst",
            category="gradients",
        ),
        csv="results/gradients/fig_c2.csv",
    log:
        "logs/gradients/fig_c2.log",
    conda:
        "../../envs/sigprop.yaml"
    script:
        "../scripts/gradients/fig_c2.py"


rule gradients_check_fig_c2:
    """Claims of Thesis Fig. C.2: R falls with the exponent to the identity network's level."""
    input:
        table=rules.gradients_fig_c2.output.csv,
        description="workflow/report/gradients/fig_c2.rst",
    output:
        claims="results/claims/gradients/fig_c2.json",
        caption="results/captions/gradients/fig_c2.rst",
    log:
        "logs/gradients/check_fig_c2.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.gradients_gain:fig_c2_claims",
        arguments={
            **config["gradients"]["fig_c2"],
            "baseline": "identity",
        },
        figure=rules.gradients_fig_c2.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"
