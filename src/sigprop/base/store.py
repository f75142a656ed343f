"""Result cache: atomic writes and a provenance sidecar for every simulation result.

A result file ``results/<family>/<sim>.safetensors`` holds a small labelled array set:

    dims ["width", "run", "layer"], coords {"width": [...], "run": [...], "layer": [...]},
    values {"gap": array of shape (len(width), len(run), len(layer)), ...}

and ``<sim>.json`` beside it records what produced it: the config slice, the seeds' address,
package versions, device, git revision, wall time, and the sha256 of the result's bytes. Files
are written to a temporary name in the same folder and renamed, so an interrupted job never
leaves a truncated result.

Format: safetensors (the arrays, with dims, coords and the defining provenance as JSON in its
header). It is read with numpy alone, so the jobs that draw and judge never import torch.

A simulation run as one job per part (``registry.Split``) is merged with ``concat``: the parts'
tensors joined along one dim, into the file one job would have written.

Trust: the bytes are reproducible (no time or temporary name inside) and also hold the
provenance that defines the result (config, seeds, versions, device, git revision). ``load``
checks the bytes against the sidecar's sha256 and the sidecar against that embedded copy, and a
mismatch (a truncated, altered or swapped file, an edited sidecar) raises ``StaleResultError``
naming the command that rebuilds the file. Non-finite values are refused unless the simulation
declares them (``save(..., nonfinite=...)``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import platform
import socket
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "Labelled",
    "NonFiniteError",
    "markdown_table",
    "nonfinite_columns",
    "refuse_nonfinite",
    "require_finite",
    "StaleResultError",
    "sha256_bytes",
    "verify_table",
    "write_table",
    "atomic_path",
    "concat",
    "git_revision",
    "load",
    "load_frame",
    "load_labelled",
    "load_metadata",
    "provenance",
    "save",
    "sidecar",
    "write_json",
]

_PACKAGES = (
    "sigprop",
    "torch",
    "numpy",
    "safetensors",
    "scipy",
    "pandas",
    "matplotlib",
    "seaborn",
    "snakemake",
)


@dataclass
class Labelled:
    """Tensors over the product of named coordinates, as a simulation returns them.

    Attributes:
        dims: dimension names, e.g. ``["width", "run", "layer"]``.
        coords: dim -> coordinate values, so that
            ``values[k].shape == tuple(len(coords[d]) for d in dims)``.
        values: metric name -> tensor (torch) or array (numpy).
        seeds: the address of the random streams used (experiment ids, runs, stream names).
    """

    dims: list[str]
    coords: dict[str, list]
    values: dict[str, Any]
    seeds: dict = field(default_factory=dict)

    @classmethod
    def over(
        cls, coords: Mapping[str, Iterable], values: dict[str, Any], seeds: dict | None = None
    ) -> Labelled:
        """Tensors over ``coords`` (dim -> coordinate values, in the order of the dims)."""
        return cls(
            dims=list(coords),
            coords={dim: list(points) for dim, points in coords.items()},
            values=values,
            seeds={} if seeds is None else seeds,
        )


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
    if isinstance(x, np.generic | np.ndarray) or hasattr(x, "tolist"):
        return x.tolist()
    if isinstance(x, Path):
        return str(x)
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def sidecar(path: str | os.PathLike) -> Path:
    """The metadata file of a result: ``x.safetensors`` -> ``x.json``."""
    return Path(path).with_suffix(".json")


class StaleResultError(RuntimeError):
    """A cached result does not match its provenance sidecar; the message names the rebuild."""


class NonFiniteError(ValueError):
    """A result holds NaN or inf values that its item did not declare."""


DEFINING = ("config", "seeds", "experiment", "measure", "device", "versions", "git_revision")
"""Sidecar keys that define a result; a copy lives inside the result file and must match."""


def _rebuild_hint(path: str | os.PathLike) -> str:
    return f"rebuild it with: snakemake -f {path}"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _as_array(value) -> np.ndarray:
    """A torch tensor (any device) or array-like -> a contiguous numpy array."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.ascontiguousarray(value)


def _nonfinite_counts(values: Mapping[str, np.ndarray]) -> dict[str, dict[str, int]]:
    counts = {}
    for name, a in values.items():
        if np.issubdtype(a.dtype, np.inexact):
            nan, inf = int(np.isnan(a).sum()), int(np.isinf(a).sum())
            if nan or inf:
                counts[name] = {"nan": nan, "inf": inf}
    return counts


def _json_roundtrip(obj):
    return json.loads(json.dumps(obj, sort_keys=True, default=_jsonable))


