"""Dan+20 Prop. 19 (App. H, Eq. (95)-(97)), directional gradient vanishing: when the last hidden
representation H_L has rank one, the per-sample gradients of every row k of the classification
layer W_{L+1} are collinear, grad_{W_{L+1,[k,:]}} L_i = (grad l_i)_k h_i with h_i = c_i v.

Measured on float64 cases with per-sample gradients by ``torch.func``
(``training.probes.readout_gradients``):

- ``rank_one``: h_i = c_i v, c_i Gaussian (either sign), the proposition's hypothesis;
- ``rank_one_relu``: c_i >= 0, as after a ReLU ("for both linear and ReLU networks");
- ``full_rank``: Gaussian h_i, a control outside the hypothesis (mean |cos| ~ sqrt(2 / (pi d)));
- ``deep_vanilla`` / ``deep_bn``: H_L of untrained ReLU MLPs (``nets.mlp.MLP``, PyTorch's
  default init) of the given depth on Gaussian inputs, without and with BN: the mechanism of
  Fig. 10 (vanilla's H_L is near rank one, BN's is not).

Random W_{L+1} (PyTorch's default init) and labels; every case its own stream.
"""

from __future__ import annotations

import pandas as pd
import torch

from ...engine import metrics
from ...engine.devices import resolve_device
from ...engine.seeding import Draws, generator
from ...nets.initializations import init_weights
from ...nets.mlp import MLP
from ...training.probes import gradient_alignment, readout_gradients

__all__ = ["CASES", "measure_prop19"]

CASES = ("rank_one", "rank_one_relu", "full_rank", "deep_vanilla", "deep_bn")


def _features(case: str, width: int, n_samples: int, depth: int, gen, device) -> torch.Tensor:
    """H_L of one case, (n_samples, width) float64."""
    draws = Draws(gen, torch.float64, device)
    if case in ("rank_one", "rank_one_relu"):
        coefficients = draws.randn(n_samples, 1)
        if case == "rank_one_relu":
            coefficients = coefficients.abs()
        return coefficients * draws.randn(1, width)
    if case == "full_rank":
        return draws.randn(n_samples, width)
    norm = "batch_norm" if case == "deep_bn" else "none"
    net = MLP(width, width, depth, 10, norm).to(device, torch.float64)
    init_weights(net, "torch_default", gen)
    with torch.no_grad():  # training mode: BN with the batch's statistics
        return net(draws.randn(n_samples, width), output="last_hidden")


def measure_prop19(
    width: int,
    n_samples: int,
    n_classes: int,
    depth: int,
    n_runs: int,
    device: str = "auto",
) -> pd.DataFrame:
    """Per-sample gradient alignment of the classification layer in each case of ``CASES``.

    Args:
        width: d, the width of H_L. n_samples: N. n_classes: rows of W_{L+1}.
        depth: hidden blocks of the deep MLP cases. n_runs: independent draws per case.
    Returns:
        one row per (case, run): mean_abs_cos (``probes.gradient_alignment``: mean over rows k of
        the mean |cos| over pairs), min_abs_cos (smallest |cos| over rows and pairs),
        feature_rank (numerical rank of H_L, Dan+20 footnote 2).
    """
    dev = resolve_device(device)
    rows = []
    for case in CASES:
        for run in range(n_runs):
            gen = generator(f"rank_collapse.prop19.{case}", run, "draw")
            h = _features(case, width, n_samples, depth, gen, dev)
            head = torch.nn.Linear(width, n_classes).to(dev, torch.float64)
            init_weights(head, "torch_default", gen)
            labels = torch.randint(0, n_classes, (n_samples,), generator=gen).to(dev)
            weight, bias = head.weight.detach(), head.bias.detach()
            grads = readout_gradients(weight, bias, h, labels)  # (N, C, d)
            unit = torch.nn.functional.normalize(grads.permute(1, 0, 2), dim=-1)  # (C, N, d)
            cos = (unit @ unit.mT).abs()
            off = ~torch.eye(n_samples, dtype=torch.bool, device=dev)
            rows.append(
                {
                    "case": case,
                    "run": run,
                    "width": width,
                    "n_samples": n_samples,
                    "depth": depth if case.startswith("deep") else 0,
                    "mean_abs_cos": float(gradient_alignment(weight, bias, h, labels)),
                    "min_abs_cos": float(cos[:, off].min()),
                    "feature_rank": float(metrics.numerical_rank(h.mT)),
                }
            )
    return pd.DataFrame(rows)
