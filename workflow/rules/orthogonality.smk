"""DJB21, "Batch normalization orthogonalizes representations" (seed 003; Thesis ch. 2)."""


rule orthogonality_simulate_cosine_pair:
    """|cos| of two samples per layer, BN and vanilla sharing weights (DJB21 Fig. 1, Thesis Fig. 2.1)."""
    output:
        tensor="results/orthogonality/cosine_pair.pt",
        meta="results/orthogonality/cosine_pair.json",
    log:
        "logs/orthogonality/simulate_cosine_pair.log",
    benchmark:
        "benchmarks/orthogonality/simulate_cosine_pair.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.orthogonality:cosine_pair",
        setup=lookup(within=config, dpath="orthogonality/cosine_pair"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule orthogonality_fig1:
    """|cos| of two samples vs layer, BN vs vanilla (DJB21 Fig. 1, Thesis Fig. 2.1)."""
    input:
        cosines=rules.orthogonality_simulate_cosine_pair.output.tensor,
    output:
        pdf="figures/orthogonality/fig1.pdf",
        png=report(
            "figures/orthogonality/fig1.png",
            caption="../../results/captions/orthogonality/fig1.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/fig1.csv",
    log:
        "logs/orthogonality/fig1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=lookup(within=config, dpath="orthogonality/cosine_pair"),
    script:
        "../scripts/orthogonality/fig1.py"


rule orthogonality_check_fig1:
    """Claims of DJB21 Fig. 1: BN orthogonalizes, vanilla aligns."""
    input:
        table=rules.orthogonality_fig1.output.csv,
        description="workflow/report/orthogonality/fig1.rst",
    output:
        claims="results/claims/orthogonality/fig1.json",
        caption="results/captions/orthogonality/fig1.rst",
    log:
        "logs/orthogonality/check_fig1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality:fig1_claims",
        arguments={
            "width": lookup(within=config, dpath="orthogonality/cosine_pair/width"),
            "vanilla_min_final_cosine": lookup(
                within=config, dpath="orthogonality/fig1/vanilla_min_final_cosine"
            ),
        },
        figure=rules.orthogonality_fig1.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_simulate_gap_chain:
    """V(H_l) per layer and width of the BN chain DJB21 Eq. (1), for Fig. 2a and 2b (Thesis Fig. 2.2)."""
    output:
        tensor="results/orthogonality/gap_chain.pt",
        meta="results/orthogonality/gap_chain.json",
    log:
        "logs/orthogonality/simulate_gap_chain.log",
    benchmark:
        "benchmarks/orthogonality/simulate_gap_chain.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.orthogonality:gap_chain",
        setup=lookup(within=config, dpath="orthogonality/gap_chain"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule orthogonality_fig2a:
    """log V(H_l) vs layer l for two widths (DJB21 Fig. 2a, Thesis Fig. 2.2a)."""
    input:
        gaps=rules.orthogonality_simulate_gap_chain.output.tensor,
    output:
        pdf="figures/orthogonality/fig2a.pdf",
        png=report(
            "figures/orthogonality/fig2a.png",
            caption="../../results/captions/orthogonality/fig2a.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/fig2a.csv",
    log:
        "logs/orthogonality/fig2a.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        widths=lookup(within=config, dpath="orthogonality/fig2a/widths"),
        layers=lookup(within=config, dpath="orthogonality/fig2a/layers"),
        chain=lookup(within=config, dpath="orthogonality/gap_chain"),
    script:
        "../scripts/orthogonality/fig2a.py"


rule orthogonality_check_fig2a:
    """Claims of DJB21 Fig. 2a: log V decays linearly, then plateaus."""
    input:
        table=rules.orthogonality_fig2a.output.csv,
        description="workflow/report/orthogonality/fig2a.rst",
    output:
        claims="results/claims/orthogonality/fig2a.json",
        caption="results/captions/orthogonality/fig2a.rst",
    log:
        "logs/orthogonality/check_fig2a.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality:fig2a_claims",
        arguments={
            "decay_window": lookup(within=config, dpath="orthogonality/fig2a/decay_window"),
            "plateau_window": lookup(within=config, dpath="orthogonality/fig2a/plateau_window"),
            "plateau_z": lookup(within=config, dpath="orthogonality/fig2a/plateau_z"),
        },
        figure=rules.orthogonality_fig2a.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_fig2b:
    """Layer-averaged V vs width d, log-log (DJB21 Fig. 2b, Thesis Fig. 2.2b)."""
    input:
        gaps=rules.orthogonality_simulate_gap_chain.output.tensor,
    output:
        pdf="figures/orthogonality/fig2b.pdf",
        png=report(
            "figures/orthogonality/fig2b.png",
            caption="../../results/captions/orthogonality/fig2b.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/fig2b.csv",
    log:
        "logs/orthogonality/fig2b.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        window=lookup(within=config, dpath="orthogonality/fig2b/window"),
        chain=lookup(within=config, dpath="orthogonality/gap_chain"),
    script:
        "../scripts/orthogonality/fig2b.py"


rule orthogonality_check_fig2b:
    """Claim of DJB21 Fig. 2b: the layer-averaged gap scales as d^{-1/2}."""
    input:
        table=rules.orthogonality_fig2b.output.csv,
        description="workflow/report/orthogonality/fig2b.rst",
    output:
        claims="results/claims/orthogonality/fig2b.json",
        caption="results/captions/orthogonality/fig2b.rst",
    log:
        "logs/orthogonality/check_fig2b.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality:fig2b_claims",
        arguments={
            "window": lookup(within=config, dpath="orthogonality/fig2b/window"),
            "slope_z": lookup(within=config, dpath="orthogonality/fig2b/slope_z"),
        },
        figure=rules.orthogonality_fig2b.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_check_theorem:
    """Theorem checks of DJB21 / Thesis ch. 2 without a figure of their own, one job per item of
    THEOREMS["orthogonality"]: measured table and claims."""
    output:
        table=report(
            "results/orthogonality/{item}.csv",
            caption="../report/orthogonality/theorem.rst",
            category="orthogonality",
            subcategory="theorem checks",
        ),
        claims="results/claims/orthogonality/{item}.json",
    log:
        "logs/orthogonality/check_{item}.log",
    benchmark:
        "benchmarks/orthogonality/check_{item}.tsv"
    wildcard_constraints:
        item="|".join(THEOREMS["orthogonality"]),
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        check=lookup(within=THEOREMS, dpath="orthogonality/{item}"),
        arguments=lookup(within=config, dpath="orthogonality/{item}"),
        device=config["device"],
        scale=config["scale"],
    script:
        "../scripts/theorem.py"


rule orthogonality_simulate_init_mlp:
    """V(H_l) per layer of a deep ReLU MLP at initialization: Xavier, iterative orthogonalization,
    orthogonal weights (DJB21 Sec. 5.2, Eq. (6); Thesis Eq. (2.6), App. A.5 (i))."""
    output:
        tensor="results/orthogonality/init_mlp.pt",
        meta="results/orthogonality/init_mlp.json",
    log:
        "logs/orthogonality/simulate_init_mlp.log",
    benchmark:
        "benchmarks/orthogonality/simulate_init_mlp.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.orthogonality_init:init_gap",
        setup=lookup(within=config, dpath="orthogonality/init_mlp"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule orthogonality_init_gap:
    """V(H_l) vs layer at initialization, Xavier vs iterative orthogonalization vs orthogonal
    weights, init and independent batch (DJB21 Sec. 5.2; Thesis Sec. 2.4, App. A.5)."""
    input:
        gaps=rules.orthogonality_simulate_init_mlp.output.tensor,
    output:
        pdf="figures/orthogonality/init_gap.pdf",
        png=report(
            "figures/orthogonality/init_gap.png",
            caption="../../results/captions/orthogonality/init_gap.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/init_gap.csv",
    log:
        "logs/orthogonality/init_gap.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=lookup(within=config, dpath="orthogonality/init_mlp"),
    script:
        "../scripts/orthogonality/init_gap.py"


rule orthogonality_check_init_gap:
    """Claims of figure init_gap: iterative orthogonalization keeps V small where Xavier and
    orthogonal weights align."""
    input:
        table=rules.orthogonality_init_gap.output.csv,
        description="workflow/report/orthogonality/init_gap.rst",
    output:
        claims="results/claims/orthogonality/init_gap.json",
        caption="results/captions/orthogonality/init_gap.rst",
    log:
        "logs/orthogonality/check_init_gap.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality_init:init_gap_claims",
        arguments=lookup(within=config, dpath="orthogonality/init_gap"),
        figure=rules.orthogonality_init_gap.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"