def save(
    path: str | os.PathLike,
    result: Labelled,
    meta: Mapping,
    nonfinite: tuple[str, ...] = (),
) -> None:
    """Save labelled tensors and their provenance sidecar, both atomically.

    Args:
        nonfinite: value names that may hold NaN or inf (declared by the simulation item, e.g.
            "never crossed" as NaN); their counts go into the sidecar.

    Raises:
        ValueError: if a tensor's shape does not match the coordinates' lengths.
        NonFiniteError: if an undeclared value holds NaN or inf.
    """
    import safetensors.numpy

    dims, coords = result.dims, result.coords
    values = {k: _as_array(v) for k, v in result.values.items()}
    shape = tuple(len(coords[d]) for d in dims)
    for name, t in values.items():
        if tuple(t.shape) != shape:
            raise ValueError(f"{name}: shape {tuple(t.shape)} does not match dims {dims} {shape}")
    counts = _nonfinite_counts(values)
    undeclared = {k: v for k, v in counts.items() if k not in nonfinite}
    if undeclared:
        raise NonFiniteError(
            f"{path}: non-finite values {undeclared} (an overflow, a division by zero, a config "
            "outside the method's range?); nothing was written. If they are expected, declare "
            "them in the simulation item's `nonfinite`."
        )
    meta = dict(meta)
    defining = _json_roundtrip({k: meta[k] for k in DEFINING if k in meta})
    header = {
        "dims": list(dims),
        "coords": {d: list(coords[d]) for d in dims},
        "order": list(values),
        "provenance": defining,
    }
    text = json.dumps(header, sort_keys=True, default=_jsonable)
    data = safetensors.numpy.save(values, metadata={"sigprop": text})
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    meta.update(sha256=sha256_bytes(data), nonfinite=counts)
    write_json(sidecar(path), meta)


def _check_sidecar(path: Path, data: bytes) -> dict:
    meta_path = sidecar(path)
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError) as error:
        raise StaleResultError(
            f"{path}: its provenance sidecar {meta_path} is missing or unreadable ({error}); "
            + _rebuild_hint(path)
        ) from None
    if meta.get("sha256") != sha256_bytes(data):
        raise StaleResultError(
            f"{path}: the file does not match the sha256 recorded in {meta_path} (truncated, "
            "altered or replaced after it was written); " + _rebuild_hint(path)
        )
    return meta


def _header(data: bytes) -> dict:
    """The JSON header of safetensors bytes (8-byte little-endian length, then JSON)."""
    size = int.from_bytes(data[:8], "little")
    return json.loads(data[8 : 8 + size])


def load(path: str | os.PathLike) -> dict:
    """Load a result saved by ``save`` after checking its provenance: a dict with ``dims``,
    ``coords``, ``values`` (name -> numpy array, in the order saved) and ``provenance``.

    Raises:
        StaleResultError: the file does not match its sidecar's sha256, cannot be read, or the
            sidecar's defining fields (config, seeds, versions, device, git revision) differ from
            the copy inside the file; the message names the command that rebuilds it.
    """
    path = Path(path)
    data = path.read_bytes()
    meta = _check_sidecar(path, data)
    import safetensors.numpy

    try:
        payload = json.loads(_header(data)["__metadata__"]["sigprop"])
        arrays = safetensors.numpy.load(data)
    except Exception as error:  # noqa: BLE001 - any unreadable file means the same thing
        raise StaleResultError(f"{path}: unreadable ({error}); " + _rebuild_hint(path)) from None
    payload["values"] = {k: arrays[k] for k in payload.pop("order")}
    embedded = payload.get("provenance", {})
    edited = sorted(k for k in embedded if _json_roundtrip(meta.get(k)) != embedded[k])
    if edited:
        raise StaleResultError(
            f"{path}: its sidecar {sidecar(path)} was edited after the result was written "
            f"(fields {edited} differ from the copy inside the file); " + _rebuild_hint(path)
        )
    return payload


def load_labelled(path: str | os.PathLike) -> Labelled:
    """A result saved by ``save`` as ``Labelled`` (numpy values, its recorded seeds), checked
    as ``load`` checks it."""
    payload = load(path)
    seeds = payload.get("provenance", {}).get("seeds", {})
    return Labelled(payload["dims"], payload["coords"], payload["values"], seeds)


def concat(parts: list[Labelled], dim: str) -> Labelled:
    """Results that differ only along ``dim``, joined along it in order: coords concatenated,
    values concatenated (numpy, bit for bit), seeds merged (``_merged_seeds``).

    Raises:
        ValueError: naming what differs, if the parts' dims, value names or other coords do.
    """
    first = parts[0]
    if dim not in first.dims:
        raise ValueError(f"cannot join along {dim!r}: the dims are {first.dims}")
    for part in parts[1:]:
        if part.dims != first.dims or list(part.values) != list(first.values):
            raise ValueError(
                f"parts differ: dims {part.dims} vs {first.dims}, values {list(part.values)} "
                f"vs {list(first.values)}"
            )
        other = [d for d in first.dims if d != dim and part.coords[d] != first.coords[d]]
        if other:
            raise ValueError(f"parts differ in the coords of {other}, not only of {dim!r}")
    axis = first.dims.index(dim)
    coords = {d: list(first.coords[d]) for d in first.dims}
    coords[dim] = [c for part in parts for c in part.coords[dim]]
    values = {
        name: np.concatenate([_as_array(p.values[name]) for p in parts], axis=axis)
        for name in first.values
    }
    return Labelled(list(first.dims), coords, values, _merged_seeds([p.seeds for p in parts]))


