"""Training the ch. 6 network: Thesis Sec. 6.3, Figs. 6.4, 6.6, app. C.6, C.7 (Figs. C.3-C.8).

One function trains every figure's networks (``shaped_training``): ``bn_training.ShapedBNMLP``
(orthogonal weights, BN, activation shaping with gain exponent gamma, Eq. (6.11)), started from
the weights ``bn_mlp`` draws, trained with vanilla SGD (no momentum, no weight decay; every
parameter, BN's affine ones included, as the authors' ``run.py``) on the training layer
(``training.loop.train``: all networks and runs of one depth as one batched stack).

- Figs. 6.4, C.5-C.8 (``shaped_<dataset>``): shaped sin, shaped tanh and identity, plus an
  unshaped control (gamma = 0); train and test accuracy per epoch, and the per-layer gradient
  norms on the probe batch reduced to ``log_gradient_ratio`` = ln ||dL/dW_1||_F -
  ln ||dL/dW_{L-1}||_F (the growth of the gradient from the last hidden layer to the thesis's
  "first layer" ``fc_1``, Fig. 6.5's quantity).
- Figs. 6.6, C.3, C.4 (``weight_orthogonality``): shaped sin and tanh at several depths; per
  layer and epoch the isometry gap of W_l (``isometry.weight_isometry_gap``) and
  ||dL/dW_l||_F on a fixed batch of 100 training samples (app. C.6).

The thesis never states the gain exponent of its training runs (app. C.6: "set to a fixed value
for all experiments"); the config records the one used (0.4, Fig. 6.5's value, our presumption).
Train accuracy is evaluated in eval mode after each epoch on ``eval_size`` training samples (the
authors' script reports the running accuracy during the epoch instead); test accuracy in eval
mode (torch BN's running statistics), as theirs.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence

import torch

from ...compute import resolve_device, resolve_dtype
from ...data import dataset_spec
from ...store import Labelled
from ...training.datasets import classification_data
from ...training.loop import Curves, RunStack, train
from . import bn_mlp
from .bn_training import initial_networks

__all__ = [
    "NETWORKS",
    "SCALAR_CURVES",
    "shaped_cifar10",
    "shaped_cifar100",
    "shaped_fmnist",
    "shaped_mnist",
    "shaped_training",
    "weight_orthogonality",
]

log = logging.getLogger(__name__)

NETWORKS = {
    "shaped sin": ("sin", True),
    "shaped tanh": ("tanh", True),
    "identity": ("linear", True),
    "unshaped sin": ("sin", False),
}
"""Curve name -> (activation, shaped): shaped networks use the configured gain exponent gamma,
unshaped ones gamma = 0 (alpha_l = 1). Identity is "gained" too, as in the thesis's captions
("gained sin, tanh and identity") and the authors' code (their guard against gaining identity
never fires); for identity the gain only rescales each BN output."""

SCALAR_CURVES = (
    "train_loss", "train_accuracy", "test_loss", "test_accuracy", "log_gradient_ratio",
)  # fmt: skip
"""The accuracy simulations' curves, per (network, depth, run, point); NaN once a run diverged."""

LAYER_CURVES = ("weight_isometry_gap", "gradient_norm")
"""The per-layer curves of ``weight_orthogonality``, per (network, depth, run, layer, point);
NaN at layers beyond a network's depth (fc_0 .. fc_L exist up to layer L) and once a run
diverged."""


def _train_network(
    name: str, spec: dict, depth: int, setup: Mapping, batches, n_classes: int,
    probes: tuple[str, ...], experiment_id: str,
) -> Curves:  # fmt: skip
    """``n_runs`` networks of one kind and depth, trained as one stack. Run r's weights are
    ``bn_mlp``'s draw for (``<experiment_id>.<name>.L<depth>``, r), its minibatches its own
    stream of that id."""
    arch = bn_mlp.Architecture(
        depth=depth, width=setup["width"], norm=setup["norm"], activation=spec["activation"],
        gain_exponent=spec["gain_exponent"],
    )  # fmt: skip
    eid = f"{experiment_id}.{name}.L{depth}"
    runs = list(range(setup["n_runs"]))
    nets = initial_networks(
        arch, batches.train_x.shape[1], n_classes, eid, runs, batches.train_x.dtype,
        batches.train_x.device,
    )  # fmt: skip
    rates = torch.full((len(runs),), float(setup["lr"]))
    curves = train(
        RunStack(nets), batches, rates, setup["epochs"], setup["batch_size"], eid, runs,
        probes=probes, desc=f"{name} L={depth}",
    )  # fmt: skip
    log.info("%s L=%d: %d runs trained in %.1f s", name, depth, len(runs), curves.seconds)
    return curves


def _log_gradient_ratio(norms: torch.Tensor, depth: int) -> torch.Tensor:
    """ln ||dL/dW_1|| - ln ||dL/dW_{L-1}|| from per-layer norms (R, L + 1, T) -> (R, T)."""
    return norms[:, 1].log() - norms[:, depth - 1].log()


