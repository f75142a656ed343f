"""The claims ledger: every verdict in one table, for readers and for the report."""


rule claims_ledger:
    """Collect all claims into results/claims.csv and a readable results/claims.md."""
    input:
        claims=get_claims(),
        findings=get_findings(),
    output:
        csv=report(
            "results/claims.csv",
            caption="../report/claims.rst",
            category="claims",
        ),
        md="results/claims.md",
    log:
        "logs/report/claims_ledger.log",
    benchmark:
        "benchmarks/report/claims_ledger.tsv"
    conda:
        "../../envs/sigprop.yaml"
    params:
        run=RUN,
    script:
        "../scripts/report/claims_ledger.py"
