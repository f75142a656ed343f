"""Paper shapes before a long run (issue 25): every real-data simulation at ``config/paper.yaml``
with its loops cut and its shapes kept, on generated files in the datasets' real formats.

Kept: widths, batch sizes, image sizes, networks, architectures, datasets at full size
(``sigprop.datasets.generated_datasets``), the deepest of the configured depths. Cut (``cut``): runs
to one, epochs to one, the training set to the samples one step and the probe batch need, the
evaluation sets to one batch, the step-size grid to its first value, the batches of a probe to one;
with ``layers``, also the depth (of a network whose layers repeat one shape) to that many layers, or
ResNet-50's to two blocks per stage. So a smoke run meets the shapes, dtypes and code paths of the
paper run: a crash, a non-finite result or a shape error there shows here: in seconds per item on a
GPU, in seconds to minutes on one CPU thread (a full-width conv net's step).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..nets.convnets import CUT_DEPTHS

__all__ = ["COUNTS", "DEPTH_KEYS", "FIRST_ONLY", "cut", "with_data_root"]

COUNTS = {"n_runs": 1, "runs": 1, "epochs": 1, "n_batches": 1, "batches": 2, "control_batches": 1}
"""Loop counts set to their smallest value (Table C.1 needs two batches for a std)."""

FIRST_ONLY = ("lrs", "gains", "exponents")
"""Grids cut to their first value."""

DEPTH_KEYS = ("depth", "depths")
"""A simulation's depth: one number of layers, or a grid of them."""


def _step_size(setup: Mapping) -> int:
    """The training samples one SGD step, the probe batch and the initialization batch need."""
    keys = ("batch_size", "probe_size", "init_batch_size")
    return max(int(setup.get(k) or 0) for k in keys)


def cut(setup: Mapping, layers: int | None = None) -> dict:
    """``setup`` (a simulation's paper config slice) with its loops cut and its shapes kept.

    ``layers``: the depth cut to this many layers too (default: the deepest depth kept), for a
    network whose hidden layers all have one shape, so that fewer of them keep every shape; or
    a fixed network cut to its ``nets.convnets.CUT_DEPTHS`` (ResNet-50 to two Bottleneck blocks
    per stage, depth 26)."""
    out = dict(setup)
    out.update({k: v for k, v in COUNTS.items() if k in setup})
    out.update({k: list(setup[k])[:1] for k in FIRST_ONLY if k in setup})
    if "depths" in setup:
        out["depths"] = [max(setup["depths"])]
    if layers is not None:
        found = [k for k in DEPTH_KEYS if k in setup]
        fixed_cut = CUT_DEPTHS.get(setup.get("architecture"))
        if not found and fixed_cut is not None:  # a fixed network: its one cut depth
            if layers != fixed_cut:
                raise ValueError(f"{setup['architecture']} cuts to {fixed_cut} layers only, "
                                 f"not {layers}")  # fmt: skip
            found = ["depths"]
        if not found:
            raise ValueError(f"no depth to cut to {layers} layers: none of {DEPTH_KEYS} in setup")
        out.update({k: [layers] if k == "depths" else layers for k in found})
    if "epochs" in setup:  # a training run: one step on the smallest set that serves its probes
        out["train_size"] = _step_size(setup)
        for key in ("test_size", "eval_size"):
            if key in setup:
                out[key] = min(int(setup[key] or setup["batch_size"]), int(setup["batch_size"]))
    return out


def with_data_root(setup: Mapping, root: str) -> dict:
    """``setup`` reading its datasets from ``root`` only (top level or in a nested mapping such
    as ``batch``), never downloading."""
    out = {k: with_data_root(v, root) if isinstance(v, Mapping) else v for k, v in setup.items()}
    if "data_root" in out:
        out["data_root"] = root
    if "download" in out:
        out["download"] = False
    return out
