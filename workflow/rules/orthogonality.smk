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
        paper_window=lookup(within=config, dpath="orthogonality/fig2b/paper_window"),
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
            "paper_window": lookup(within=config, dpath="orthogonality/fig2b/paper_window"),
            "paper_slope": lookup(within=config, dpath="orthogonality/fig2b/paper_slope"),
            "paper_slope_rounding": lookup(
                within=config, dpath="orthogonality/fig2b/paper_slope_rounding"
            ),
        },
        figure=rules.orthogonality_fig2b.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_simulate_a1_grid:
    """Assumption A_1(0.1 alpha_0, 1000) per run on an (n, d) grid, BN chain DJB21 Eq. (1) (Thesis Fig. 2.3)."""
    output:
        tensor="results/orthogonality/a1_grid.pt",
        meta="results/orthogonality/a1_grid.json",
    log:
        "logs/orthogonality/simulate_a1_grid.log",
    benchmark:
        "benchmarks/orthogonality/simulate_a1_grid.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.orthogonality_assumption:a1_grid",
        setup=lookup(within=config, dpath="orthogonality/a1_grid"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule orthogonality_fig2_3:
    """Pass/fail map of A_1(0.1 alpha_0, 1000) over (n, d) with the printed and fitted boundaries (Thesis Fig. 2.3)."""
    input:
        grid=rules.orthogonality_simulate_a1_grid.output.tensor,
    output:
        pdf="figures/orthogonality/fig2_3.pdf",
        png=report(
            "figures/orthogonality/fig2_3.png",
            caption="../../results/captions/orthogonality/fig2_3.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/fig2_3.csv",
    log:
        "logs/orthogonality/fig2_3.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        min_fit_points=lookup(within=config, dpath="orthogonality/fig2_3/min_fit_points"),
        n2_constant=lookup(within=config, dpath="orthogonality/fig2_3/n2_constant"),
        grid=lookup(within=config, dpath="orthogonality/a1_grid"),
    script:
        "../scripts/orthogonality/fig2_3.py"


rule orthogonality_check_fig2_3:
    """Claims of Thesis Fig. 2.3: boundary exponent vs 2 and 1.8, the printed curve, d >= C n^2, monotonicity."""
    input:
        table=rules.orthogonality_fig2_3.output.csv,
        description="workflow/report/orthogonality/fig2_3.rst",
    output:
        claims="results/claims/orthogonality/fig2_3.json",
        caption="results/captions/orthogonality/fig2_3.rst",
    log:
        "logs/orthogonality/check_fig2_3.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality_assumption:fig2_3_claims",
        arguments={
            "threshold": lookup(within=config, dpath="orthogonality/a1_grid/threshold"),
            "depth": lookup(within=config, dpath="orthogonality/a1_grid/depth"),
            "min_fit_points": lookup(within=config, dpath="orthogonality/fig2_3/min_fit_points"),
            "n2_constant": lookup(within=config, dpath="orthogonality/fig2_3/n2_constant"),
        },
        figure=rules.orthogonality_fig2_3.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_simulate_real_gap:
    """V before each block of random ReLU nets (MLP, ConvNet) on real images, torch BN vs none (DJB21 Fig. 5)."""
    output:
        tensor="results/orthogonality/real_gap.pt",
        meta="results/orthogonality/real_gap.json",
    log:
        "logs/orthogonality/simulate_real_gap.log",
    benchmark:
        "benchmarks/orthogonality/simulate_real_gap.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.orthogonality_real:real_gap",
        setup=lookup(within=config, dpath="orthogonality/real_gap"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule orthogonality_fig5:
    """V per layer, BN vs vanilla, (a) ReLU MLP and (b) ConvNet, mean +- SD over batches (DJB21 Fig. 5)."""
    input:
        gaps=rules.orthogonality_simulate_real_gap.output.tensor,
    output:
        pdf="figures/orthogonality/fig5.pdf",
        png=report(
            "figures/orthogonality/fig5.png",
            caption="../../results/captions/orthogonality/fig5.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/fig5.csv",
    log:
        "logs/orthogonality/fig5.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=lookup(within=config, dpath="orthogonality/real_gap"),
    script:
        "../scripts/orthogonality/fig5.py"


rule orthogonality_check_fig5:
    """Claims of DJB21 Fig. 5: the vanilla gap grows, the BN gap falls to a depth-independent level."""
    input:
        table=rules.orthogonality_fig5.output.csv,
        description="workflow/report/orthogonality/fig5.rst",
    output:
        claims="results/claims/orthogonality/fig5.json",
        caption="results/captions/orthogonality/fig5.rst",
    log:
        "logs/orthogonality/check_fig5.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality_real:fig5_claims",
        arguments={
            "batch_size": lookup(within=config, dpath="orthogonality/real_gap/batch_size"),
            "growth_window": lookup(within=config, dpath="orthogonality/fig5/growth_window"),
            "plateau_window": lookup(within=config, dpath="orthogonality/fig5/plateau_window"),
            "z": lookup(within=config, dpath="orthogonality/fig5/z"),
            "float_tolerance": lookup(within=config, dpath="orthogonality/fig5/float_tolerance"),
        },
        figure=rules.orthogonality_fig5.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_simulate_gaussian_chain:
    """BN chain DJB21 Eq. (1) from Gaussian H_0 over (n, d): V, sigma_n, conditional W2^2 and Gram
    off-diagonals per run and layer, for Thm. 1, Lemma 2, Cor. 3 and Table 1 (Thesis 2.1-2.3)."""
    output:
        tensor="results/orthogonality/gaussian_chain.pt",
        meta="results/orthogonality/gaussian_chain.json",
    log:
        "logs/orthogonality/simulate_gaussian_chain.log",
    benchmark:
        "benchmarks/orthogonality/simulate_gaussian_chain.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.orthogonality_gaussian:gaussian_chain",
        setup=lookup(within=config, dpath="orthogonality/gaussian_chain"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule orthogonality_thm1:
    """E V(H_l) vs layer with both readings of the Thm. 1 bound; plateau vs d and n (DJB21 Thm. 1,
    Thesis Thm. 2.1)."""
    input:
        chain=rules.orthogonality_simulate_gaussian_chain.output.tensor,
    output:
        pdf="figures/orthogonality/thm1.pdf",
        png=report(
            "figures/orthogonality/thm1.png",
            caption="../../results/captions/orthogonality/thm1.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/thm1.csv",
    log:
        "logs/orthogonality/thm1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        widths=lookup(within=config, dpath="orthogonality/thm1/widths"),
        decay_window=lookup(within=config, dpath="orthogonality/thm1/decay_window"),
        plateau_window=lookup(within=config, dpath="orthogonality/thm1/plateau_window"),
        chain=lookup(within=config, dpath="orthogonality/gaussian_chain"),
    script:
        "../scripts/orthogonality/thm1.py"


rule orthogonality_check_thm1:
    """Claims of DJB21 Thm. 1: both bounds hold; decay, plateau, plateau exponents in d and n."""
    input:
        table=rules.orthogonality_thm1.output.csv,
        description="workflow/report/orthogonality/thm1.rst",
    output:
        claims="results/claims/orthogonality/thm1.json",
        caption="results/captions/orthogonality/thm1.rst",
    log:
        "logs/orthogonality/check_thm1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality_gaussian:thm1_claims",
        arguments={
            "widths": lookup(within=config, dpath="orthogonality/thm1/widths"),
            "decay_window": lookup(within=config, dpath="orthogonality/thm1/decay_window"),
            "plateau_window": lookup(within=config, dpath="orthogonality/thm1/plateau_window"),
            "z": lookup(within=config, dpath="orthogonality/thm1/z"),
            "n_exponent_tolerance": lookup(
                within=config, dpath="orthogonality/thm1/n_exponent_tolerance"
            ),
        },
        figure=rules.orthogonality_thm1.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_w2_depth:
    """W2^2 to the Gaussian vs depth: Gelbrich lower bound, exact conditional upper bound, Lemma 2
    and Cor. 3 (DJB21 Lemma 2, Cor. 3; Thesis Lemma 2.2, Cor. 2.3)."""
    input:
        chain=rules.orthogonality_simulate_gaussian_chain.output.tensor,
    output:
        pdf="figures/orthogonality/w2_depth.pdf",
        png=report(
            "figures/orthogonality/w2_depth.png",
            caption="../../results/captions/orthogonality/w2_depth.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/w2_depth.csv",
    log:
        "logs/orthogonality/w2_depth.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        widths=lookup(within=config, dpath="orthogonality/w2_depth/widths"),
        chain=lookup(within=config, dpath="orthogonality/gaussian_chain"),
    script:
        "../scripts/orthogonality/w2_depth.py"


rule orthogonality_check_w2_depth:
    """Claims of DJB21 Lemma 2 and Cor. 3: the W2^2 sandwich and both Cor. 3 readings hold."""
    input:
        table=rules.orthogonality_w2_depth.output.csv,
        description="workflow/report/orthogonality/w2_depth.rst",
    output:
        claims="results/claims/orthogonality/w2_depth.json",
        caption="results/captions/orthogonality/w2_depth.rst",
    log:
        "logs/orthogonality/check_w2_depth.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality_gaussian:w2_depth_claims",
        arguments={
            "plateau_from": lookup(within=config, dpath="orthogonality/w2_depth/plateau_from"),
            "float_tolerance": lookup(
                within=config, dpath="orthogonality/w2_depth/float_tolerance"
            ),
        },
        figure=rules.orthogonality_w2_depth.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_w2_width:
    """Plateau W2 radius to the Gaussian vs width, log-log (DJB21 Table 1 and Cor. 3, Thesis
    Table 2.1)."""
    input:
        chain=rules.orthogonality_simulate_gaussian_chain.output.tensor,
    output:
        pdf="figures/orthogonality/w2_width.pdf",
        png=report(
            "figures/orthogonality/w2_width.png",
            caption="../../results/captions/orthogonality/w2_width.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/w2_width.csv",
    log:
        "logs/orthogonality/w2_width.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        window=lookup(within=config, dpath="orthogonality/w2_width/window"),
        chain=lookup(within=config, dpath="orthogonality/gaussian_chain"),
    script:
        "../scripts/orthogonality/w2_width.py"


rule orthogonality_check_w2_width:
    """Claims of DJB21 Table 1: the plateau W2 radius is O(d^{-1/4}) for every n."""
    input:
        table=rules.orthogonality_w2_width.output.csv,
        description="workflow/report/orthogonality/w2_width.rst",
    output:
        claims="results/claims/orthogonality/w2_width.json",
        caption="results/captions/orthogonality/w2_width.rst",
    log:
        "logs/orthogonality/check_w2_width.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality_gaussian:w2_width_claims",
        arguments={
            "max_exponent": lookup(within=config, dpath="orthogonality/w2_width/max_exponent"),
            "z": lookup(within=config, dpath="orthogonality/w2_width/z"),
        },
        figure=rules.orthogonality_w2_width.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_table1:
    """Distribution of representations, vanilla vs BN, with the BN row's measured W2 radius
    exponent (DJB21 Table 1, Thesis Table 2.1)."""
    input:
        plateau=rules.orthogonality_w2_width.output.csv,
    output:
        csv=report(
            "results/orthogonality/table1.csv",
            caption="../../results/captions/orthogonality/table1.rst",
            category="orthogonality",
        ),
        md="results/orthogonality/table1.md",
    log:
        "logs/orthogonality/table1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        batch_size=lookup(within=config, dpath="orthogonality/table1/batch_size"),
    script:
        "../scripts/orthogonality/table1.py"


rule orthogonality_check_table1:
    """Claim of DJB21 Table 1: the BN row's measured W2 radius exponent is <= -1/4."""
    input:
        table=rules.orthogonality_table1.output.csv,
        description="workflow/report/orthogonality/table1.rst",
    output:
        claims="results/claims/orthogonality/table1.json",
        caption="results/captions/orthogonality/table1.rst",
    log:
        "logs/orthogonality/check_table1.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality_gaussian:table1_claims",
        arguments={
            "max_exponent": lookup(within=config, dpath="orthogonality/w2_width/max_exponent"),
            "z": lookup(within=config, dpath="orthogonality/w2_width/z"),
        },
        figure=rules.orthogonality_table1.output.md,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_simulate_conjecture_chain:
    """K and the layer-averaged L(Q) of the non-linear BN chain, per activation and width (DJB21 App. F, Fig. 6)."""
    output:
        tensor="results/orthogonality/conjecture_chain.pt",
        meta="results/orthogonality/conjecture_chain.json",
    log:
        "logs/orthogonality/simulate_conjecture_chain.log",
    benchmark:
        "benchmarks/orthogonality/simulate_conjecture_chain.tsv"
    conda:
        "../../envs/sigprop.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
        gpu=SIMULATION_GPUS,
    params:
        experiment="sigprop.experiments.orthogonality_conjecture:conjecture_chain",
        setup=lookup(within=config, dpath="orthogonality/conjecture_chain"),
        device=config["device"],
    script:
        "../scripts/simulate.py"


rule orthogonality_fig6:
    """log L-bar vs log d per activation, validating Conjecture F.1 (DJB21 Fig. 6, paper App. F)."""
    input:
        fluctuations=rules.orthogonality_simulate_conjecture_chain.output.tensor,
    output:
        pdf="figures/orthogonality/fig6.pdf",
        png=report(
            "figures/orthogonality/fig6.png",
            caption="../../results/captions/orthogonality/fig6.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/fig6.csv",
    log:
        "logs/orthogonality/fig6.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        main=lookup(within=config, dpath="orthogonality/fig6/main"),
        chain=lookup(within=config, dpath="orthogonality/conjecture_chain"),
    script:
        "../scripts/orthogonality/fig6.py"


rule orthogonality_check_fig6:
    """Claims of DJB21 App. F: L-bar ~ d^{-1/2} per activation, distinct curves, K's off-diagonal (F.2)."""
    input:
        table=rules.orthogonality_fig6.output.csv,
        description="workflow/report/orthogonality/fig6.rst",
    output:
        claims="results/claims/orthogonality/fig6.json",
        caption="results/captions/orthogonality/fig6.rst",
    log:
        "logs/orthogonality/check_fig6.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality_conjecture:fig6_claims",
        arguments=lookup(within=config, dpath="orthogonality/fig6"),
        figure=rules.orthogonality_fig6.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


rule orthogonality_drift:
    """E[V_hat(H_l+1) | H_l] vs V_hat(H_l) from fixed spectra, with the Theorem 5 bound and the
    Lemma 8 contraction (DJB21 Thm. 5, App. C; Thesis Thm. A.2). Data: the theorem5 Monte Carlo."""
    input:
        table="results/orthogonality/theorem5.csv",
    output:
        pdf="figures/orthogonality/drift.pdf",
        png=report(
            "figures/orthogonality/drift.png",
            caption="../../results/captions/orthogonality/drift.rst",
            category="orthogonality",
        ),
        csv="results/orthogonality/drift.csv",
    log:
        "logs/orthogonality/drift.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        setup=lookup(within=config, dpath="orthogonality/theorem5"),
    script:
        "../scripts/orthogonality/drift.py"


rule orthogonality_check_drift:
    """Claims of the drift figure: the Monte-Carlo means lie between the Lemma 8 value and the
    sharpened Theorem 5 bound."""
    input:
        table=rules.orthogonality_drift.output.csv,
        description="workflow/report/orthogonality/drift.rst",
    output:
        claims="results/claims/orthogonality/drift.json",
        caption="results/captions/orthogonality/drift.rst",
    log:
        "logs/orthogonality/check_drift.log",
    conda:
        "../../envs/sigprop.yaml"
    params:
        check="sigprop.checks.orthogonality_drift:drift_claims",
        arguments={"z": lookup(within=config, dpath="orthogonality/drift/z")},
        figure=rules.orthogonality_drift.output.pdf,
        scale=config["scale"],
    script:
        "../scripts/check.py"


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
