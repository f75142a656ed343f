"""Thesis ch. 6 and app. C (Meterez, Joudaki et al. 2024): gradients of BN networks at initialization."""


rule gradients_simulate_depth_sweep:
    """ln ||grad fc_0||, ln ||grad fc_1|| and psi(fc_(L-1)) per variant, depth and run (Thesis Figs. 6.2, 6.3, C.9, C.10)."""
    output:
        tensor="results/gradients/depth_sweep.pt",
        meta="results/gradients/depth_sweep.json",
    log:
        "logs/gradients/simulate_depth_sweep.log",
    benchmark:
        "benchmarks/gradients/simulate_depth_sweep.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.gradients_depth:depth_sweep",
        setup={
            **config["gradients"]["depth_sweep"],
            "batch": config["gradients"]["data"],
        },
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule gradients_fig6_3:
    """ln ||grad W_1|| vs depth, orthogonal vs Gaussian weights (Thesis Fig. 6.3)."""
    input:
        sweep=rules.gradients_simulate_depth_sweep.output.tensor,
    output:
        pdf="figures/gradients/fig6_3.pdf",
        png=report(
            "figures/gradients/fig6_3.png",
            caption="../../results/captions/gradients/fig6_3.rst",
            category="gradients",
        ),
        csv="results/gradients/fig6_3.csv",
    log:
        "logs/gradients/fig6_3.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        figure="fig6_3",
        sweep=lookup(within=config, dpath="gradients/depth_sweep"),
    script:
        "../scripts/gradients/log_grad_vs_depth.py"


rule gradients_check_fig6_3:
    """Claims of Thesis Fig. 6.3: orthogonal flat (Thm. 6.5), Gaussian explodes (Yang et al. 2019)."""
    input:
        table=rules.gradients_fig6_3.output.csv,
        description="workflow/report/gradients/fig6_3.rst",
    output:
        claims="results/claims/gradients/fig6_3.json",
        caption="results/captions/gradients/fig6_3.rst",
    log:
        "logs/gradients/check_fig6_3.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.gradients_depth:fig6_3_claims",
        arguments={
            "window": lookup(within=config, dpath="gradients/depth_claims/window"),
            "flat_slope": lookup(within=config, dpath="gradients/depth_claims/flat_slope"),
            "min_slope": lookup(within=config, dpath="gradients/depth_claims/min_slope"),
            "z": lookup(within=config, dpath="gradients/depth_claims/z"),
            "min_difference": lookup(
                within=config, dpath="gradients/depth_claims/gaussian_min_difference"
            ),
            "batch_size": lookup(within=config, dpath="gradients/data/batch_size"),
        },
        figure=rules.gradients_fig6_3.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule gradients_fig6_2:
    """ln ||grad W_1|| vs depth, degenerate vs non-degenerate batch (Thesis Fig. 6.2)."""
    input:
        sweep=rules.gradients_simulate_depth_sweep.output.tensor,
    output:
        pdf="figures/gradients/fig6_2.pdf",
        png=report(
            "figures/gradients/fig6_2.png",
            caption="../../results/captions/gradients/fig6_2.rst",
            category="gradients",
        ),
        csv="results/gradients/fig6_2.csv",
    log:
        "logs/gradients/fig6_2.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        figure="fig6_2",
        sweep=lookup(within=config, dpath="gradients/depth_sweep"),
    script:
        "../scripts/gradients/log_grad_vs_depth.py"