def _merged_seeds(seeds: list[Mapping]) -> dict:
    """The parts' seed addresses as one: an entry equal in every part once, lists that differ
    concatenated in part order; a ValueError for any other difference."""
    merged = {}
    for key in seeds[0]:
        found = [s.get(key) for s in seeds]
        if all(f == found[0] for f in found):
            merged[key] = found[0]
        elif all(isinstance(f, list) for f in found):
            merged[key] = [x for f in found for x in f]
        else:
            raise ValueError(f"parts' seeds differ in {key!r}: {found}")
    if any(set(s) != set(seeds[0]) for s in seeds):
        raise ValueError(f"parts' seeds have different keys: {[sorted(s) for s in seeds]}")
    return merged


def nonfinite_columns(table: pd.DataFrame) -> dict[str, int]:
    """Numeric column -> how many of its cells are NaN or inf (only columns that have any)."""
    counts = {}
    for name in table.columns:
        column = table[name]
        if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            bad = int((~np.isfinite(column.to_numpy(dtype=float))).sum())
            if bad:
                counts[str(name)] = bad
    return counts


def refuse_nonfinite(
    table: pd.DataFrame, path: str | os.PathLike, declared: tuple[str, ...] = ()
) -> None:
    """Raise ``NonFiniteError`` if a column not in ``declared`` holds NaN or inf.

    A judged table is averaged, fitted and compared; pandas would skip NaN silently, so a
    non-finite number where the item does not expect one stops the job instead.
    """
    undeclared = {k: v for k, v in nonfinite_columns(table).items() if k not in declared}
    if undeclared:
        first = {
            k: int(np.flatnonzero(~np.isfinite(table[k].to_numpy(float)))[0]) for k in undeclared
        }
        raise NonFiniteError(
            f"{path}: non-finite values in columns {undeclared} (cell counts; first at rows "
            f"{first}); averages over them would silently drop or propagate them. Fix the "
            "computation, or, where NaN means 'not applicable' by design, declare the columns "
            "in the item's `nonfinite` and handle them in its judge."
        )


def require_finite(rows: pd.DataFrame, columns, where: str) -> pd.DataFrame:
    """``rows`` (the part of a table a judge reduces), after checking that ``columns`` hold no
    NaN there; a declared-NaN column may be NaN elsewhere but not in the rows it applies to.

    Raises:
        NonFiniteError: naming ``where``, the columns and how many NaN.
    """
    columns = [columns] if isinstance(columns, str) else list(columns)
    missing = {c: int(rows[c].isna().sum()) for c in columns if rows[c].isna().any()}
    if missing:
        raise NonFiniteError(
            f"{where}: NaN in rows where the value applies {missing}; a judge never averages "
            "or filters around it"
        )
    return rows


def write_table(
    path: str | os.PathLike, table: pd.DataFrame, meta: Mapping, nonfinite: tuple[str, ...] = ()
) -> None:
    """Write a measured table as CSV and its sidecar (``.json``, with the CSV's sha256).

    Raises:
        NonFiniteError: a column not in ``nonfinite`` holds NaN or inf (nothing is written).
    """
    refuse_nonfinite(table, path, nonfinite)
    data = table.to_csv(index=False).encode()
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    write_json(sidecar(path), {**meta, "sha256": sha256_bytes(data)})


def verify_table(path: str | os.PathLike) -> None:
    """Check a measured table against its sidecar's sha256 (``StaleResultError`` if not)."""
    path = Path(path)
    _check_sidecar(path, path.read_bytes())


def load_metadata(path: str | os.PathLike) -> dict:
    """Load the provenance sidecar of a result."""
    return json.loads(sidecar(path).read_text())


def load_frame(path: str | os.PathLike) -> pd.DataFrame:
    """A result in long form: one row per coordinate tuple, one column per dim and per value."""
    payload = load(path)
    dims = payload["dims"]
    index = pd.MultiIndex.from_product([payload["coords"][d] for d in dims], names=dims)
    columns = {k: v.reshape(-1) for k, v in payload["values"].items()}
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


def provenance(config: Mapping, seeds: Mapping, device, wall_time_s: float, **extra) -> dict:
    """The sidecar record: config slice, seed address, versions, device, git, time, host."""
    import torch

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


def markdown_table(table: pd.DataFrame, columns: list[str], title: str) -> str:
    """A markdown table of ``columns`` (floats to 4 significant digits) under ``title``."""

    def cell(value) -> str:
        if isinstance(value, float | np.floating):
            return "" if math.isnan(value) else f"{value:.4g}"
        return str(value)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r[c]) for c in columns) + " |" for _, r in table.iterrows()]
    return f"{title}\n\n" + "\n".join(lines) + "\n"
