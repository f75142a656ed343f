"""What runs the items: the generic simulate, measure and judge steps that the Snakemake
scripts call (``jobs``), where each job runs and what it asks a cluster for, from the cost
table shipped here (``job_resources``, ``cost_table.csv``), code fingerprints (``fingerprint``),
what a run was (``run_info``), where its time went (``job_benchmarks``), more runs for undecided
claims (``decide``), the config's documentation (``config_docs``), the paper-shape smoke cut
(``paper_smoke``). The families' functions are reached by name through the registry.

May import: ``base``, ``engine``, ``datasets``, ``nets``, ``training``, ``verdicts``,
``papers``."""
