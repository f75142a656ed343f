"""Thesis ch. 3 and app. B (Joudaki 2024): mean-field Gram dynamics of BN-MLPs at finite width."""


rule mean_field_simulate_gram_chain:
    """||G_l - G_*||_F per network, n, d, run and layer of the BN-MLP Eq. (3.1) (Thesis Figs. 3.1-3.4)."""
    output:
        tensor="results/mean_field/gram_chain.pt",
        meta="results/mean_field/gram_chain.json",
    log:
        "logs/mean_field/simulate_gram_chain.log",
    benchmark:
        "benchmarks/mean_field/simulate_gram_chain.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.mean_field:gram_chain",
        setup=lookup(within=config, dpath="mean_field/gram_chain"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule mean_field_fig3_1:
    """Distance to the mean-field Gram vs layer, with and without BN (Thesis Fig. 3.1)."""
    input:
        chain=rules.mean_field_simulate_gram_chain.output.tensor,
    output:
        pdf="figures/mean_field/fig3_1.pdf",
        png=report(
            "figures/mean_field/fig3_1.png",
            caption="../../results/captions/mean_field/fig3_1.rst",
            category="mean_field",
        ),
        csv="results/mean_field/fig3_1.csv",
    log:
        "logs/mean_field/fig3_1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        fig=lookup(within=config, dpath="mean_field/fig3_1"),
    script:
        "../scripts/mean_field/fig3_1.py"


rule mean_field_check_fig3_1:
    """Claims of Thesis Fig. 3.1: no-BN distance grows, BN distance shrinks."""
    input:
        table=rules.mean_field_fig3_1.output.csv,
        description="workflow/report/mean_field/fig3_1.rst",
    output:
        claims="results/claims/mean_field/fig3_1.json",
        caption="results/captions/mean_field/fig3_1.rst",
    log:
        "logs/mean_field/check_fig3_1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.mean_field:fig3_1_claims",
        arguments={
            "z": lookup(within=config, dpath="mean_field/fig3_1/z"),
        },
        figure=rules.mean_field_fig3_1.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule mean_field_fig3_2:
    """Decay of ||G_l - G_*||_F to a plateau per activation, fitted shape (Thesis Fig. 3.2)."""
    input:
        chain=rules.mean_field_simulate_gram_chain.output.tensor,
    output:
        pdf="figures/mean_field/fig3_2.pdf",
        png=report(
            "figures/mean_field/fig3_2.png",
            caption="../../results/captions/mean_field/fig3_2.rst",
            category="mean_field",
        ),
        csv="results/mean_field/fig3_2.csv",
    log:
        "logs/mean_field/fig3_2.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        fig=lookup(within=config, dpath="mean_field/fig3_2"),
    script:
        "../scripts/mean_field/fig3_2.py"


rule mean_field_check_fig3_2:
    """Claims of Thesis Fig. 3.2: decay to a flat plateau."""
    input:
        table=rules.mean_field_fig3_2.output.csv,
        description="workflow/report/mean_field/fig3_2.rst",
    output:
        claims="results/claims/mean_field/fig3_2.json",
        caption="results/captions/mean_field/fig3_2.rst",
    log:
        "logs/mean_field/check_fig3_2.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.mean_field:fig3_2_claims",
        arguments={
            "batch_size": lookup(within=config, dpath="mean_field/fig3_2/batch_size"),
            "width": max(config["mean_field"]["gram_chain"]["widths"]),
            "plateau_from": lookup(within=config, dpath="mean_field/fig3_2/plateau_from"),
            "z": lookup(within=config, dpath="mean_field/fig3_2/z"),
        },
        figure=rules.mean_field_fig3_2.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule mean_field_fig3_3:
    """||G_20 - G_*||_F vs width d, log-log (Thesis Fig. 3.3)."""
    input:
        chain=rules.mean_field_simulate_gram_chain.output.tensor,
    output:
        pdf="figures/mean_field/fig3_3.pdf",
        png=report(
            "figures/mean_field/fig3_3.png",
            caption="../../results/captions/mean_field/fig3_3.rst",
            category="mean_field",
        ),
        csv="results/mean_field/fig3_3.csv",
    log:
        "logs/mean_field/fig3_3.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        fig=lookup(within=config, dpath="mean_field/fig3_3"),
    script:
        "../scripts/mean_field/fig3_3.py"


rule mean_field_check_fig3_3:
    """Claims of Thesis Fig. 3.3: slope -1/2 in d."""
    input:
        table=rules.mean_field_fig3_3.output.csv,
        description="workflow/report/mean_field/fig3_3.rst",
    output:
        claims="results/claims/mean_field/fig3_3.json",
        caption="results/captions/mean_field/fig3_3.rst",
    log:
        "logs/mean_field/check_fig3_3.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.mean_field:fig3_3_claims",
        arguments={
            "z": lookup(within=config, dpath="mean_field/fig3_3/z"),
        },
        figure=rules.mean_field_fig3_3.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule mean_field_fig3_4:
    """||G_20 - G_*||_F vs batch size n, log-log (Thesis Fig. 3.4)."""
    input:
        chain=rules.mean_field_simulate_gram_chain.output.tensor,
    output:
        pdf="figures/mean_field/fig3_4.pdf",
        png=report(
            "figures/mean_field/fig3_4.png",
            caption="../../results/captions/mean_field/fig3_4.rst",
            category="mean_field",
        ),
        csv="results/mean_field/fig3_4.csv",
    log:
        "logs/mean_field/fig3_4.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        fig=lookup(within=config, dpath="mean_field/fig3_4"),
    script:
        "../scripts/mean_field/fig3_4.py"


rule mean_field_check_fig3_4:
    """Claims of Thesis Fig. 3.4: about linear growth in n."""
    input:
        table=rules.mean_field_fig3_4.output.csv,
        description="workflow/report/mean_field/fig3_4.rst",
    output:
        claims="results/claims/mean_field/fig3_4.json",
        caption="results/captions/mean_field/fig3_4.rst",
    log:
        "logs/mean_field/check_fig3_4.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.mean_field:fig3_4_claims",
        arguments={
            "z": lookup(within=config, dpath="mean_field/fig3_4/z"),
            "allowance": lookup(within=config, dpath="mean_field/fig3_4/allowance"),
        },
        figure=rules.mean_field_fig3_4.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"
