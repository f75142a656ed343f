"""Training the ch. 6 network: Thesis Sec. 6.3, Figs. 6.4, 6.6, app. C.6, C.7 (Figs. C.3-C.8).

One function trains every figure's networks (``shaped_training``): the ``nets.mlp.MLP`` of
``bn_training.shaped_network`` (orthogonal weights, BN, activation shaping with gain exponent
gamma, Eq. (6.11)), started from the weights ``bn_mlp`` draws, trained with vanilla SGD (no
momentum, no weight decay; every parameter, BN's affine ones included, as the authors'
``run.py``) on the training layer (``training.loop.train``: all networks and runs of one depth as
one batched stack).

- Figs. 6.4, C.5-C.8 (``shaped_<dataset>``): shaped sin, shaped tanh and identity, plus an
  unshaped control (gamma = 0); train and test accuracy per epoch, and the per-layer gradient
  norms on the probe batch reduced to ``log_gradient_ratio`` = ln ||dL/dW_1||_F -
  ln ||dL/dW_{L-1}||_F (the growth of the gradient from the last hidden layer to the thesis's
  "first layer" ``fc_1``, Fig. 6.5's quantity).
- Figs. 6.6, C.3, C.4 (``weight_orthogonality``): shaped sin and tanh at several depths; per
  layer and epoch the isometry gap of W_l (``gram_isometry.weight_isometry_gap``) and
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

from ...base.store import Labelled
from ...datasets.data import dataset_spec
from ...engine.devices import resolve_device, resolve_dtype
from ...engine.seeding import generators
from ...training.datasets import classification_data
from ...training.loop import Curves, RunStack, train
from ...training.probes import linear_weight_names, weight_isometry_gaps
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

DISPLACEMENT_CURVES = ("weight_displacement", "random_displacement_gap")
"""The displacement probes of ``weight_orthogonality``, per (network, depth, run, layer, point),
at the first and the last point only (NaN between; the training loop logs no weights in between):
``weight_displacement`` = ||W_t - W_0||_F / ||W_0||_F, and ``random_displacement_gap`` = the
isometry gap of W_0 + Delta, Delta a Gaussian matrix scaled to ||Delta||_F = ||W_t - W_0||_F
(the counterfactual of Figs. 6.6, C.3: a step of SGD's size in a random direction). At point 0
both are those of W_0 (displacement 0, gap of W_0)."""


@torch.no_grad()
def displacement_probes(
    initial: Sequence[torch.Tensor], trained: Sequence[torch.Tensor], generator_list
) -> dict[str, torch.Tensor]:
    """``DISPLACEMENT_CURVES`` of stacked weights (R, out, in) per layer: each (R, layers).

    Args:
        initial, trained: W_0 and W_t of every Linear layer, stacked over runs.
        generator_list: one generator per run, drawing the random directions (layer by layer).
    """
    moved, gaps = [], []
    for w0, wt in zip(initial, trained, strict=True):
        w0, wt = w0.detach().double(), wt.detach().double()
        step = torch.linalg.matrix_norm(wt - w0)  # (R,)
        noise = torch.stack([
            torch.randn(w0.shape[1:], generator=g, dtype=torch.float64) for g in generator_list
        ]).to(w0.device)  # fmt: skip
        delta = noise * (step / torch.linalg.matrix_norm(noise)).view(-1, 1, 1)
        moved.append(step / torch.linalg.matrix_norm(w0))
        gaps.append(weight_isometry_gaps([w0 + delta])[:, 0])
    return {
        "weight_displacement": torch.stack(moved, dim=-1),
        "random_displacement_gap": torch.stack(gaps, dim=-1),
    }


def _with_displacement(curves: dict, before: dict, after: dict) -> dict:
    """Adds ``DISPLACEMENT_CURVES`` (R, layers, T): ``before`` at point 0, ``after`` at the last
    point, NaN between."""
    for key in DISPLACEMENT_CURVES:
        ref = curves["weight_isometry_gap"]
        out = torch.full_like(ref, math.nan, dtype=torch.float64)
        out[..., 0], out[..., -1] = before[key], after[key]
        curves[key] = out
    return curves


def _train_network(
    name: str, spec: dict, depth: int, setup: Mapping, batches, n_classes: int,
    probes: tuple[str, ...], experiment_id: str,
) -> dict[str, torch.Tensor]:  # fmt: skip
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
    # the stacked products where the blocks allow (1.2-1.3x over per run on a CPU, bench/README);
    # else per run on a CPU (1.24x over the vmap stack), batched on a GPU
    stack = RunStack(nets, per_run=batches.train_x.device.type == "cpu")
    names = linear_weight_names(stack.base)
    initial = [stack.params[n].detach().clone() for n in names]
    curves: Curves = train(
        stack, batches, rates, setup["epochs"], setup["batch_size"], eid, runs,
        probes=probes, desc=f"{name} L={depth}",
    )  # fmt: skip
    log.info("%s L=%d: %d runs trained in %.1f s", name, depth, len(runs), curves.seconds)
    if "weight_isometry_gap" not in probes:
        return curves.tensors()
    draw = generators(eid, runs, "displacement")
    before = displacement_probes(initial, initial, generators(eid, runs, "displacement"))
    after = displacement_probes(initial, [stack.params[n] for n in names], draw)
    return _with_displacement(curves.tensors(), before, after)


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
    norm: str = "batch_norm",
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
            BN (``nets.normalizations.BATCH_FUNCTIONS``; Sec. 6.3: "standard batch normalization").
        dataset, data_root, train_size, test_size, eval_size, download: the data
            (``training.datasets.classification_data``; sizes 0: the whole split).
        probe_size: the fixed batch of the probes (app. C.6: 100), the first training samples
            of the seeded subset.
        per_layer: log ``LAYER_CURVES`` per layer (Figs. 6.6, C.3, C.4) instead of
            ``SCALAR_CURVES`` (Figs. 6.4, C.5-C.8).

    Returns:
        dims (network, depth, run, point) with ``SCALAR_CURVES``, or (network, depth, run,
        layer, point) with ``LAYER_CURVES`` and ``DISPLACEMENT_CURVES``; both with ``epoch``
        (0 = at initialization) and each network's ``gain_exponent`` (recorded beside the
        curves: the thesis never states it).
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
    values: dict[str, list] = {}
    for name, spec in specs.items():
        per_depth: dict[str, list] = {}
        for depth in depths:
            curves = _train_network(
                name, spec, depth, setup, batches, n_classes, probes, experiment_id
            )
            for key, t in _depth_curves(curves, depth, max(depths) + 1, per_layer).items():
                per_depth.setdefault(key, []).append(t)
        for key, tensors in per_depth.items():
            values.setdefault(key, []).append(torch.stack(tensors))
    out = {key: torch.stack(tensors) for key, tensors in values.items()}
    gammas = [spec["gain_exponent"] for spec in specs.values()]
    return _labelled(out, networks, depths, n_runs, epochs + 1, gammas, per_layer, experiment_id)


def _depth_curves(curves: dict, depth: int, layers: int, per_layer: bool) -> dict:
    """The saved curves of one (network, depth): per layer (R, layers, T), padded with NaN to
    the largest depth + 1; else ``SCALAR_CURVES`` (R, T)."""
    if not per_layer:
        curves["log_gradient_ratio"] = _log_gradient_ratio(curves["gradient_norm"], depth)
        return {key: curves[key] for key in SCALAR_CURVES}
    out = {}
    for key in (*LAYER_CURVES, *DISPLACEMENT_CURVES):
        t = curves[key]
        pad = torch.full((t.shape[0], layers - t.shape[1], t.shape[2]), math.nan, dtype=t.dtype)
        out[key] = torch.cat([t, pad], dim=1)
    return out


def _labelled(out, networks, depths, n_runs, points, gammas, per_layer, experiment_id):
    """The simulation's ``Labelled`` table, with ``epoch`` and ``gain_exponent`` beside."""
    shape = next(iter(out.values())).shape
    epoch = torch.arange(points, dtype=torch.float64)
    out["epoch"] = epoch.expand(shape).clone()
    gammas = torch.tensor(gammas, dtype=torch.float64)
    out["gain_exponent"] = gammas.view(-1, *[1] * (len(shape) - 1)).expand(shape).clone()
    dims = ["network", "depth", "run", "layer", "point"] if per_layer else [
        "network", "depth", "run", "point"]  # fmt: skip
    coords = {"network": list(networks), "depth": list(depths), "run": list(range(n_runs)),
              "point": list(range(points))}  # fmt: skip
    if per_layer:
        coords["layer"] = list(range(max(depths) + 1))
    return Labelled(
        dims=dims,
        coords=coords,
        values=out,
        seeds={
            "experiment_ids": [f"{experiment_id}.{n}.L{d}" for n in networks for d in depths],
            "runs": list(range(n_runs)),
            "streams": ["weights", "batches", "displacement"]
            if per_layer
            else ["weights", "batches"],  # fmt: skip
            "data_subset": f"{experiment_id}.data",
        },
    )


ACCURACY_NETWORKS = ("shaped sin", "shaped tanh", "identity")
"""The curves of Figs. C.5-C.7 (and C.8); Fig. 6.4's simulation adds the unshaped control."""


def _experiment(name: str, figures: str, networks: tuple[str, ...], per_layer: bool = False):
    """``shaped_training`` of ``networks`` (under its item's experiment id ``gradients.<name>``)."""

    def run(**setup) -> Labelled:
        return shaped_training(networks, **setup, per_layer=per_layer)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"{figures}: ``shaped_training`` of {', '.join(networks)}."
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
