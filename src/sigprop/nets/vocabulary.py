"""One vocabulary of normalizations and initializations for config, code and docs.

Every table of the code that builds a normalization or an initialization by name accepts a subset
of these names and means by each what is written here; ``tests/test_vocabulary.py`` checks the
code's tables, the config files and the config schema against it.
"""

from __future__ import annotations

__all__ = ["INITIALIZATIONS", "NORMALIZATIONS"]

NORMALIZATIONS: dict[str, str] = {
    "none": "no normalization (the vanilla network)",
    "batch_norm": "torch's BatchNorm in training mode at initialization: centred, biased "
    "variance, eps 1e-5, weight 1, bias 0, per feature over the batch (and the pixels of a map); "
    "``ops.batch_norm`` on the seeds' (d, n) layout, ``nn.BatchNorm1d``/``2d`` in networks",
    "batch_norm_uncentered": "BatchNorm without mean subtraction, x / sqrt(E_batch x^2 + eps) "
    "(Dan+20 Figs. 5, 7, 13, 'BN without mean deduction')",
    "bn_rms": "Dan+20 Eq. (2): BN_{0,1}(H) = diag(M(H))^{-1/2} H, M(H) = H H^T / N (each row of "
    "H to norm sqrt(N); uncentred, parameter free)",
    "bn_unit": "Thesis Eq. (6.4): BN(H) = diag(H H^T)^{-1/2} H (each row to norm 1)",
    "bn_rms_scaled": "DJB21 Eq. (1) (Thesis Eq. (2.1)): ``bn_unit`` / sqrt(d)",
    "bn_centered": "Dan+20 App. C (Fig. 7): each row's batch mean subtracted, then ``bn_rms``",
    "ln_rms": "Thesis Cor. 4.4: LN(x) = sqrt(d) x / ||x|| per sample (column)",
    "ln_centered": "layer normalization with centring: each column's mean over the d features "
    "subtracted, then ``ln_rms``",
    "pre_rms": "Thesis Eqs. (5.11)-(5.13), pre-activation: h = phi(norm(W h)), norm ``ln_rms``",
    "pre_ln": "Thesis Eqs. (5.11)-(5.13), pre-activation with norm ``ln_centered``",
    "post_rms": "Thesis Eqs. (5.11)-(5.13), post-activation: h = norm(phi(W h)), norm ``ln_rms``",
    "post_ln": "Thesis Eqs. (5.11)-(5.13), post-activation with norm ``ln_centered``",
}
"""Normalizations by name (``norm``/``norms``/``normalization`` in the config)."""

INITIALIZATIONS: dict[str, str] = {
    "torch_default": "U[-1/sqrt(fan_in), 1/sqrt(fan_in)] for weight and bias: ``nn.Linear``'s "
    "and ``nn.Conv2d``'s own init, Dan+20's 'standard PyTorch init'",
    "asymmetric": "weights U[0, 2/sqrt(fan_in)] (the default's variance in R+, Dan+20 Figs. 5, "
    "13); bias as the default",
    "xavier": "Xavier (Glorot) normal weights, variance 2 / (fan_in + fan_out); zero bias",
    "xavier_relu": "Xavier uniform with the ReLU gain sqrt(2); zero bias (DJB21's code's "
    "``xavier_init``)",
    "orthogonal": "Haar (semi-)orthogonal weights (``nn.init.orthogonal_``; a conv's flattened per "
    "output channel); zero bias",
    "gaussian": "Thesis Fig. 6.3's 'Normal' weights: Gaussian of variance 2 / (fan_in + "
    "fan_out), the law of ``xavier``, drawn by the batched gradient code",
}
"""Initializations by name (``init`` in the config, ``init_weights`` and the gradient code)."""
