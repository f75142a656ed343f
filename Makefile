# Two entry points for a fresh machine (Python >= 3.11 on PATH as python3):
#   make all    install into .venv, then run the whole DAG at quick scale
#   make test   install into .venv (with test tools), then run the test suite in two phases:
#               every test but the quick DAG's on parallel workers (the cluster tests, on a
#               one-node SLURM they start where one can start, in a process of their own beside
#               them), then the quick DAG alone and the tests that read it
# Everything else is plain Snakemake: see README.md.

VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
# every core of this machine: more concurrent jobs than cores only add start-up contention
CORES ?= all
# pytest-xdist workers of the first test phase: one per core; tests are handed out one by one
# and stolen by an idle worker, so the paper-shape smoke's minute-long items spread out
TEST_WORKERS ?= $(shell nproc)

.PHONY: all test lint bench golden smoke clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

all: $(VENV)/.installed
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores $(CORES) all

# Phase 1 runs everything that does not read the quick DAG, its files spread over the workers,
# and beside them, in one process (one SLURM a machine), the cluster tests, which mostly wait
# for SLURM (their output follows the workers'); phase 2 runs the quick DAG alone (its
# Snakemake uses every core) and the tests that read it. All parts always run; the first
# failure's status is the target's.
CLUSTER_LOG := .pytest-cluster.log

test: $(VENV)/.installed
	export PATH="$(abspath $(BIN)):$$PATH"; \
	$(BIN)/python -m pytest -m "cluster and not quick_dag" > $(CLUSTER_LOG) 2>&1 & cluster=$$!; \
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not quick_dag and not cluster"; \
	first=$$?; wait $$cluster; clustered=$$?; cat $(CLUSTER_LOG); rm -f $(CLUSTER_LOG); \
	$(BIN)/python -m pytest -m quick_dag; second=$$?; \
	for status in $$first $$clustered $$second; do [ $$status -eq 0 ] || exit $$status; done

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests bench workflow/scripts
	$(BIN)/ruff format --check src tests bench workflow/scripts
	$(BIN)/snakefmt --check Snakefile workflow/rules
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --lint

smoke: $(VENV)/.installed
	SIGPROP_PAPER_SMOKE=1 $(BIN)/python -m pytest tests/test_paper_smoke.py

golden: all
	$(BIN)/sigprop golden --write
	$(BIN)/sigprop summary --readme README.md --readme docs/items.md .test/golden/quick_claims.csv
	$(BIN)/python -m sigprop.pipeline.config_docs

bench: $(VENV)/.installed
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/engine.py all
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/paper_cost.py
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/training.py
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/training_cost.py
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/kernel_paths.py

clean:
	rm -rf results figures logs benchmarks .snakemake report.html
