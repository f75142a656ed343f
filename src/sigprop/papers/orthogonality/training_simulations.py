"""DJB21's training experiments on the training layer (``training.experiment.network_training``).

- ``depth_orthogonality``, DJB21 Figs. 3, 4 (Thesis Figs. 2.4, 2.5) and Thesis Fig. A.1:
  bias-free ReLU MLPs without BN at several depths, Xavier (gain sqrt 2, the authors' code),
  iteratively orthogonalized (Eq. (6)), with orthogonal weights (App. A.5 (i)) and with adaptive
  gradient clipping (Eq. (A.21)), from the same Xavier draw; the orthogonality gap V(H_L)
  (Eq. (2)) and the training loss per epoch, and ``agc_clip_share``: per log point, the share of
  (SGD step, weight matrix) pairs since the previous log point whose gradient adaptive gradient
  clipping rescaled (0 for a network without clipping; 0 at point 0, before any step).

``deep_convnets``, DJB21 Fig. 7 (App. G), is ``network_training`` itself: the conv
nets of Table 3 with 20 and 80 convolutions, Xavier vs the orthogonalizing init of App. G
(Eq. (21) with Eq. (6)).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from ...base.store import Labelled
from ...training import experiment
from ...training.experiment import network_training

__all__ = ["AGC_CURVE", "clip_recorder", "depth_orthogonality", "network_training"]

AGC_CURVE = "agc_clip_share"
"""The curve of the share of weight-gradient updates that adaptive gradient clipping rescaled."""


@contextlib.contextmanager
def clip_recorder() -> Iterator[dict]:
    """Record, per ``training.loop.train`` call, how often each run's weight gradients were clipped.

    Inside the block, every ``experiment.train`` call counts on the device, per epoch and run, the
    weight gradients that adaptive gradient clipping rescaled (the test of Eq. (A.21):
    ||G||_F / ||W||_F^* >= lambda; ``train``'s ``clip_counts``), keyed by its ``desc``
    (``"<network> L=<depth>"``), with the call's ``epochs`` and steps per epoch. The training
    itself is unchanged, and nothing waits for the device per step.

    Yields:
        desc -> {"counts": [(R,) float64 per epoch], "epochs": int, "steps": int, "weights": the
        weight matrices ``sgd_step`` clips per step}.
    """
    records: dict = {}
    train = experiment.train

    def recording_train(stack, data, lrs, epochs, batch_size, *args, desc="train", **kwargs):
        steps = len(data.train_x) // batch_size
        weights = sum(name.endswith("weight") and p.dim() > 2 for name, p in stack.params.items())
        records[desc] = {"counts": [], "epochs": epochs, "steps": steps, "weights": weights}
        # the counts go into train's checkpoints with the rest: a resumed job keeps them
        return train(stack, data, lrs, epochs, batch_size, *args, desc=desc,
                     clip_counts=records[desc]["counts"], **kwargs)  # fmt: skip

    experiment.train = recording_train
    try:
        yield records
    finally:
        experiment.train = train


def clip_shares(record: dict, n_points: int, members: int) -> torch.Tensor:
    """(members, n_points) float64: per log point (one per epoch after point 0), the share of
    (step, weight matrix) pairs of that epoch whose gradient was clipped; with log points inside
    epochs (``log_every`` > 0), the whole run's share at every point after 0; zeros without a
    record (a network without clipping)."""
    out = torch.zeros(members, n_points, dtype=torch.float64)
    counts = record["counts"] if record else []
    if not counts:
        return out
    epochs, steps, weights = record["epochs"], record["steps"], record["weights"]
    if len(counts) != epochs:
        raise ValueError(f"{len(counts)} epochs of clipping counts, expected {epochs}")
    per_epoch = torch.stack(counts)  # (epochs, members)
    if n_points == epochs + 1:
        out[:, 1:] = (per_epoch / (steps * weights)).T
    else:  # log points within epochs (log_every > 0): the whole run's share at every point
        out[:, 1:] = (per_epoch.sum(0) / (epochs * steps * weights))[:, None]
    return out


def depth_orthogonality(**setup) -> Labelled:
    """DJB21 Figs. 3, 4; Thesis Fig. A.1: ``network_training``, plus the curve
    ``agc_clip_share`` (module docstring)."""
    with clip_recorder() as records:
        result = experiment.network_training(**setup)
    networks, depths = result.coords["network"], result.coords["depth"]
    n_lr, n_runs = len(result.coords["lr"]), len(result.coords["run"])
    n_points = len(result.coords["point"])
    share = torch.stack(
        [
            torch.stack(
                [
                    clip_shares(records.get(f"{n} L={d}"), n_points, n_lr * n_runs).view(
                        n_lr, n_runs, n_points
                    )
                    for d in depths
                ]
            )
            for n in networks
        ]
    )
    result.values[AGC_CURVE] = share
    return result
