"""Dan+20, "Batch normalization provably avoids rank collapse" (seeds 000-002)."""


rule rank_collapse_simulate_bn_chain:
    """Layer statistics of the linear BN chain, Eq. (1), per gamma and width (Dan+20 Figs. 3a, 8, 9)."""
    output:
        tensor="results/rank_collapse/bn_chain.pt",
        meta="results/rank_collapse/bn_chain.json",
    log:
        "logs/rank_collapse/simulate_bn_chain.log",
    benchmark:
        "benchmarks/rank_collapse/simulate_bn_chain.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=240,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.rank_collapse:bn_chain",
        setup=lookup(within=config, dpath="rank_collapse/bn_chain"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule rank_collapse_fig3a:
    """Layer-averaged rank_1/2 vs width d for several gamma (Dan+20 Fig. 3a, Thm. 2)."""
    input:
        chain=rules.rank_collapse_simulate_bn_chain.output.tensor,
    output:
        pdf="figures/rank_collapse/fig3a.pdf",
        png=report(
            "figures/rank_collapse/fig3a.png",
            caption="../../results/captions/rank_collapse/fig3a.rst",
            category="rank_collapse",
        ),
        csv="results/rank_collapse/fig3a.csv",
    log:
        "logs/rank_collapse/fig3a.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=lookup(within=config, dpath="rank_collapse/bn_chain"),
    script:
        "../scripts/rank_collapse/fig3a.py"


rule rank_collapse_check_fig3a:
    """Claims of Dan+20 Fig. 3a and Thm. 14: Omega(sqrt d) soft rank, Eq. (62)."""
    input:
        table=rules.rank_collapse_fig3a.output.csv,
        description="workflow/report/rank_collapse/fig3a.rst",
    output:
        claims="results/claims/rank_collapse/fig3a.json",
        caption="results/captions/rank_collapse/fig3a.rst",
    log:
        "logs/rank_collapse/check_fig3a.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.rank_collapse:fig3a_claims",
        arguments={
            "taus": lookup(within=config, dpath="rank_collapse/bn_chain/taus"),
            "min_width": lookup(within=config, dpath="rank_collapse/fig3a/min_width"),
        },
        figure=rules.rank_collapse_fig3a.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule rank_collapse_fig8:
    """Regularity constant alpha_hat vs width d (Dan+20 Fig. 8, Lemma 10)."""
    input:
        chain=rules.rank_collapse_simulate_bn_chain.output.tensor,
    output:
        pdf="figures/rank_collapse/fig8.pdf",
        png=report(
            "figures/rank_collapse/fig8.png",
            caption="../../results/captions/rank_collapse/fig8.rst",
            category="rank_collapse",
        ),
        csv="results/rank_collapse/fig8.csv",
    log:
        "logs/rank_collapse/fig8.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=lookup(within=config, dpath="rank_collapse/bn_chain"),
    script:
        "../scripts/rank_collapse/fig8.py"


rule rank_collapse_check_fig8:
    """Claims of Dan+20 Fig. 8: alpha < 1, alpha < 0.9 for d > 10, alpha decreasing in d."""
    input:
        table=rules.rank_collapse_fig8.output.csv,
        description="workflow/report/rank_collapse/fig8.rst",
    output:
        claims="results/claims/rank_collapse/fig8.json",
        caption="results/captions/rank_collapse/fig8.rst",
    log:
        "logs/rank_collapse/check_fig8.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.rank_collapse:fig8_claims",
        arguments={
            "max_alpha_wide": lookup(within=config, dpath="rank_collapse/fig8/max_alpha_wide"),
            "wide_from": lookup(within=config, dpath="rank_collapse/fig8/wide_from"),
        },
        figure=rules.rank_collapse_fig8.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule rank_collapse_fig9:
    """log2 of the layer-averaged ||M||_F^2 vs log2 d (Dan+20 Fig. 9, Lemma 13)."""
    input:
        chain=rules.rank_collapse_simulate_bn_chain.output.tensor,
    output:
        pdf="figures/rank_collapse/fig9.pdf",
        png=report(
            "figures/rank_collapse/fig9.png",
            caption="../../results/captions/rank_collapse/fig9.rst",
            category="rank_collapse",
        ),
        csv="results/rank_collapse/fig9.csv",
    log:
        "logs/rank_collapse/fig9.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=lookup(within=config, dpath="rank_collapse/bn_chain"),
    script:
        "../scripts/rank_collapse/fig9.py"


rule rank_collapse_check_fig9:
    """Claims of Dan+20 Fig. 9: slope 1.5 and the Lemma 13 bound."""
    input:
        table=rules.rank_collapse_fig9.output.csv,
        description="workflow/report/rank_collapse/fig9.rst",
    output:
        claims="results/claims/rank_collapse/fig9.json",
        caption="results/captions/rank_collapse/fig9.rst",
    log:
        "logs/rank_collapse/check_fig9.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.rank_collapse:fig9_claims",
        arguments={
            "slope_tolerance": lookup(within=config, dpath="rank_collapse/fig9/slope_tolerance"),
        },
        figure=rules.rank_collapse_fig9.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule rank_collapse_simulate_collinear_chain:
    """Top singular values along the BN chain from nearly collinear inputs (Dan+20 Fig. 3b)."""
    output:
        tensor="results/rank_collapse/collinear_chain.pt",
        meta="results/rank_collapse/collinear_chain.json",
    log:
        "logs/rank_collapse/simulate_collinear_chain.log",
    benchmark:
        "benchmarks/rank_collapse/simulate_collinear_chain.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.rank_collapse:collinear_chain",
        setup=lookup(within=config, dpath="rank_collapse/collinear_chain"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule rank_collapse_fig3b:
    """Top-10 singular values of H_l vs l from nearly collinear inputs (Dan+20 Fig. 3b)."""
    input:
        chain=rules.rank_collapse_simulate_collinear_chain.output.tensor,
    output:
        pdf="figures/rank_collapse/fig3b.pdf",
        png=report(
            "figures/rank_collapse/fig3b.png",
            caption="../../results/captions/rank_collapse/fig3b.rst",
            category="rank_collapse",
        ),
        csv="results/rank_collapse/fig3b.csv",
    log:
        "logs/rank_collapse/fig3b.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=lookup(within=config, dpath="rank_collapse/collinear_chain"),
    script:
        "../scripts/rank_collapse/fig3b.py"


rule rank_collapse_check_fig3b:
    """Claims of Dan+20 Fig. 3b and Example 9: the largest singular value shrinks, small ones grow."""
    input:
        table=rules.rank_collapse_fig3b.output.csv,
        description="workflow/report/rank_collapse/fig3b.rst",
    output:
        claims="results/claims/rank_collapse/fig3b.json",
        caption="results/captions/rank_collapse/fig3b.rst",
    log:
        "logs/rank_collapse/check_fig3b.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.rank_collapse:fig3b_claims",
        arguments={
            "min_growth": lookup(within=config, dpath="rank_collapse/fig3b/min_growth"),
        },
        figure=rules.rank_collapse_fig3b.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"
