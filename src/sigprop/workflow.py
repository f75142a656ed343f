"""Glue for Snakemake scripts: logging to the rule's log, and the generic simulate and check steps.

Scripts stay thin: ``log_to_file(snakemake.log[0])`` first, then read ``snakemake.input`` and
``snakemake.params``, call the library, write ``snakemake.output``.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import time

import pandas as pd
import torch

from . import claims, store
from .compute import resolve_device

__all__ = [
    "import_object",
    "log_to_file",
    "run_check",
    "run_simulation",
    "run_theorem",
    "write_caption",
]


def log_to_file(path: str | os.PathLike, level: int = logging.INFO) -> logging.Logger:
    """Send logging and stderr (warnings, tracebacks) to ``path``; return the ``sigprop`` logger."""
    stream = open(path, "w", buffering=1)  # noqa: SIM115 - lives as long as the script
    sys.stderr = stream
    logging.basicConfig(
        stream=stream,
        level=level,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        force=True,
    )
    return logging.getLogger("sigprop")


def import_object(spec: str):
    """``"package.module:name"`` -> the object; a clear error if either part is wrong."""
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise ValueError(f"expected 'module:name', got {spec!r}")
    return getattr(importlib.import_module(module_name), attr)


def _timed_call(spec: str, arguments: dict, device: str, threads: int):
    """Call ``spec(**arguments, device=...)`` on ``threads`` CPU threads; log and time it."""
    torch.set_num_threads(max(1, threads))
    resolved = resolve_device(device)
    logging.getLogger("sigprop").info("%s on %s with %s", spec, resolved, arguments)
    start = time.perf_counter()
    result = import_object(spec)(**arguments, device=str(resolved))
    return result, resolved, time.perf_counter() - start


def run_simulation(
    experiment: str, setup: dict, device: str, tensor_path: str, threads: int = 1
) -> None:
    """Call ``experiment(**setup, device=...)`` and save its tensors with provenance.

    Args:
        experiment: ``"sigprop.experiments.<family>:<function>"``.
        setup: the rule's config slice, passed as keyword arguments and recorded in the sidecar.
        device: ``auto``, ``cpu`` or ``cuda``.
        tensor_path: the rule's ``.pt`` output; the ``.json`` sidecar goes beside it.
        threads: CPU threads torch may use (the rule's ``threads``).
    """
    result, resolved, wall = _timed_call(experiment, setup, device, threads)
    meta = store.provenance(dict(setup), result.seeds, resolved, wall, experiment=experiment)
    store.save(tensor_path, result, meta)
    logging.getLogger("sigprop").info("wrote %s in %.2fs", tensor_path, wall)


def write_caption(description_path: str, claims_path: str, caption_path: str) -> None:
    """Write the report caption: the static description followed by the verdicts."""
    with open(description_path) as f:
        description = f.read()
    with store.atomic_path(caption_path) as tmp:
        tmp.write_text(claims.verdict_caption(description, claims.read(claims_path)))


def run_check(
    check: str,
    table_path: str,
    arguments: dict,
    claims_path: str,
    figure: str,
    scale: str,
    description_path: str | None = None,
    caption_path: str | None = None,
) -> None:
    """Evaluate ``check(table, **arguments)`` on a figure's CSV and write the claims file.

    With ``description_path`` and ``caption_path``, also write the figure's report caption with
    its verdicts.
    """
    verdicts = import_object(check)(pd.read_csv(table_path), **arguments)
    claims.write(claims_path, verdicts, figure=figure, scale=scale)
    if description_path and caption_path:
        write_caption(description_path, claims_path, caption_path)
    logging.getLogger("sigprop").info("\n%s", claims.summarize(claims.read(claims_path)))


def run_theorem(
    check: str,
    arguments: dict,
    device: str,
    table_path: str,
    claims_path: str,
    scale: str,
    threads: int = 1,
    description_path: str | None = None,
    caption_path: str | None = None,
) -> None:
    """Run a ``sigprop.theorems`` check; write its measured table (CSV) and its claims.

    Args:
        check: ``"sigprop.theorems.<family>:<function>"`` returning a ``TheoremCheck``.
        arguments: the rule's config item, passed as keyword arguments.
    """
    result, _, wall = _timed_call(check, arguments, device, threads)
    with store.atomic_path(table_path) as tmp:
        result.table.to_csv(tmp, index=False)
    claims.write(claims_path, result.claims, figure=table_path, scale=scale)
    if description_path and caption_path:
        write_caption(description_path, claims_path, caption_path)
    logging.getLogger("sigprop").info("%.2fs\n%s", wall, claims.summarize(claims.read(claims_path)))