def shaped_training(
    networks: Sequence[str],
    gain_exponent: float,
    depths: list[int],
    epochs: int,
    n_runs: int = 1,
    width: int = 100,
    batch_size: int = 100,
    lr: float = 0.001,
    norm: str = "batch_norm_torch",
    dataset: str = "fashion_mnist",
    data_root: str = "data",
    train_size: int = 0,
    test_size: int = 0,
    eval_size: int = 0,
    probe_size: int = 100,
    per_layer: bool = False,
    dtype: str = "float32",
    download: bool = False,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """Train every (network, depth, run) of ``networks`` with SGD and log its curves per epoch.

    Args:
        networks: names in ``NETWORKS``.
        gain_exponent: gamma of the shaped networks, alpha_l = (l + 1)^-gamma (Eq. (6.11)).
        depths: L of each network (L BN layers, L + 1 Linear layers; L >= 2).
        epochs, n_runs, width, batch_size, lr, norm: SGD epochs, runs, d, n, step size and the
            BN (``bn_mlp.NORMS``; Sec. 6.3: "standard batch normalization").
        dataset, data_root, train_size, test_size, eval_size, download: the data
            (``training.datasets.classification_data``; sizes 0: the whole split).
        probe_size: the fixed batch of the probes (app. C.6: 100), the first training samples
            of the seeded subset.
        per_layer: log ``LAYER_CURVES`` per layer (Figs. 6.6, C.3, C.4) instead of
            ``SCALAR_CURVES`` (Figs. 6.4, C.5-C.8).

    Returns:
        dims (network, depth, run, point) with ``SCALAR_CURVES``, or (network, depth, run,
        layer, point) with ``LAYER_CURVES``; both with ``epoch`` (0 = at initialization) and
        each network's ``gain_exponent`` (recorded beside the curves: the thesis never states it).
    """
    unknown = set(networks) - set(NETWORKS)
    if unknown or not networks:
        raise ValueError(f"networks must be names in {list(NETWORKS)}, got {list(networks)}")
    specs = {
        name: {"activation": NETWORKS[name][0],
               "gain_exponent": gain_exponent if NETWORKS[name][1] else 0.0}
        for name in networks
    }  # fmt: skip
    if not depths or min(depths) < 2:
        raise ValueError(f"depths must be >= 2 (fc_1 .. fc_(L-1) must exist), got {depths}")
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    batches = classification_data(
        dataset, data_root, train_size, test_size, probe_size, eval_size, download,
        f"{experiment_id}.data", device, torch_dtype,
    )  # fmt: skip
    n_classes = dataset_spec(dataset)[1].n_classes
    setup = {"width": width, "norm": norm, "n_runs": n_runs, "lr": lr, "epochs": epochs,
             "batch_size": batch_size}  # fmt: skip
    probes = LAYER_CURVES if per_layer else ("gradient_norm",)
    layers = max(depths) + 1
    values: dict[str, list] = {}
    for name, spec in specs.items():
        per_depth: dict[str, list] = {}
        for depth in depths:
            curves = _train_network(
                name, spec, depth, setup, batches, n_classes, probes, experiment_id
            ).tensors()
            if per_layer:
                for key in LAYER_CURVES:  # (R, L + 1, T), padded with NaN to max depth + 1
                    t = curves[key]
                    pad = torch.full((t.shape[0], layers - t.shape[1], t.shape[2]), math.nan,
                                     dtype=t.dtype)  # fmt: skip
                    per_depth.setdefault(key, []).append(torch.cat([t, pad], dim=1))
            else:
                curves["log_gradient_ratio"] = _log_gradient_ratio(curves["gradient_norm"], depth)
                for key in SCALAR_CURVES:
                    per_depth.setdefault(key, []).append(curves[key])
        for key, tensors in per_depth.items():
            values.setdefault(key, []).append(torch.stack(tensors))
    out = {key: torch.stack(tensors) for key, tensors in values.items()}
    points = epochs + 1
    shape = next(iter(out.values())).shape
    epoch = torch.arange(points, dtype=torch.float64)
    out["epoch"] = epoch.expand(shape).clone()
    gammas = torch.tensor([spec["gain_exponent"] for spec in specs.values()], dtype=torch.float64)
    out["gain_exponent"] = gammas.view(-1, *[1] * (len(shape) - 1)).expand(shape).clone()
    dims = ["network", "depth", "run", "layer", "point"] if per_layer else [
        "network", "depth", "run", "point"]  # fmt: skip
    coords = {"network": list(networks), "depth": list(depths), "run": list(range(n_runs)),
              "point": list(range(points))}  # fmt: skip
    if per_layer:
        coords["layer"] = list(range(layers))
    return Labelled(
        dims=dims,
        coords=coords,
        values=out,
        seeds={
            "experiment_ids": [f"{experiment_id}.{n}.L{d}" for n in networks for d in depths],
            "runs": list(range(n_runs)),
            "streams": ["weights", "batches"],
            "data_subset": f"{experiment_id}.data",
        },
    )


ACCURACY_NETWORKS = ("shaped sin", "shaped tanh", "identity")
"""The curves of Figs. C.5-C.7 (and C.8); Fig. 6.4's simulation adds the unshaped control."""


def _experiment(name: str, figures: str, networks: tuple[str, ...], per_layer: bool = False):
    """``shaped_training`` of ``networks`` under experiment id ``gradients.<name>``."""

    def run(**setup) -> Labelled:
        return shaped_training(
            networks, **setup, per_layer=per_layer, experiment_id=f"gradients.{name}"
        )

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"{figures}: ``shaped_training`` with experiment id ``gradients.{name}``."
    return run


shaped_cifar10 = _experiment(
    "shaped_cifar10", "Thesis Figs. 6.4, C.8 (CIFAR-10)", (*ACCURACY_NETWORKS, "unshaped sin")
)
shaped_mnist = _experiment("shaped_mnist", "Thesis Fig. C.5 (MNIST)", ACCURACY_NETWORKS)
shaped_fmnist = _experiment("shaped_fmnist", "Thesis Fig. C.6 (Fashion-MNIST)", ACCURACY_NETWORKS)
shaped_cifar100 = _experiment("shaped_cifar100", "Thesis Fig. C.7 (CIFAR-100)", ACCURACY_NETWORKS)
weight_orthogonality = _experiment(
    "weight_orthogonality", "Thesis Figs. 6.6, C.3, C.4 (app. C.6)",
    ("shaped sin", "shaped tanh"), per_layer=True,
)  # fmt: skip
