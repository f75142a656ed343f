# Two entry points for a fresh machine (Python >= 3.11 on PATH as python3):
#   make all    install into .venv, then run the whole DAG at quick scale
#   make test   install into .venv (with test tools), then run the test suite
# Everything else is plain Snakemake: see README.md.

VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
# every core of this machine: more concurrent jobs than cores only add start-up contention
CORES ?= all

.PHONY: all test lint bench golden smoke clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

all: $(VENV)/.installed
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores $(CORES) all

test: $(VENV)/.installed
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests bench workflow/scripts
	$(BIN)/ruff format --check src tests bench workflow/scripts
	$(BIN)/snakefmt --check Snakefile workflow/rules
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --lint

smoke: $(VENV)/.installed
	SIGPROP_PAPER_SMOKE=1 $(BIN)/python -m pytest tests/test_paper_smoke.py

golden: all
	$(BIN)/sigprop golden --write
	$(BIN)/sigprop summary --readme README.md .test/golden/quick_claims.csv
	$(BIN)/python -m sigprop.config_docs

bench: $(VENV)/.installed
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/engine.py all
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/paper_cost.py
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/training.py
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/training_cost.py
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python bench/kernel_paths.py

clean:
	rm -rf results figures logs benchmarks .snakemake report.html
