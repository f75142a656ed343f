"""Every orthogonality claim says why its tolerance, or the margin its bound carries, is what it
is (``claims.TOLERANCE_REASONS``), and the requirements name claims of the same judge."""

import importlib
import pkgutil

import pytest

import sigprop.papers.orthogonality as family
from sigprop.verdicts.claims import TOLERANCE_REASONS, Record

SEED_BOUNDS = {"max_exponent", "predicted", "printed", "floor"}
"""Bounds that name a number the seed prints or a theorem states (Table 1's -1/4, Lemma A.8's
rate and its printed form, the centred floor 1/sqrt(n(n-1))): no chosen margin."""


def family_records() -> list[tuple[str, Record]]:
    found = {}
    for info in pkgutil.iter_modules(family.__path__):
        if not info.name.endswith("judges"):
            continue
        module = importlib.import_module(f"{family.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, Record):
                found[id(value)] = (info.name, value)
            elif isinstance(value, (tuple, list)) and value:
                if all(isinstance(r, Record) for r in value):
                    found |= {id(r): (info.name, r) for r in value}
    return sorted(found.values(), key=lambda x: (x[0], x[1].id))


RECORDS = family_records()


def test_the_family_has_records():
    assert len(RECORDS) > 80


@pytest.mark.parametrize("module, record", RECORDS, ids=[f"{m}:{r.id}" for m, r in RECORDS])
def test_every_margin_states_its_reason(module, record):
    chosen_tolerance = record.tolerance != 0.0
    chosen_bound = isinstance(record.bound, str) and record.bound not in SEED_BOUNDS
    if record.kind == "identity" and not chosen_bound:
        return  # default: round_off (claims.DEFAULT_REASONS)
    if chosen_tolerance or chosen_bound:
        reason = record.tolerance_reason
        assert reason, f"{module}: {record.id} has a chosen margin and no tolerance_reason"
        category, _, words = reason.partition(":")
        assert category in TOLERANCE_REASONS and category != "none", reason
        assert len(words.split()) >= 8, reason


def test_requirements_name_records_of_the_same_module():
    ids = {}
    for module, record in RECORDS:
        ids.setdefault(module, set()).add(record.id)
    for module, record in RECORDS:
        for required in record.requires:
            assert required in ids[module], (module, record.id, required)
