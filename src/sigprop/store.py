"""Tensor cache: atomic writes and a provenance sidecar for every simulation result.

A result file ``results/<family>/<sim>.pt`` holds a small labelled array set:

    {"dims": ["width", "run", "layer"],
     "coords": {"width": [...], "run": [...], "layer": [...]},
     "values": {"gap": Tensor of shape (len(width), len(run), len(layer)), ...}}

and ``<sim>.json`` beside it records what produced it: the config slice, the seeds' address,
package versions, device, git revision, wall time. Files are written to a temporary name in the
same folder and renamed, so an interrupted job never leaves a truncated result.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
import torch

__all__ = [
    "Labelled",
    "atomic_path",
    "git_revision",
    "load",
    "load_frame",
    "load_metadata",
    "provenance",
    "save",
    "sidecar",
    "write_json",
]

_PACKAGES = ("sigprop", "torch", "numpy", "scipy", "pandas", "matplotlib", "seaborn", "snakemake")


@dataclass
class Labelled:
    """Tensors over the product of named coordinates, as a simulation returns them.

    Attributes:
        dims: dimension names, e.g. ``["width", "run", "layer"]``.
        coords: dim -> coordinate values, so that
            ``values[k].shape == tuple(len(coords[d]) for d in dims)``.
        values: metric name -> tensor.
        seeds: the address of the random streams used (experiment ids, runs, stream names).
    """

    dims: list[str]
    coords: dict[str, list]
    values: dict[str, torch.Tensor]
    seeds: dict = field(default_factory=dict)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` only on success.

    The file gets the permissions of an ordinary new file (0666 less the umask), not the 0600
    of ``mkstemp``, so results stay readable by the other users of a shared machine.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json(path: str | os.PathLike, obj) -> None:
    """Write ``obj`` as indented, key-sorted JSON, atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, sort_keys=True, default=_jsonable) + "\n")


def _jsonable(x):
    if isinstance(x, (np.generic, torch.Tensor)):
        return x.tolist()
    if isinstance(x, Path):
        return str(x)
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def sidecar(path: str | os.PathLike) -> Path:
    """The metadata file of a result: ``x.pt`` -> ``x.json``."""
    return Path(path).with_suffix(".json")


def save(path: str | os.PathLike, result: Labelled, meta: Mapping) -> None:
    """Save labelled tensors and their provenance sidecar, both atomically.

    Raises:
        ValueError: if a tensor's shape does not match the coordinates' lengths.
    """
    dims, coords, values = result.dims, result.coords, result.values
    shape = tuple(len(coords[d]) for d in dims)
    for name, t in values.items():
        if tuple(t.shape) != shape:
            raise ValueError(f"{name}: shape {tuple(t.shape)} does not match dims {dims} {shape}")
    payload = {
        "dims": list(dims),
        "coords": {d: list(coords[d]) for d in dims},
        "values": {k: v.detach().cpu() for k, v in values.items()},
    }
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)
    write_json(sidecar(path), dict(meta))


def load(path: str | os.PathLike) -> dict:
    """Load a result saved by ``save`` (tensors on the CPU)."""
    return torch.load(path, map_location="cpu", weights_only=True)


def load_metadata(path: str | os.PathLike) -> dict:
    """Load the provenance sidecar of a result."""
    return json.loads(sidecar(path).read_text())


def load_frame(path: str | os.PathLike) -> pd.DataFrame:
    """A result in long form: one row per coordinate tuple, one column per dim and per value."""
    payload = load(path)
    dims = payload["dims"]
    index = pd.MultiIndex.from_product([payload["coords"][d] for d in dims], names=dims)
    columns = {k: v.numpy().reshape(-1) for k, v in payload["values"].items()}
    return pd.DataFrame(columns, index=index).reset_index()


def git_revision(cwd: str | os.PathLike | None = None) -> str | None:
    """``git describe --always --dirty`` of the working tree, or None outside a repository."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=12"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _versions() -> dict[str, str | None]:
    found = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def provenance(
    config: Mapping, seeds: Mapping, device: torch.device | str, wall_time_s: float, **extra
) -> dict:
    """The sidecar record: config slice, seed address, versions, device, git, time, host."""
    device = torch.device(device)
    info = {
        "config": dict(config),
        "seeds": dict(seeds),
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device)
        if device.type == "cuda"
        else platform.processor() or platform.machine(),
        "torch_threads": torch.get_num_threads(),
        "versions": _versions(),
        "git_revision": git_revision(),
        "wall_time_s": round(wall_time_s, 3),
        "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
    }
    info.update(extra)
    return info
