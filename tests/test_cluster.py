"""The cluster path on a real one-node SLURM (issue 25): the whole quick DAG ran through
``profiles/slurm`` with site settings as overrides (``quick_run``, conftest.py). Its verdicts
equal the golden local run's (``test_workflow.test_quick_scale_reproduces_its_verdicts``), a
local rerun of its items is byte for byte its files
(``test_workflow.test_a_local_rerun_of_the_quick_runs_items_is_bit_identical``), and nothing
is left to do after it (``test_workflow.test_second_run_has_nothing_to_do``); here: what went
to the cluster.

Skipped where no one-node SLURM can start (no slurm-wlm/munge and no apt-get, no root, or
another cluster's config installed); ``SIGPROP_QUICK_DAG=slurm`` makes that a failure.
"""

import json

import pandas as pd
import pytest


def _record(quick_run) -> dict:
    record = json.loads((quick_run / "quick_run.json").read_text())
    if record["executor"] != "slurm":
        pytest.skip(f"the quick DAG ran locally: {record['why_local']}")
    return record


@pytest.mark.workflow
def test_every_compute_job_and_nothing_else_went_to_the_cluster(quick_run):
    """Each simulate and measure job once: submitted, or, projected under a minute on one core
    (``job_resources.TINY_SECONDS``), run on the submitting machine like the judges, figures,
    tables, the ledger and the data rule (``localrules``)."""
    record = _record(quick_run)
    jobs = pd.read_csv(quick_run / "results" / "benchmarks.csv")
    compute = jobs[jobs["rule"].isin(["simulate", "measure"])]
    expected = []
    for job, rule in zip(compute["job"], compute["rule"], strict=True):
        family, name = job.split("/")  # the benchmark's name, e.g. orthogonality/simulate_gap_chain
        expected.append((rule, f"{family}_{name.removeprefix(f'{rule}_')}"))
    ran = [(folder.removeprefix("rule_"), job) for folder, job in record["submitted"]]
    ran += [(rule.removesuffix("_tiny"), job) for rule, job in record["local"]]
    assert len(compute) > 50
    assert sorted(ran) == sorted(expected)
    assert len(record["submitted"]) >= 10 and len(record["local"]) >= 30


@pytest.mark.workflow
def test_cluster_jobs_ran_on_the_device_the_site_asked_for(quick_run):
    """The site override ``device=auto`` (this node has no GPU) reached the jobs: they ran on
    the CPU, and the override did not relabel the claims' scale (a device is where an item runs,
    not what it computes)."""
    _record(quick_run)
    meta = json.loads((quick_run / "results" / "orthogonality" / "gap_chain.json").read_text())
    assert meta["device"] == "cpu"
    ledger = pd.read_csv(quick_run / "results" / "claims.csv")
    assert set(ledger["scale"]) == {"quick", "paper"}
