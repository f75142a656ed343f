"""Orthogonality gap per layer at initialization of a deep ReLU MLP on real data (DJB21 Sec. 5).

Figure ``init_gap``: V(H_l) for l = 0..depth-1 of the bias-free ReLU MLP of DJB21 Figs. 3-4
(Thesis Figs. 2.4-2.5) under Xavier, iterative orthogonalization (DJB21 Eq. (6), Thesis
Eq. (2.6); the authors' code variant) and the orthogonal-weights baseline (Thesis App. A.5 (i)),
on the initialization batch and on an independent evaluation batch.
"""

from __future__ import annotations

import copy

import torch

from ...base.store import Labelled
from ...datasets import data
from ...engine import metrics, seeding
from ...engine.devices import resolve_device, resolve_dtype
from ...nets import djb21, orthogonalization
from ...nets.initializations import init_weights

__all__ = ["BATCHES", "INIT_BATCH_FACTOR", "METHODS", "init_gap", "normalized_images"]

METHODS = ("xavier", "iterative_code", "iterative_paper", "orthogonal")
"""Initializations: Xavier alone (``xavier_relu``, the code's ``xavier_init``); then iterative
orthogonalization, code or paper variant (``orthogonalization.iterative_orthogonalization``); or
orthogonal weights."""

BATCHES = ("init", "eval")
"""The batch iterative orthogonalization was computed on, and an independent one."""

INIT_BATCH_FACTOR = 3
"""n = 3 width samples in the initialization batch, as in the authors' ``improved_init``."""


def normalized_images(dataset: str, data_root: str) -> torch.Tensor:
    """Training images as flat rows, normalized as the authors' ``Normalize(0.5, 0.5)``: 2 x - 1.

    Returns:
        float32, shape (N, features) (784 for Fashion-MNIST, 3072 for CIFAR-10), values in
        [-1, 1].
    """
    images, _ = data.as_tensors(data.load(dataset, root=data_root, train=True))
    return images.flatten(1).mul_(2.0).sub_(1.0)


def init_gap(
    dataset: str,
    data_root: str,
    width: int,
    depth: int,
    eval_batch_size: int,
    n_runs: int,
    methods: list[str],
    dtype: str,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """V(H_l) per layer at initialization, per method, batch and run (figure ``init_gap``).

    Per run r: one random permutation of the training set (stream ``"batch"``) gives the
    initialization batch (its first n = 3 width images) and a disjoint evaluation batch (the
    next ``eval_batch_size``); one Xavier initialization (stream ``"weights"``) is shared by all
    methods, which then modify a copy of it, so the methods are compared on the same weights and
    batches. H_0 is the input batch, H_l (l >= 1) the output of the l-th ReLU (the input of
    Linear layer l).

    Args:
        dataset: a ``sigprop.datasets.data.DATASETS`` key (``fashion_mnist``; CIFAR-10 at paper
        scale). data_root: the data directory of ``sigprop.datasets.data.load``.
        width: hidden width d. depth: number of Linear layers (the code's ``layer_num``).
        eval_batch_size: size of the independent evaluation batch.
        methods: a subset of ``METHODS``.
    Returns:
        ``gap`` over dims (method, batch, run, layer).
    """
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"methods must be among {METHODS}, got {unknown}")
    dev, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    images = normalized_images(dataset, data_root)
    n = INIT_BATCH_FACTOR * width
    if n + eval_batch_size > images.shape[0]:
        raise ValueError(
            f"init (3 width = {n}) and eval ({eval_batch_size}) batches exceed the "
            f"{images.shape[0]} images of {dataset}"
        )
    runs = list(range(n_runs))
    gaps = torch.empty(len(methods), len(BATCHES), n_runs, depth, dtype=torch_dtype)
    for r in runs:
        perm = torch.randperm(
            images.shape[0], generator=seeding.generator(experiment_id, r, "batch")
        )
        batches = {
            "init": images[perm[:n]].to(dev, torch_dtype),
            "eval": images[perm[n : n + eval_batch_size]].to(dev, torch_dtype),
        }
        base = djb21.relu_mlp(images.shape[1], width, depth).to(dev, torch_dtype)
        init_weights(base, "xavier_relu", seeding.generator(experiment_id, r, "weights"))
        # H_0 is the batch itself, the same for every method: its gap once per batch
        inputs = {name: metrics.orthogonality_gap(b.mT) for name, b in batches.items()}
        for i, method in enumerate(methods):
            model = copy.deepcopy(base)
            if method.startswith("iterative_"):
                variant = method.removeprefix("iterative_")
                orthogonalization.iterative_orthogonalization(model, batches["init"], variant)
            elif method == "orthogonal":
                orthogonalization.orthogonal_weights(model)
            for j, name in enumerate(BATCHES):
                _, post = orthogonalization.hidden_representations(model, batches[name])
                layers = [inputs[name]] + [metrics.orthogonality_gap(h) for h in post[1:]]
                gaps[i, j, r] = torch.stack(layers).cpu()
    return Labelled.over(
        {"method": methods, "batch": BATCHES, "run": runs, "layer": range(depth)},
        values={"gap": gaps},
        seeds={"experiment_id": experiment_id, "runs": runs, "streams": ["batch", "weights"]},
    )
