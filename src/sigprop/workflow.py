"""Glue for Snakemake scripts: logging to the rule's log file, and config access.

Scripts stay thin: ``log_to_file(snakemake.log[0])`` first, then read ``snakemake.input`` and
``snakemake.params``, call the library, write ``snakemake.output``.
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["log_to_file"]


def log_to_file(path: str | os.PathLike, level: int = logging.INFO) -> logging.Logger:
    """Send logging and stderr (warnings, tracebacks) to ``path``; return the ``sigprop`` logger."""
    stream = open(path, "w", buffering=1)  # noqa: SIM115 - lives as long as the script
    sys.stderr = stream
    logging.basicConfig(
        stream=stream, level=level, format="%(asctime)s %(name)s %(levelname)s %(message)s",
        force=True,
    )
    return logging.getLogger("sigprop")
