"""What a run actually was: its scale, derived from the merged config, and where that came from.

The ``scale`` label of every claim and caption is not a free config key: it is ``quick`` when
the merged config equals ``config/config.yaml``, ``paper`` when it equals ``config/paper.yaml``
merged over it, and ``custom`` otherwise (a tiny test config, a ``--config`` override, an
edited value). The run record also names the config files, the sha256 of the merged config, the
git revision and whether the working tree was dirty; the ledger and the report show them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from ..base.config import merge_configs
from ..base.store import git_revision

__all__ = ["config_sha256", "item_scale", "reference_configs", "run_record"]

SCALES = {"quick": ("config.yaml",), "paper": ("config.yaml", "paper.yaml")}
"""The two named scales: the config files that define each, merged in order."""


def _canonical(config: Mapping) -> dict:
    return {k: v for k, v in config.items() if k != "scale"}


def config_sha256(config: Mapping) -> str:
    """sha256 of the merged config (``scale`` aside), in canonical JSON."""
    text = json.dumps(_canonical(config), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML has it: the pure-Python one took a fifth of a dry run."""


def _read(path: Path) -> dict:
    return yaml.load(path.read_text(), Loader=_LOADER) or {}


def reference_configs(config_dir: str | Path) -> dict[str, dict]:
    """The merged config of each named scale (``SCALES``), read from ``config_dir`` (each file
    once)."""
    config_dir = Path(config_dir)
    files = {file: _read(config_dir / file) for names in SCALES.values() for file in names}
    references = {}
    for name, names in SCALES.items():
        reference: dict = {}
        for file in names:
            reference = merge_configs(reference, files[file])
        references[name] = reference
    return references


def item_scale(registry, family: str, item, config: Mapping, references: Mapping) -> str:
    """The scale label of one item's claims, from its own config slice
    (``Registry.item_slice``): ``paper`` when the slice equals the paper config's (also when
    quick and paper agree on it: the claim then ran at the seed's own settings), ``quick``
    when it equals the quick config's, ``custom`` otherwise. An override of one key relabels
    (and reruns the judges of) only the items that read it."""
    mine = registry.item_slice(family, item, config)
    for name in ("paper", "quick"):
        try:
            if registry.item_slice(family, item, references[name]) == mine:
                return name
        except (KeyError, TypeError):  # the reference config lacks a key this run has
            continue
    return "custom"


def run_record(
    config: Mapping,
    configfiles: Sequence[str],
    config_dir: str | Path,
    overrides: bool = False,
    references: Mapping[str, Mapping] | None = None,
) -> dict:
    """The run's scale (quick, paper or custom), config files, config sha256 and git state.
    ``references``: ``reference_configs(config_dir)``, when already read."""
    config_dir = Path(config_dir)
    references = references if references is not None else reference_configs(config_dir)
    scale = "custom"
    for name in SCALES:
        if _canonical(references[name]) == _canonical(config):
            scale = name
            break
    revision = git_revision(config_dir)
    return {
        "scale": scale,
        "configfiles": [str(f) for f in configfiles],
        "config_overrides": bool(overrides),
        "config_sha256": config_sha256(config),
        "git_revision": revision,
        "git_dirty": bool(revision and revision.endswith("-dirty")),
    }
