"""Every claim of the gradients family states why its tolerance, or the margin its bound
carries, is what it is (``claims.TOLERANCE_REASONS``): a record with a non-zero tolerance, or
whose bound or tolerance is a config judge argument (a number we chose), names its reason."""

from pathlib import Path

import pytest
import yaml

from sigprop.papers.gradients import batch_rank_judges as rank
from sigprop.papers.gradients import depth_judges as depth
from sigprop.papers.gradients import gain_judges as gain
from sigprop.papers.gradients import isometry_chain_judges as chain
from sigprop.papers.gradients import isometry_theorem_judges as iso
from sigprop.papers.gradients import jacobian_theorem_judges as jac
from sigprop.papers.gradients import training_judges as training
from sigprop.verdicts.claims import TOLERANCE_REASONS, Record

CONFIG = Path(__file__).resolve().parents[1] / "config" / "config.yaml"


def _config_keys(node) -> set[str]:
    """Every key under the family's config slice (the judge arguments among them)."""
    if not isinstance(node, dict):
        return set()
    return set(node) | {k for v in node.values() for k in _config_keys(v)}


CHOSEN = _config_keys(yaml.safe_load(CONFIG.read_text())["gradients"])

RECORDS: list[Record] = [
    *training.ACCURACY_RECORDS.values(),
    *training.CONTROL_RECORDS,
    *training.WEIGHT_RECORDS.values(),
    training.DEEPER_RECORD,
    *depth.FIG6_2,
    *depth.FIG6_3,
    *depth.FIG_C9,
    *depth.FIG_C10,
    gain.FIG6_5_EXPLODES,
    gain.FIG6_5_FLAT,
    gain.FIG6_5_BOUNDED,
    *gain.FIG_C1,
    *gain.FIG_C2,
    *chain.RECORDS,
    chain._decay_record(16),
    chain._authors_record(50),
    *iso.LEMMA6_2,
    *iso.THEOREM6_3,
    *iso.LEMMA_C8_C9,
    *jac.JACOBIAN,
    *jac.LEMMA_C11,
    *jac.CHAIN_RULE,
    *jac._c12_records(8),
    *jac._c14_records(8, True),
    *rank.TABLE_C1,
    rank._rank_record("fashion_mnist", 512),
    rank._cosine_record("fashion_mnist"),
]


def _chosen(field) -> bool:
    return isinstance(field, str) and field in CHOSEN


def _needs_reason(r: Record) -> bool:
    nonzero = not (isinstance(r.tolerance, int | float) and r.tolerance == 0)
    return nonzero or _chosen(r.bound) or _chosen(r.tolerance)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.id)
def test_every_tolerance_and_chosen_margin_states_its_reason(record):
    reason = record.tolerance_reason
    if _needs_reason(record):
        assert isinstance(reason, str) and reason, f"{record.id}: no tolerance_reason"
    if reason:
        category, _, words = reason.partition(":")
        assert category in TOLERANCE_REASONS and words.strip(), reason


def test_the_list_covers_every_chosen_number():
    """Each config judge argument that is a claim's bound or tolerance appears in some record."""
    used = {f for r in RECORDS for f in (r.bound, r.tolerance) if _chosen(f)}
    assert {"margin", "gap_ratio_bound", "min_fraction", "flat_slope", "min_slope",
            "max_excess", "rank_margin", "control_factor", "roundoff_units"} <= used  # fmt: skip
