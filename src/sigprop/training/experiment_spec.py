"""The constants of a training experiment (``sigprop.training.experiment``) that item tables and
config checks share; torch-free, so loading the registry imports no torch."""

__all__ = ["CURVES", "INPUTS", "NETWORKS", "NETWORK_KEYS"]

NETWORKS = {"BN": {"norm": "batch_norm"}, "vanilla": {"norm": "none"}}
"""The default curves (Dan+20 Fig. 1): torch's ``BatchNorm1d`` after each hidden Linear, or none."""

NETWORK_KEYS = (
    "norm", "init", "pretrain_iterations", "same_init_as", "lr_scale", "inputs", "orthogonalize",
    "orthogonal_weights", "agc",
)  # fmt: skip
"""A network's keys: ``norm``; ``init`` (a scheme of ``nets.initializations.INITS``); transforms
after the init: ``pretrain_iterations`` (Dan+20 Algorithm 1), ``orthogonalize`` (iterative
orthogonalization, DJB21 Eq. (6): a variant of ``nets.orthogonalization.VARIANTS`` for an MLP,
``conv`` for a conv net, App. G), ``orthogonal_weights`` (Thesis App. A.5 (i)); ``same_init_as``
(share another network's initial draw); ``lr_scale``; ``agc`` (adaptive gradient clipping's
lambda, Thesis Eq. (A.21)); ``inputs`` (``INPUTS``)."""

INPUTS = ("data", "uniform_noise")
"""A network's training images: the dataset's, or uniform noise of their shape (Fig. 10)."""

CURVES = (
    "train_loss", "train_accuracy", "test_loss", "test_accuracy", "rank", "r_lower_bound",
    "gradient_alignment", "orthogonality_gap",
)  # fmt: skip
"""Logged per run and point; NaN once a run has diverged (a grid point with too large a step)."""
