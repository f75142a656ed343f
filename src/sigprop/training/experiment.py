"""One function trains the networks of every training figure: ``network_training``.

A figure's curves are config: each named network is a normalization, an initialization (with
optional transforms: rank pre-training, Dan+20 Algorithm 1; iterative orthogonalization, DJB21
Eq. (6); orthogonal weights, Thesis App. A.5 (i)), an optimizer option (adaptive gradient
clipping, Thesis Eq. (A.21)), a step-size scale and its inputs (the data or uniform noise). Each
is trained at every depth, step size and run, all runs of a (network, depth) as one batched stack
(``training.loop``), with curves logged per epoch. Architectures: the MLP of ``nets.mlp``
and the conv nets of ``nets.convnets``.

Dan+20 Figs. 1, 4-7, 10-13 and DJB21 Fig. 7 run it as their simulation, each under its item's
experiment id (``papers.<family>.training_simulations``); DJB21 Figs. 3, 4 and Thesis Fig. A.1
add the clipping shares (``papers.orthogonality.training_simulations.depth_orthogonality``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import torch

from ..base.store import Labelled
from ..datasets.data import dataset_spec
from ..engine.devices import resolve_device, resolve_dtype
from ..engine.seeding import generator
from ..nets import convnets
from ..nets.initializations import init_weights
from ..nets.mlp import MLP
from ..nets.orthogonalization import (
    VARIANTS,
    iterative_conv_orthogonalization,
    iterative_orthogonalization,
    orthogonal_weights,
)
from .datasets import classification_data, uniform_noise_images
from .experiment_spec import CURVES, INPUTS, NETWORK_KEYS, NETWORKS
from .loop import RunStack, TrainData, train
from .pretrain import pretrain_rank

__all__ = ["CURVES", "INPUTS", "NETWORKS", "NETWORK_KEYS", "network_training"]

log = logging.getLogger(__name__)


def _network(setup: Mapping, norm: str, depth: int, d_in: int, n_classes: int):
    """An MLP of ``depth`` blocks (``d_in`` features), or the conv net ``setup["architecture"]``
    (``d_in`` channels), before initialization."""
    if setup["architecture"] == "mlp":
        return MLP(d_in, setup["width"], depth, n_classes, norm, setup["activation"],
                   setup["bias"])  # fmt: skip
    return convnets.build(
        setup["architecture"], depth, norm=norm, in_channels=d_in, n_classes=n_classes,
        width_multiplier=setup["width_multiplier"],
    )  # fmt: skip


def _init_batch(data: TrainData, size: int, experiment_id: str, run: int) -> torch.Tensor:
    """``size`` training samples drawn without replacement from stream (id, run, "orthogonalize"),
    the initialization batch of iterative orthogonalization (DJB21's code: 3 x width images)."""
    if size > len(data.train_x):
        raise ValueError(f"init_batch_size {size} exceeds the {len(data.train_x)} training samples")
    order = torch.randperm(
        len(data.train_x), generator=generator(experiment_id, run, "orthogonalize")
    )
    return data.train_x[order[:size].to(data.train_x.device)]


@torch.no_grad()
def _transformed(net: torch.nn.Module, spec: Mapping, batch: torch.Tensor | None) -> None:
    """The init transforms of ``spec`` in place: iterative orthogonalization (on ``batch``),
    then orthogonal weights."""
    variant = spec.get("orthogonalize")
    if variant == "conv":
        iterative_conv_orthogonalization(net.body, batch)
    elif variant:
        iterative_orthogonalization(torch.nn.Sequential(*net.hidden, net.readout), batch, variant)
    if spec.get("orthogonal_weights"):
        orthogonal_weights(net)


def _depths(architecture: str, depths: list[int] | None) -> list[int]:
    """An MLP's (or a DJB21 Table 3 net's) depths as given; a conv net's fixed depth (19 for
    VGG19, 50 for ResNet-50), or its smoke cut (``convnets.CUT_DEPTHS``) where given."""
    if architecture != "mlp" and architecture not in convnets.ARCHITECTURES:
        raise ValueError(f"architecture must be mlp or one of {sorted(convnets.ARCHITECTURES)}")
    if architecture not in convnets.DEPTHS:
        if not depths:
            raise ValueError(f"{architecture} needs depths")
        return list(depths)
    fixed, cut = convnets.DEPTHS[architecture], convnets.CUT_DEPTHS.get(architecture)
    if depths and list(depths) not in ([fixed], [cut]):
        smoke = f" (a smoke run's cut: {cut})" if cut else ""
        raise ValueError(f"{architecture} has depth {fixed}{smoke}; depths {depths} cannot "
                         "change it")  # fmt: skip
    return list(depths or [fixed])


def _initial_networks(
    spec: Mapping, name: str, depth: int, runs: list[int], data: TrainData, n_classes: int,
    setup: Mapping, experiment_id: str,
) -> list[torch.nn.Module]:  # fmt: skip
    """One initialized (and, if the spec says so, transformed or rank pre-trained) network per
    run.

    Run r's initial weights come from stream (``<id>.<same_init_as or name>.L<depth>``, r,
    "init"), so networks that name another share its initial draw (a paired comparison), and
    so does the initialization batch of iterative orthogonalization (stream "orthogonalize");
    pre-training draws its minibatches from (``<id>.<name>.L<depth>``, r, "pretrain").
    """
    device, dtype = data.train_x.device, data.train_x.dtype
    init_id = f"{experiment_id}.{spec.get('same_init_as', name)}.L{depth}"
    nets = []
    for r in runs:
        net = _network(setup, spec["norm"], depth, data.train_x.shape[1], n_classes)
        net = net.to(device, dtype)
        scheme = spec.get("init", setup["init"])
        init_weights(net, scheme, generator(init_id, r, "init"))
        if spec.get("orthogonalize"):
            batch = _init_batch(data, setup["init_batch_size"], init_id, r)
            _transformed(net, spec, batch)
        elif spec.get("orthogonal_weights"):
            _transformed(net, spec, None)
        nets.append(net)
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
    depths: list[int] | None = None,
    width: int | None = None,
    lrs: list[float] = (0.1,),
    n_runs: int = 1,
    epochs: int = 1,
    batch_size: int = 64,
    dataset: str = "fashion_mnist",
    data_root: str = "data",
    train_size: int = 0,
    test_size: int = 0,
    probe_size: int = 128,
    eval_size: int = 0,
    log_every: int = 0,
    momentum: float = 0.0,
    activation: str = "relu",
    init: str = "torch_default",
    networks: Mapping[str, Mapping] | None = None,
    pretraining: Mapping | None = None,
    architecture: str = "mlp",
    width_multiplier: float = 1.0,
    image_size: int = 0,
    bias: bool = True,
    init_batch_size: int = 0,
    probes: list[str] = ("rank", "r_lower_bound"),
    dtype: str = "float32",
    download: bool = False,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """Train every (network, depth, learning rate, run) and log its curves (``_train_networks``).

    Args:
        architecture: ``mlp`` (``depths`` blocks of ``width`` units, flattened images) or a conv
            net of ``nets.convnets`` (``vgg19``, ``resnet50``: its own depth, channels
            times ``width_multiplier``, images zero-padded to ``image_size``).
        networks: name -> {norm, init (default ``init``), pretrain_iterations (M of Algorithm
            1; default 0: none; MLPs only), same_init_as (a network whose initial draw it
            shares), lr_scale (its step sizes are the grid's times this; default 1), inputs
            (``data`` or ``uniform_noise``: training images replaced by noise, Fig. 10)};
            default ``NETWORKS`` (Fig. 1).
        pretraining: Algorithm 1's other constants, {variant, optimizer, lr, batch_size (N),
            steps (T)} (``training.pretrain.pretrain_rank``); needed if a network pre-trains.
        probes: probe names of ``training.loop.train`` (``rank``, ``r_lower_bound``,
            ``orthogonality_gap``, ``gradient_alignment``).
        bias: whether the MLP's Linear layers have biases (DJB21's MLP: none).
        init_batch_size: samples of the initialization batch of iterative orthogonalization.

    The grid points of a run share its initial (pre-trained) network; each grid point is one
    member of one batched stack (``training.loop``). Point 0 of every curve is after
    initialization and pre-training, before SGD, on the probe batch (the first ``probe_size``
    training samples; the seed does not say which batch).

    Returns:
        over dims (network, depth, lr, run, point): the ``training.loop.Curves`` metrics,
        ``epoch`` and ``iteration`` (the log point's epoch and SGD step, the same for every
        network).
    """
    networks = dict(NETWORKS if networks is None else networks)
    depths = _depths(architecture, depths)
    _check_networks(networks, architecture, pretraining, init_batch_size)
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    batches = classification_data(
        dataset, data_root, train_size, test_size, probe_size, eval_size, download,
        f"{experiment_id}.data", device, torch_dtype, image_size, architecture == "mlp",
    )  # fmt: skip
    n_classes = dataset_spec(dataset)[1].n_classes
    setup = {"width": width, "activation": activation, "init": init, "pretraining": pretraining,
             "architecture": architecture, "width_multiplier": width_multiplier, "bias": bias,
             "init_batch_size": init_batch_size, "dataset": dataset, "epochs": epochs,
             "batch_size": batch_size, "log_every": log_every, "momentum": momentum,
             "probes": probes}  # fmt: skip
    runs = list(range(n_runs))
    noise_id = f"{experiment_id}.noise"
    values, epochs_at, steps_at = _train_networks(
        networks, depths, lrs, runs, batches, n_classes, setup, experiment_id, noise_id
    )
    return _labelled(values, list(networks.items()), depths, lrs, runs, epochs_at, steps_at,
                     experiment_id, noise_id)  # fmt: skip


def _train_networks(
    networks: Mapping[str, Mapping], depths: list[int], lrs, runs: list[int], batches: TrainData,
    n_classes: int, setup: Mapping, experiment_id: str, noise_id: str,
) -> tuple[dict, list[float], list[int]]:  # fmt: skip
    """Every (network, depth) of ``network_training`` trained (``_trained``), network by network
    in the given order, each network's runs on its inputs (the data, or uniform noise images
    from stream (``noise_id``, 0, "inputs"), one noise set for every run).

    Returns:
        the curves {metric: {(network, depth): (lr, run, point)}}, and the log points' epochs
        and SGD steps (the same for every network).
    """
    values, epochs_at = {}, None
    for network, spec in networks.items():
        rates = torch.tensor([lr * spec.get("lr_scale", 1.0) for lr in lrs for _ in runs])
        inputs = batches
        if spec.get("inputs", "data") == "uniform_noise":  # one noise set for every run
            inputs = uniform_noise_images(
                batches, setup["dataset"], generator(noise_id, 0, "inputs")
            )
        for depth in depths:
            curves = _trained(
                spec, network, depth, runs, lrs, rates, inputs, n_classes, setup, experiment_id
            )
            for name, tensor in curves.tensors().items():
                values.setdefault(name, {})[network, depth] = tensor.view(len(lrs), len(runs), -1)
            epochs_at, steps_at = curves.epoch, curves.step
    return values, epochs_at, steps_at


PER_RUN_FASTER = {("resnet50", "batch_norm")}
"""(architecture, norm) of the networks that ``RunStack`` trains run by run on a CPU (on a GPU the
stack's batched kernels are the point): faster there than its vmap path on one thread (1.43x
for ResNet-50 with BN; VGG19, the MLPs and ResNet-50 without centering gain nothing),
bench/README "Training"."""


def _trained(
    spec: Mapping, network: str, depth: int, runs: list[int], lrs, rates: torch.Tensor,
    inputs: TrainData, n_classes: int, setup: Mapping, experiment_id: str,
):  # fmt: skip
    """The curves (``training.loop.Curves``) of one (network, depth): its initial networks
    (``_initial_networks``), each repeated for every step size, trained as one batched stack
    (``training.loop.train``) with member lr i, run r at ``rates[i * len(runs) + r]``; SGD
    batches from stream (``<id>.<network>.L<depth>``, r, "batches")."""
    eid = f"{experiment_id}.{network}.L{depth}"
    initial = _initial_networks(spec, network, depth, runs, inputs, n_classes, setup, experiment_id)
    on_cpu = inputs.train_x.device.type == "cpu"
    per_run = on_cpu and (setup.get("architecture"), spec["norm"]) in PER_RUN_FASTER
    stack = RunStack(initial * len(lrs), per_run=per_run)
    curves = train(
        stack, inputs, rates, setup["epochs"], setup["batch_size"], eid,
        runs * len(lrs), setup["log_every"], setup["momentum"], setup["probes"],
        desc=f"{network} L={depth}", clip=spec.get("agc", 0.0),
    )  # fmt: skip
    log.info("%s L=%d: %d members trained in %.1f s", network, depth, len(rates),
             curves.seconds)  # fmt: skip
    return curves


def _check_networks(
    networks: Mapping[str, Mapping], architecture: str, pretraining, init_batch_size: int
) -> None:
    """A ValueError naming the network whose spec ``network_training`` cannot train."""
    for name, spec in networks.items():
        unknown = set(spec) - set(NETWORK_KEYS)
        if unknown or "norm" not in spec:
            raise ValueError(f"network {name!r}: needs 'norm', may have {NETWORK_KEYS}; got "
                             f"{sorted(spec)}")  # fmt: skip
        if spec.get("pretrain_iterations") and (not pretraining or architecture != "mlp"):
            raise ValueError(f"network {name!r} pre-trains: needs an MLP and 'pretraining'")
        if spec.get("inputs", "data") not in INPUTS:
            raise ValueError(f"network {name!r}: inputs must be one of {INPUTS}")
        variant = spec.get("orthogonalize")
        allowed = VARIANTS if architecture == "mlp" else ("conv",)
        if variant and (variant not in allowed or not init_batch_size):
            raise ValueError(f"network {name!r}: orthogonalize must be one of {allowed}, with "
                             f"an init_batch_size; got {variant!r}, {init_batch_size}")  # fmt: skip


def _labelled(
    values: dict, networks: list[tuple[str, Mapping]], depths: list[int], lrs, runs: list[int],
    epochs_at: list[float], steps_at: list[int], experiment_id: str, noise_id: str,
) -> Labelled:  # fmt: skip
    """``network_training``'s curves {metric: {(network, depth): (lr, run, point)}} as one
    ``Labelled`` over (network, depth, lr, run, point), with the log points' epoch and step."""
    shape = (len(networks), len(depths), len(lrs), len(runs), len(epochs_at))
    out = {
        name: torch.stack([torch.stack([per[n, d] for d in depths]) for n, _ in networks]).reshape(
            shape
        )
        for name, per in values.items()
    }
    out["epoch"] = torch.tensor(epochs_at, dtype=torch.float64).expand(shape).clone()
    out["iteration"] = torch.tensor(steps_at, dtype=torch.float64).expand(shape).clone()
    return Labelled(
        dims=["network", "depth", "lr", "run", "point"],
        coords={
            "network": [name for name, _ in networks],
            "depth": list(depths),
            "lr": list(lrs),
            "run": runs,
            "point": list(range(len(epochs_at))),
        },
        values=out,
        seeds={
            "experiment_ids": [f"{experiment_id}.{n}.L{d}" for n, _ in networks for d in depths],
            "runs": runs,
            "streams": ["init", "pretrain", "batches"],
            "data_subset": f"{experiment_id}.data",
            **(
                {"noise_images": f"{noise_id}, run 0, stream inputs"}
                if any(spec.get("inputs") == "uniform_noise" for _, spec in networks)
                else {}
            ),
        },
    )
