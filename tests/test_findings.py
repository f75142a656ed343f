"""Every failing or fails-leaning paper claim of the committed ledgers has its finding."""

from pathlib import Path

import pandas as pd
import pytest

from sigprop.verdicts import findings

ROOT = Path(__file__).resolve().parents[1]
LEDGERS = (".test/golden/quick_claims.csv", "ledgers/quick_decided.csv", "ledgers/paper_cpu.csv")


def test_every_finding_is_well_formed():
    """Each family's file names its own claims, every required field, a known reading."""
    found = findings.load()
    assert found and {f["reading"] for f in found.values()} <= set(findings.READINGS)


@pytest.mark.parametrize("ledger", LEDGERS)
def test_every_failing_paper_claim_is_explained(ledger):
    """``sigprop findings`` has an analysis for each paper claim that fails or leans to failing:
    a finding about the paper, a finite-size effect or a claim read too strongly."""
    table = pd.read_csv(ROOT / ledger, keep_default_na=False, na_values=[""])
    needing = findings.needing_analysis(table)
    assert len(needing), f"{ledger}: no failing claim to explain (check the ledger's columns)"
    missing = sorted(set(needing["id"]) - set(findings.load()))
    assert not missing, f"{ledger}: failing or fails-leaning paper claims without a finding"
