"""Dan+20, "Batch normalization provably avoids rank collapse" (seeds 000-002)."""


rule rank_collapse_simulate_depth_rank:
    """Numerical rank of H_L vs depth L, BN vs vanilla, linear and ReLU (Dan+20 Fig. 2)."""
    output:
        tensor="results/rank_collapse/depth_rank.pt",
        meta="results/rank_collapse/depth_rank.json",
    log:
        "logs/rank_collapse/simulate_depth_rank.log",
    benchmark:
        "benchmarks/rank_collapse/simulate_depth_rank.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.rank_collapse:depth_rank",
        setup=lookup(within=config, dpath="rank_collapse/depth_rank"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule rank_collapse_fig2:
    """Log rank of the last hidden layer vs total depth (Dan+20 Fig. 2)."""
    input:
        ranks=rules.rank_collapse_simulate_depth_rank.output.tensor,
    output:
        pdf="figures/rank_collapse/fig2.pdf",
        png=report(
            "figures/rank_collapse/fig2.png",
            caption="../report/rank_collapse/fig2.rst",
            category="rank_collapse",
        ),
        csv="results/rank_collapse/fig2.csv",
    log:
        "logs/rank_collapse/fig2.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=lookup(within=config, dpath="rank_collapse/depth_rank"),
    script:
        "../scripts/rank_collapse/fig2.py"


rule rank_collapse_check_fig2:
    """Claims of Dan+20 Fig. 2: BN rank >= sqrt(d) at every depth; vanilla rank -> 1."""
    input:
        table=rules.rank_collapse_fig2.output.csv,
    output:
        claims="results/claims/rank_collapse/fig2.json",
    log:
        "logs/rank_collapse/check_fig2.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.rank_collapse:fig2_claims",
        arguments={
            "width": lookup(within=config, dpath="rank_collapse/depth_rank/width"),
            "vanilla_rank_tolerance": lookup(
                within=config, dpath="rank_collapse/fig2/vanilla_rank_tolerance"
            ),
        },
        figure=rules.rank_collapse_fig2.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"
