"""Dan+20's MLP training experiments (Figs. 1, 4, 6, 11, 12) on the training layer.

One function trains every figure's networks: ReLU MLPs of width 128 at several depths, each
network a normalization, an initialization and optionally rank pre-training (Algorithm 1) before
SGD, over a learning-rate grid and runs, with curves logged per epoch.

- Fig. 1: BN vs vanilla, depth 1-32; rank at init and training accuracy after training.
- Figs. 4, 11 (CIFAR-10) and 12 (Fashion-MNIST): pre-trained vanilla vs BN vs vanilla over
  epochs, for increasing depth.
- Fig. 6: depth 32: vanilla, pre-trained 25 and 75 iterations, BN with the default and the
  asymmetric init; training accuracy and r(H_L) over training.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import torch

from ...compute import resolve_device, resolve_dtype
from ...data import dataset_spec
from ...seeding import generator
from ...store import Labelled
from ...training.datasets import classification_data
from ...training.loop import RunStack, TrainData, train
from ...training.models import MLP, init_weights
from ...training.pretrain import pretrain_rank

__all__ = [
    "NETWORKS",
    "depth_training",
    "network_training",
    "pretrain_levels",
    "pretrain_vs_bn",
    "pretrain_vs_bn_fmnist",
]

log = logging.getLogger(__name__)

NETWORKS = {"BN": {"norm": "batch_norm"}, "vanilla": {"norm": "none"}}
"""Fig. 1's curves: torch's ``BatchNorm1d`` after each hidden Linear, or none."""

NETWORK_KEYS = ("norm", "init", "pretrain_iterations", "same_init_as")

CURVES = ("train_loss", "train_accuracy", "test_loss", "test_accuracy", "rank", "r_lower_bound")
"""Logged per run and point; NaN once a run has diverged (a grid point with too large a step)."""


def _initial_networks(
    spec: Mapping, name: str, depth: int, runs: list[int], data: TrainData, n_classes: int,
    setup: Mapping, experiment_id: str,
) -> list[MLP]:  # fmt: skip
    """One initialized (and, if the spec says so, rank pre-trained) network per run.

    Run r's initial weights come from stream (``<id>.<same_init_as or name>.L<depth>``, r,
    "init"), so networks that name another share its initial draw (a paired comparison);
    pre-training draws its minibatches from (``<id>.<name>.L<depth>``, r, "pretrain").
    """
    device, dtype = data.train_x.device, data.train_x.dtype
    init_id = f"{experiment_id}.{spec.get('same_init_as', name)}.L{depth}"
    nets = []
    for r in runs:
        net = MLP(data.train_x.shape[1], setup["width"], depth, n_classes, spec["norm"],
                  setup["activation"]).to(device, dtype)  # fmt: skip
        scheme = spec.get("init", setup["init"])
        nets.append(init_weights(net, scheme, generator(init_id, r, "init", device)))
    iterations = spec.get("pretrain_iterations", 0)
    if not iterations:
        return nets
    pre = setup["pretraining"]
    stack = RunStack(nets)
    pretrain_rank(
        stack, data.train_x, f"{experiment_id}.{name}.L{depth}", runs, iterations, pre["steps"],
        pre["batch_size"], pre["lr"], pre["variant"], pre["optimizer"],
    )  # fmt: skip
    return [stack.unstack(i, nets[i]) for i in range(len(runs))]


def network_training(
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
    networks: Mapping[str, Mapping] | None = None,
    pretraining: Mapping | None = None,
    dtype: str = "float32",
    download: bool = False,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """Train every (network, depth, learning rate, run) and log its curves.

    Args:
        networks: name -> {norm, init (default ``init``), pretrain_iterations (M of Algorithm
            1; default 0: none), same_init_as (a network whose initial draw it shares)};
            default ``NETWORKS`` (Fig. 1).
        pretraining: Algorithm 1's other constants, {variant, optimizer, lr, batch_size (N),
            steps (T)} (``training.pretrain.pretrain_rank``); needed if a network pre-trains.

    The grid points of a run share its initial (pre-trained) network; each grid point is one
    member of one batched stack (``training.loop``). Point 0 of every curve is after
    initialization and pre-training, before SGD, on the probe batch (the first ``probe_size``
    training samples; the seed does not say which batch).

    Returns:
        over dims (network, depth, lr, run, point): the ``training.loop.Curves`` metrics and
        ``epoch`` (the log point's epoch, the same for every network).
    """
    networks = dict(NETWORKS if networks is None else networks)
    for name, spec in networks.items():
        unknown = set(spec) - set(NETWORK_KEYS)
        if unknown or "norm" not in spec:
            raise ValueError(f"network {name!r}: needs 'norm', may have {NETWORK_KEYS}; got "
                             f"{sorted(spec)}")  # fmt: skip
        if spec.get("pretrain_iterations") and not pretraining:
            raise ValueError(f"network {name!r} pre-trains but no 'pretraining' is given")
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    batches = classification_data(
        dataset, data_root, train_size, test_size, probe_size, eval_size, download,
        f"{experiment_id}.data", device, torch_dtype,
    )  # fmt: skip
    n_classes = dataset_spec(dataset)[1].n_classes
    setup = {"width": width, "activation": activation, "init": init, "pretraining": pretraining}
    runs = list(range(n_runs))
    rates = torch.tensor([lr for lr in lrs for _ in runs])  # lr-major members
    values, epochs_at = {}, None
    for network, spec in networks.items():
        for depth in depths:
            eid = f"{experiment_id}.{network}.L{depth}"
            initial = _initial_networks(
                spec, network, depth, runs, batches, n_classes, setup, experiment_id
            )
            curves = train(
                RunStack(initial * len(lrs)), batches, rates, epochs, batch_size, eid,
                runs * len(lrs), log_every, momentum, desc=f"{network} L={depth}",
            )  # fmt: skip
            log.info("%s L=%d: %d members trained in %.1f s", network, depth, len(rates),
                     curves.seconds)  # fmt: skip
            for name, tensor in curves.tensors().items():
                values.setdefault(name, {})[network, depth] = tensor.view(len(lrs), n_runs, -1)
            epochs_at = curves.epoch
    shape = (len(networks), len(depths), len(lrs), n_runs, len(epochs_at))
    out = {
        name: torch.stack([torch.stack([per[n, d] for d in depths]) for n in networks]).reshape(
            shape
        )
        for name, per in values.items()
    }
    out["epoch"] = torch.tensor(epochs_at, dtype=torch.float64).expand(shape).clone()
    return Labelled(
        dims=["network", "depth", "lr", "run", "point"],
        coords={
            "network": list(networks),
            "depth": list(depths),
            "lr": list(lrs),
            "run": runs,
            "point": list(range(len(epochs_at))),
        },
        values=out,
        seeds={
            "experiment_ids": [f"{experiment_id}.{n}.L{d}" for n in networks for d in depths],
            "runs": runs,
            "streams": ["init", "pretrain", "batches"],
            "data_subset": f"{experiment_id}.data",
        },
    )


def _experiment(name: str, figures: str):
    """``network_training`` under experiment id ``rank_collapse.<name>``: each simulation its
    own random streams, though they share the function."""

    def run(**setup) -> Labelled:
        return network_training(**setup, experiment_id=f"rank_collapse.{name}")

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"{figures}: ``network_training`` with experiment id ``rank_collapse.{name}``."
    return run


depth_training = _experiment("depth_training", "Dan+20 Fig. 1")
pretrain_vs_bn = _experiment("pretrain_vs_bn", "Dan+20 Figs. 4, 11")
pretrain_vs_bn_fmnist = _experiment("pretrain_vs_bn_fmnist", "Dan+20 Fig. 12")
pretrain_levels = _experiment("pretrain_levels", "Dan+20 Fig. 6")
