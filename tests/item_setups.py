"""Theorem items run as the workflow runs them, from the quick config, for tests that shrink a
few of its sizes.

The measurements and judges take every config value as a required argument (the config is the
one place of those values); a test overrides only what it changes.
"""

import io
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from sigprop.base.registry import resolve, theorem_setup
from sigprop.papers import load_registry
from sigprop.pipeline.jobs import read_table

QUICK = yaml.safe_load((Path(__file__).resolve().parents[1] / "config" / "config.yaml").read_text())


def quick_slice(family: str, item: str, **over) -> dict:
    """The quick config's section of ``family/item`` (what its judge reads), ``over`` replacing
    keys."""
    return {**resolve(None, QUICK, default=f"{family}/{item}"), **over}


def quick_setup(family: str, item: str, **over) -> dict:
    """``theorem_setup`` of ``family/item`` under the quick config, ``over`` replacing keys."""
    theorem = load_registry().get(family, item, "theorem")
    return {**theorem_setup(family, theorem, QUICK), **over}


@dataclass
class Checked:
    """A theorem item measured and judged as the workflow does it: the table through a CSV."""

    table: pd.DataFrame
    claims: list


def run_theorem(family: str, item: str, **over) -> Checked:
    """Measure ``family/item`` at the quick slice with ``over`` (less its tolerances), read the
    table back from CSV and judge it with the whole slice (less ``device``)."""
    theorem = load_registry().get(family, item, "theorem")
    settings = quick_slice(family, item, **over)
    buffer = io.StringIO()
    setup = {k: v for k, v in settings.items() if k not in theorem.tolerances}
    theorem.measure(**setup).to_csv(buffer, index=False)
    buffer.seek(0)
    table = read_table(buffer)
    return Checked(
        table, theorem.judge(table, **{k: v for k, v in settings.items() if k != "device"})
    )
