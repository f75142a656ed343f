"""Dan+20's MLP training experiments (Fig. 1) on the training layer (``sigprop.training``).

Fig. 1: ReLU MLPs of width 128 and depth 1-32, BN vs vanilla, PyTorch default init; left, the
numerical rank (footnote 2) of the last hidden layer at initialization; right, the training
accuracy after training with SGD (batch 128, learning rate grid-searched; 75 epochs in the seed).
"""

from __future__ import annotations

import logging

import torch

from ...compute import resolve_device, resolve_dtype
from ...data import dataset_spec
from ...seeding import generator
from ...store import Labelled
from ...training.datasets import classification_data
from ...training.loop import RunStack, train
from ...training.models import MLP, init_weights

__all__ = ["NETWORKS", "depth_training"]

log = logging.getLogger(__name__)

NETWORKS = {"BN": "batch_norm", "vanilla": "none"}
"""Fig. 1's curves: torch's ``BatchNorm1d`` after each hidden Linear, or none."""

CURVES = ("train_loss", "train_accuracy", "test_loss", "test_accuracy", "rank", "r_lower_bound")


def depth_training(
    depths: list[int],
    width: int,
    lrs: list[float],
    n_runs: int,
    epochs: int,
    batch_size: int,
    dataset: str,
    data_root: str,
    train_size: int,
    test_size: int,
    probe_size: int,
    eval_size: int = 0,
    log_every: int = 0,
    momentum: float = 0.0,
    activation: str = "relu",
    init: str = "torch_default",
    dtype: str = "float32",
    download: bool = False,
    device: str = "auto",
    experiment_id: str = "rank_collapse.depth_training",
) -> Labelled:
    """Train every (network, depth, learning rate, run) of Fig. 1 and log its curves.

    Run r of a (network, depth) is initialized from stream (``<id>.<network>.L<depth>``, r,
    "init") whatever its learning rate, so the grid points of a run share their initial network;
    each grid point is one member of one batched stack (``training.loop``). The rank at
    initialization is the first log point of the ``rank`` curve, on the probe batch (the first
    ``probe_size`` training samples; the seed does not say which batch).

    Returns:
        over dims (network, depth, lr, run, point): the ``training.loop.Curves`` metrics and
        ``epoch`` (the log point's epoch, the same for every network).
    """
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    batches = classification_data(
        dataset, data_root, train_size, test_size, probe_size, eval_size, download,
        f"{experiment_id}.data", device, torch_dtype,
    )  # fmt: skip
    d_in, n_classes = batches.train_x.shape[1], dataset_spec(dataset)[1].n_classes
    runs = list(range(n_runs))
    members = [(i, r) for i in range(len(lrs)) for r in runs]  # lr-major
    rates = torch.tensor([lrs[i] for i, _ in members])
    values, epochs_at = {}, None
    for network, norm in NETWORKS.items():
        for depth in depths:
            eid = f"{experiment_id}.{network}.L{depth}"
            nets = []
            for _, r in members:
                net = MLP(d_in, width, depth, n_classes, norm, activation).to(device, torch_dtype)
                nets.append(init_weights(net, init, generator(eid, r, "init", device)))
            curves = train(
                RunStack(nets), batches, rates, epochs, batch_size, eid,
                [r for _, r in members], log_every, momentum, desc=f"{network} L={depth}",
            )  # fmt: skip
            log.info("%s L=%d: %d members trained in %.1f s", network, depth, len(nets),
                     curves.seconds)  # fmt: skip
            for name, tensor in curves.tensors().items():
                values.setdefault(name, {})[network, depth] = tensor.view(len(lrs), n_runs, -1)
            epochs_at = curves.epoch
    shape = (len(NETWORKS), len(depths), len(lrs), n_runs, len(epochs_at))
    out = {
        name: torch.stack([torch.stack([per[n, d] for d in depths]) for n in NETWORKS]).reshape(
            shape
        )
        for name, per in values.items()
    }
    out["epoch"] = torch.tensor(epochs_at, dtype=torch.float64).expand(shape).clone()
    return Labelled(
        dims=["network", "depth", "lr", "run", "point"],
        coords={
            "network": list(NETWORKS),
            "depth": list(depths),
            "lr": list(lrs),
            "run": runs,
            "point": list(range(len(epochs_at))),
        },
        values=out,
        seeds={
            "experiment_ids": [f"{experiment_id}.{n}.L{d}" for n in NETWORKS for d in depths],
            "runs": runs,
            "streams": ["init", "batches"],
            "data_subset": f"{experiment_id}.data",
        },
    )