rule gradients_check_fig6_2:
    """Claims of Thesis Fig. 6.2 (Remark 6.6): only the degenerate batch explodes."""
    input:
        table=rules.gradients_fig6_2.output.csv,
        description="workflow/report/gradients/fig6_2.rst",
    output:
        claims="results/claims/gradients/fig6_2.json",
        caption="results/captions/gradients/fig6_2.rst",
    log:
        "logs/gradients/check_fig6_2.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.gradients_depth:fig6_2_claims",
        arguments={
            "window": lookup(within=config, dpath="gradients/depth_claims/window"),
            "flat_slope": lookup(within=config, dpath="gradients/depth_claims/flat_slope"),
            "min_slope": lookup(within=config, dpath="gradients/depth_claims/min_slope"),
            "z": lookup(within=config, dpath="gradients/depth_claims/z"),
            "min_difference": lookup(
                within=config, dpath="gradients/depth_claims/degenerate_min_difference"
            ),
            "distinct": lookup(within=config, dpath="gradients/depth_sweep/degenerate/distinct"),
            "repeats": lookup(within=config, dpath="gradients/depth_sweep/degenerate/repeats"),
        },
        figure=rules.gradients_fig6_2.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule gradients_fig_c9:
    """ln ||grad W_1|| and psi(fc_(L-1)) vs depth for sin, tanh, identity without gain (Thesis Fig. C.9)."""
    input:
        sweep=rules.gradients_simulate_depth_sweep.output.tensor,
    output:
        pdf="figures/gradients/fig_c9.pdf",
        png=report(
            "figures/gradients/fig_c9.png",
            caption="../../results/captions/gradients/fig_c9.rst",
            category="gradients",
        ),
        csv="results/gradients/fig_c9.csv",
    log:
        "logs/gradients/fig_c9.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        sweep=lookup(within=config, dpath="gradients/depth_sweep"),
    script:
        "../scripts/gradients/fig_c9.py"


rule gradients_check_fig_c9:
    """Claims of Thesis Fig. C.9: sin and tanh explode with a large last-layer psi; identity does not."""
    input:
        table=rules.gradients_fig_c9.output.csv,
        description="workflow/report/gradients/fig_c9.rst",
    output:
        claims="results/claims/gradients/fig_c9.json",
        caption="results/captions/gradients/fig_c9.rst",
    log:
        "logs/gradients/check_fig_c9.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.gradients_depth:fig_c9_claims",
        arguments={
            "window": lookup(within=config, dpath="gradients/depth_claims/window"),
            "flat_slope": lookup(within=config, dpath="gradients/depth_claims/flat_slope"),
            "min_slope": lookup(within=config, dpath="gradients/depth_claims/nonlinear_min_slope"),
            "z": lookup(within=config, dpath="gradients/depth_claims/z"),
            "gap_floor": lookup(within=config, dpath="gradients/depth_claims/gap_floor"),
            "gap_decay": lookup(within=config, dpath="gradients/depth_claims/gap_decay"),
        },
        figure=rules.gradients_fig_c9.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule gradients_fig_c10:
    """ln ||grad W_0|| vs depth, BN with vs without mean reduction (Thesis Fig. C.10)."""
    input:
        sweep=rules.gradients_simulate_depth_sweep.output.tensor,
    output:
        pdf="figures/gradients/fig_c10.pdf",
        png=report(
            "figures/gradients/fig_c10.png",
            caption="../../results/captions/gradients/fig_c10.rst",
            category="gradients",
        ),
        csv="results/gradients/fig_c10.csv",
    log:
        "logs/gradients/fig_c10.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        figure="fig_c10",
        sweep=lookup(within=config, dpath="gradients/depth_sweep"),
    script:
        "../scripts/gradients/log_grad_vs_depth.py"


rule gradients_check_fig_c10:
    """Claims of Thesis Fig. C.10: mean reduction leaves the (flat) slope unchanged."""
    input:
        table=rules.gradients_fig_c10.output.csv,
        description="workflow/report/gradients/fig_c10.rst",
    output:
        claims="results/claims/gradients/fig_c10.json",
        caption="results/captions/gradients/fig_c10.rst",
    log:
        "logs/gradients/check_fig_c10.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.gradients_depth:fig_c10_claims",
        arguments={
            "window": lookup(within=config, dpath="gradients/depth_claims/window"),
            "flat_slope": lookup(within=config, dpath="gradients/depth_claims/flat_slope"),
        },
        figure=rules.gradients_fig_c10.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


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
