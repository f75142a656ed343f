"""The cluster path on a real one-node SLURM (issue 25; ``one_node``, conftest.py): items of the
quick DAG through ``profiles/slurm`` with site settings as overrides (``SLURM_SITE``), one of
them a submitted compute job (Dan+20 Prop. 19's measurement), one a tiny chain run on the
submitting machine (DJB21 Fig. 2b's ``gap_chain``), and the whole quick DAG's placement by a
dry run through the profile. The cluster run computes the local run's bits, keeps the golden
verdicts and leaves nothing to do; the time-limit test (``test_time_limit.py``) submits a job
that SLURM stops and Snakemake resubmits. ``SIGPROP_QUICK_DAG=slurm`` runs the whole quick DAG
through the cluster instead of locally (``quick_run``).

Skipped where no one-node SLURM can start (no slurm-wlm/munge and no apt-get, no root, or
another cluster's config installed); ``SIGPROP_SLURM=require`` (CI) makes that a failure.
"""

import hashlib
import json
from pathlib import Path

import pytest
from conftest import SLURM_SITE, submitted_jobs
from workflow_copy import ROOT, copy_workflow, snakemake

from sigprop.cli import GOLDEN, compare_golden, read_ledger
from sigprop.verdicts import claims

ITEMS = ("rank_collapse.prop19", "orthogonality.fig2b")
"""A submitted measurement (projected over a minute at quick scale) and a figure whose chain is
projected under one (run where the workflow runs)."""

TARGETS = [f"results/claims/{item.replace('.', '/')}.json" for item in ITEMS]

OUTPUTS = ["results/rank_collapse/prop19.csv", "results/orthogonality/gap_chain.safetensors"]
"""The computed files of the two items (their sidecars hold times and hosts)."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def cluster_run(one_node, tmp_path_factory):
    """ITEMS through the one-node SLURM: (the workflow copy, the run's log)."""
    work = copy_workflow(tmp_path_factory.mktemp("cluster"))
    run = snakemake(work, *TARGETS, *SLURM_SITE, cores=None, env=one_node, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return work, run.stderr


@pytest.mark.workflow
def test_the_long_job_is_submitted_and_the_tiny_ones_run_here(cluster_run):
    """Only the compute job projected over a minute on one core (``job_resources.TINY_SECONDS``)
    is submitted; the tiny chain, the figure and the judges run on the submitting machine."""
    _, log = cluster_run
    jobs = submitted_jobs(log)
    assert jobs["submitted"] == [["rule_measure", "rank_collapse_prop19"]]
    assert jobs["local"] == [["simulate_tiny", "orthogonality_gap_chain"]]


@pytest.mark.workflow
def test_cluster_jobs_ran_on_the_device_the_site_asked_for(cluster_run):
    """The site override ``device=auto`` (this node has no GPU) reached the submitted job: it ran
    on the CPU, and the override did not relabel the claims' scale (a device is where an item
    runs, not what it computes)."""
    work, _ = cluster_run
    meta = json.loads((work / "results" / "rank_collapse" / "prop19.json").read_text())
    assert meta["device"] == "cpu"
    ledger = claims.ledger([work / t for t in TARGETS])
    assert set(ledger["scale"]) <= {"quick", "paper"} and len(ledger) >= 5


@pytest.mark.workflow
def test_the_cluster_run_keeps_the_golden_verdicts(cluster_run):
    work, _ = cluster_run
    ledger = claims.ledger([work / t for t in TARGETS])
    golden = read_ledger(ROOT / GOLDEN)
    golden = golden[golden["id"].str.startswith(tuple(f"{i}." for i in ITEMS))]
    assert set(golden["id"]) == set(ledger["id"])
    assert compare_golden(ledger, golden) == []


@pytest.mark.workflow
def test_a_local_run_of_the_same_items_is_bit_identical(cluster_run, tmp_path):
    """Bit-identity where it is guaranteed (the same items, code, config, machine and kernels):
    the local executor computes the cluster run's bytes."""
    work, _ = cluster_run
    local = copy_workflow(tmp_path)
    snakemake(local, *OUTPUTS)
    assert {f: _sha256(local / f) for f in OUTPUTS} == {f: _sha256(work / f) for f in OUTPUTS}


@pytest.mark.workflow
def test_a_second_run_through_the_cluster_has_nothing_to_do(cluster_run, one_node):
    work, _ = cluster_run
    run = snakemake(work, "-n", *TARGETS, *SLURM_SITE, cores=None, env=one_node)
    assert "Nothing to be done" in run.stdout + run.stderr


def _dry_run_jobs(log: str) -> dict[tuple[str, str], list[str]]:
    """(family, item) -> the rules of its compute jobs in a dry run's log, e.g. ``simulate`` for
    a simulation to submit, ``simulate_tiny`` for one to run where the workflow runs (a dry run
    calls every job a ``rule``; the real run's log says ``localrule``, as tested above)."""
    jobs: dict[tuple[str, str], list[str]] = {}
    rule = None
    for line in log.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] in ("rule", "localrule") and line[0] != " ":
            rule = words[1].rstrip(":")
        elif line.startswith("    wildcards: family=") and rule is not None:
            wildcards = dict(part.strip().split("=") for part in line.split(":", 1)[1].split(","))
            if rule.removesuffix("_tiny") in ("simulate", "measure"):
                jobs.setdefault((wildcards["family"], wildcards["item"]), []).append(rule)
            rule = None
    return jobs


@pytest.mark.workflow
def test_the_whole_quick_dag_submits_exactly_its_long_compute_jobs(one_node, tmp_path):
    """A dry run of the whole quick DAG through the profile: every simulate and measure job once,
    submitted (``simulate``, ``measure``) exactly where its quick-scale projection on one core
    (``quick_s`` of the cost table; unknown counts as long) is a minute or more, else run where
    the workflow runs."""
    from sigprop.pipeline.job_resources import TINY_SECONDS, cost_table, number

    work = copy_workflow(tmp_path)
    run = snakemake(work, "-n", "all", *SLURM_SITE, cores=None, env=one_node)
    jobs = _dry_run_jobs(run.stdout + run.stderr)
    costs = cost_table()  # the table shipped in the package, as the workflow's
    assert all(len(rules) == 1 for rules in jobs.values()), jobs
    kinds = {rules[0] for rules in jobs.values()}
    assert kinds == {"simulate", "measure", "simulate_tiny", "measure_tiny"}
    submitted = {key for key, rules in jobs.items() if not rules[0].endswith("_tiny")}
    long = set()
    for family, item in jobs:
        seconds = number(costs.get(f"{family}/{item}"), "quick_s")
        if not seconds < TINY_SECONDS:  # unknown (NaN) counts as long
            long.add((family, item))
    assert submitted == long
    assert len(submitted) >= 10 and len(jobs) - len(submitted) >= 30
