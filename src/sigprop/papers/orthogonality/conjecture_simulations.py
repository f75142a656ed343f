"""DJB21 App. F (paper only; dropped from the thesis): the non-linear BN chain and Conjecture F.1.

Chain (App. F, before Eq. (19)): Q_{l+1} = BN(W_l F(Q_l)) with F elementwise and, as in the
authors' code, rows normalized to unit norm (no 1/sqrt(d)), W_l with i.i.d. N(0, 1) entries and
Q_0 = randn(d, n). We run it in the scale of DJB21 Eq. (1): H_l = Q_l / sqrt(d) is the output of
``ops.bn_rms_scaled`` and F acts on sqrt(d) H_l (``chains.ActivatedProduct``), so that
M(Q) = Q^T Q / d = H^T H has trace 1.

Eq. (19): L(Q) = ||M(Q) - K||_F with K = E_nu[M] under the invariant law nu. Conjecture F.1
(Eq. (20)): E L(Q_l) = O(1/sqrt(d)) for l > k, validated by Fig. 6.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from ...base.store import Labelled
from ...engine import chains, metrics, ops
from ...engine.devices import resolve_device, resolve_dtype
from ...engine.inputs import gaussian_inputs
from .conjecture_spec import ODD_ACTIVATIONS

__all__ = [
    "ODD_ACTIVATIONS",
    "PRODUCTS",
    "VALUES",
    "GroupedActivatedProduct",
    "conjecture_chain",
    "fluctuation",
    "gram_of_state",
    "stationary_gram",
]

PRODUCTS = ("explicit", "gram")

VALUES = ("mean_fluctuation", "mean_fluctuation_burn_in", "mean_gap", "k_offdiag", "k_offdiag_max")
"""The values of ``conjecture_chain`` per (activation, width, run) (its docstring)."""


def gram_of_state(h: Tensor) -> Tensor:
    """M = Q^T Q / d = H^T H for Q = sqrt(d) H (DJB21 App. F), shape (..., n, n)."""
    return h.mT @ h


def fluctuation(h: Tensor, k: Tensor) -> Tensor:
    """L(Q) = ||M(Q) - K||_F, DJB21 Eq. (19) with the code's M = Q^T Q / d; batched over runs.

    Args:
        h: states H = Q / sqrt(d), shape (R, d, n).
        k: the stationary Gram E_nu[M] per run, shape (R, n, n) (or broadcastable).
    """
    return torch.linalg.matrix_norm(gram_of_state(h) - k)


class GroupedActivatedProduct:
    """W_l F_a(c H) for runs stacked in groups, one activation F_a per group.

    The fused form of one ``chains.ActivatedProduct`` per activation: each group keeps its own
    base product and random stream, but the Gram square root of all groups is taken in one
    batched call, so a chain over all activations costs little more than a chain over one.

    Args:
        bases: one ``GaussianGramProduct`` or ``ExplicitProduct`` per group, all of R runs.
        activations: one name in ``ops.ACTIVATIONS`` per group.
        scale: c (sqrt(d) for the App. F chain in the scale of H).
    """

    def __init__(self, bases: list, activations: list[str], scale: float):
        if len(bases) != len(activations):
            raise ValueError(f"{len(bases)} products for {len(activations)} activations")
        self.gram = all(isinstance(b, chains.GaussianGramProduct) for b in bases)
        if not self.gram and not all(isinstance(b, chains.ExplicitProduct) for b in bases):
            raise ValueError("products must be all GaussianGramProduct or all ExplicitProduct")
        self.bases, self.scale = bases, float(scale)
        self._fs = [ops.activation(a) for a in activations]

    def __call__(self, h: Tensor) -> Tensor:
        groups = h.unflatten(0, (len(self.bases), -1))
        f = [fn(self.scale * g) for fn, g in zip(self._fs, groups, strict=True)]
        if self.gram:
            draws = torch.cat([b.next_draws() for b in self.bases])
            return draws @ chains.gram_sqrt(torch.cat(f))
        return torch.cat([b.next_weights() @ x for b, x in zip(self.bases, f, strict=True)])


def _stacked_chain(
    stream_ids: list[str],
    runs: list[int],
    d: int,
    n: int,
    activations: list[str],
    product: str,
    dtype: torch.dtype,
    device: torch.device,
) -> tuple[Tensor, GroupedActivatedProduct]:
    """Stacked inputs H_0 = randn(d, n) / sqrt(d), group-major, and the product W_l F_a(sqrt(d) H).

    Group a (activation a) draws its inputs and weights from ``stream_ids[a]``.
    """
    bases = [
        chains.GaussianGramProduct(sid, runs, d, n, 1.0, dtype, device)
        if product == "gram"
        else chains.ExplicitProduct(sid, runs, d, "gaussian", 1.0, dtype, device)
        for sid in stream_ids
    ]
    h0 = torch.cat([gaussian_inputs(sid, runs, d, n, dtype, device) for sid in stream_ids])
    return h0 / math.sqrt(d), GroupedActivatedProduct(bases, activations, math.sqrt(d))


def stationary_gram(
    stream_ids: list[str],
    runs: list[int],
    d: int,
    n: int,
    activations: list[str],
    depth: int,
    product: str = "gram",
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
) -> Tensor:
    """K = E_nu[M] per activation and run: the time average of M over layers 1..depth of a chain
    from randn(d, n).

    The authors' estimator (DJB21 App. F, its code: 5000 layers, no burn-in), with one
    independent reference chain per run. Activation a uses stream ``stream_ids[a]``.

    Returns:
        shape (A, R, n, n), symmetric with trace 1.
    """
    h0, prod = _stacked_chain(stream_ids, runs, d, n, activations, product, dtype, device)
    total = torch.zeros(h0.shape[0], n, n, dtype=dtype, device=device)

    def accumulate(h: Tensor) -> Tensor:
        m = gram_of_state(h)
        total.add_(m)
        return m.diagonal(dim1=-2, dim2=-1).sum(-1)

    chains.simulate(
        h0,
        chains.Step("bn_rms_scaled"),
        prod,
        depth,
        {"trace": accumulate},  # records Tr M = 1 (a by-product); the sum of M is the point
        desc=f"reference chains d={d}",
    )
    k = total / depth
    return ((k + k.mT) / 2).unflatten(0, (len(activations), len(runs))).cpu()


def conjecture_chain(
    widths: list[int],
    batch_size: int,
    activations: list[str],
    reference_depth: int,
    depth: int,
    burn_in: int,
    n_runs: int,
    product: str,
    dtype: str,
    device: str = "auto",
    *,
    experiment_id: str,
) -> Labelled:
    """Layer-averaged L(Q_l) of DJB21 Eq. (19) per activation, width and run (Fig. 6, Conj. F.1).

    Per (activation, width, run): K from an independent reference chain of ``reference_depth``
    layers (``stationary_gram``), then a fresh chain from randn(d, n) of ``depth`` layers, on
    which L(Q_l) = ||M(Q_l) - K||_F is averaged over layers 1..depth (the code's protocol, no
    burn-in) and over burn_in+1..depth. ``product="gram"`` samples W F(Q) through the Gram of
    F(Q), exact in law; ``"explicit"`` draws the code's d x d weights. All activations of one
    width run as one stacked chain; each (activation, width) has its own random streams
    ``<experiment_id>.<activation>.d<d>`` (fresh chain) and ``...reference`` (K).

    Returns:
        Labelled over (activation, width, run) with values ``mean_fluctuation`` (layers
        1..depth), ``mean_fluctuation_burn_in`` (burn_in+1..depth), ``mean_gap`` (V of Eq. (2)
        over 1..depth; equals L when K = I / n), ``k_offdiag`` (mean of K_ij over i < j) and
        ``k_offdiag_max`` (max_{i != j} |K_ij|).
    """
    _check_settings(product, burn_in, depth, activations)
    device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    runs = list(range(n_runs))
    shape = (len(activations), len(widths), n_runs)
    values = {v: torch.empty(shape, dtype=torch_dtype) for v in VALUES}
    ids = []
    for w, d in enumerate(widths):
        stream_ids = [f"{experiment_id}.{a}.d{d}" for a in activations]
        ids += [x for sid in stream_ids for x in (sid, f"{sid}.reference")]
        width_values = _width_values(
            stream_ids, runs, d, batch_size, activations, reference_depth, depth, burn_in,
            product, torch_dtype, device,
        )  # fmt: skip
        for v, value in width_values.items():
            values[v][:, w] = value
    return Labelled.over(
        {"activation": activations, "width": widths, "run": runs},
        values=values,
        seeds={
            "experiment_ids": ids,
            "runs": runs,
            "streams": ["input", "gram" if product == "gram" else "weights"],
        },
    )


def _check_settings(product: str, burn_in: int, depth: int, activations: list[str]) -> None:
    """A ValueError naming the ``conjecture_chain`` setting it cannot run, before any work."""
    if product not in PRODUCTS:
        raise ValueError(f"product must be one of {PRODUCTS}, got {product!r}")
    if not 0 <= burn_in < depth:
        raise ValueError(f"burn_in must be in [0, depth={depth}), got {burn_in}")
    for name in activations:
        ops.activation(name)  # a clear ValueError for an unknown activation


def _width_values(
    stream_ids: list[str],
    runs: list[int],
    d: int,
    n: int,
    activations: list[str],
    reference_depth: int,
    depth: int,
    burn_in: int,
    product: str,
    dtype: torch.dtype,
    device: torch.device,
) -> dict[str, Tensor]:
    """``VALUES`` at width d, each of shape (activations, runs): K from the reference chains
    (streams ``<stream_id>.reference``, ``stationary_gram``), then the fresh chains from
    randn(d, n) (streams ``stream_ids``) with L(Q_l) of Eq. (19) and V of Eq. (2) per layer."""
    offdiag = ~torch.eye(n, dtype=torch.bool)
    k = stationary_gram(
        [f"{sid}.reference" for sid in stream_ids],
        runs,
        d,
        n,
        activations,
        reference_depth,
        product,
        dtype,
        device,
    )
    h0, prod = _stacked_chain(stream_ids, runs, d, n, activations, product, dtype, device)
    k_flat = k.flatten(0, 1).to(device)
    trace = chains.simulate(
        h0,
        chains.Step("bn_rms_scaled"),
        prod,
        depth,
        {"L": lambda h: fluctuation(h, k_flat), "V": metrics.orthogonality_gap},
        desc=f"fluctuation chains d={d}",
    )
    fluct = trace.values["L"].unflatten(0, (len(activations), len(runs)))
    return {
        "mean_fluctuation": fluct.mean(dim=-1),
        "mean_fluctuation_burn_in": fluct[..., burn_in:].mean(dim=-1),
        "mean_gap": trace.values["V"].unflatten(0, fluct.shape[:2]).mean(dim=-1),
        "k_offdiag": k[..., offdiag].mean(dim=-1),
        "k_offdiag_max": k[..., offdiag].abs().amax(dim=-1),
    }
