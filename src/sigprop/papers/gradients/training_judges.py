"""Claims of the ch. 6 training figures from their plotted tables (torch-free).

Figs. 6.4, C.5-C.8 (Thesis Sec. 6.3, app. C.7): "the identity activation performs much worse
than the nonlinearities", at a depth where the unshaped net explodes (an unshaped control
trained beside them shows the explosion). Figs. 6.6, C.3, C.4 (Sec. 6.5, app. C.6): the weights
stay near orthogonal during SGD, middle layers more so in deeper nets, and the gradients do not
vanish. NaN (a diverged run) propagates into every reduction (``skipna=False``).
"""

from __future__ import annotations

import math

import pandas as pd

from ...claims import Claim, evaluate

__all__ = [
    "CONTROL",
    "IDENTITY",
    "SHAPED",
    "accuracy_claims",
    "gamma_note",
    "fig6_4_claims",
    "fig6_6_claims",
    "fig_c3_claims",
    "fig_c4_claims",
    "fig_c5_claims",
    "fig_c6_claims",
    "fig_c7_claims",
    "fig_c8_claims",
    "middle_layers",
]

SHAPED = ("shaped sin", "shaped tanh")
"""The shaped networks of every training figure (config ``networks`` names)."""
IDENTITY = "identity"
"""The identity-activation network of Figs. 6.4, C.5-C.8."""
CONTROL = "unshaped sin"
"""The unshaped control of Figs. 6.4, C.5-C.8 (sin without gain, gamma = 0)."""
ORTHOGONALITY_NETWORK = "shaped tanh"
"""Fig. 6.6's network (tanh, gained); Figs. C.3, C.4 draw every ``SHAPED`` network."""


def gamma_note(table: pd.DataFrame) -> str:
    """The gain exponents the claims depend on, stated in their notes (app. C.6 never gives
    the value used for training; ours is a presumption)."""
    gammas = table.groupby("network")["gain_exponent"].first()
    listed = ", ".join(f"{n} {g:g}" for n, g in gammas.items())
    return f"gain exponent gamma (not stated in the thesis for training; presumed): {listed}"


def _run_means(table: pd.DataFrame, metric: str, by: list[str]) -> pd.Series:
    """Mean over runs of ``metric`` per ``by`` group; NaN propagates."""
    return table.groupby(by)[metric].apply(lambda s: s.mean(skipna=False))


def _final(table: pd.DataFrame, metric: str) -> pd.Series:
    """Per network: the run-mean of ``metric`` at the last point of the deepest depth."""
    rows = table[
        (table["depth"] == table["depth"].max()) & (table["point"] == table["point"].max())
    ]
    return _run_means(rows, metric, ["network"])


def accuracy_claims(
    table: pd.DataFrame,
    margin: float,
    prefix: str,
    source: str,
    splits: tuple[str, ...],
    explosion_log_ratio: float | None = None,
    stable_log_ratio: float | None = None,
) -> list[Claim]:
    """Shaped sin and tanh beat identity by ``margin`` in final accuracy on each of ``splits``
    (``train``, ``test``), at the deepest depth; with ``explosion_log_ratio``, the unshaped
    control's gradient grows at least that much (ln) from fc_(L-1) to fc_1 at initialization,
    and shaped beats the control by ``margin``; with ``stable_log_ratio``, the shaped nets'
    |log_gradient_ratio| stays at most that at every epoch.

    Args:
        table: network, depth, run, point, epoch, {train,test}_accuracy, log_gradient_ratio.
    """
    depth, epochs = int(table["depth"].max()), float(table["epoch"].max())
    note = gamma_note(table)
    claims = []
    for split in splits:
        final = _final(table, f"{split}_accuracy")
        lead = min(final[n] - final[IDENTITY] for n in SHAPED)
        claims.append(evaluate(
            id=f"{prefix}.shaped_beats_identity_{split}",
            statement=(
                f"'The identity activation performs much worse than the nonlinearities': after "
                f"{epochs:g} epochs at depth {depth}, shaped sin and shaped tanh each exceed "
                f"identity's {split} accuracy ({final[IDENTITY]:.3g}) by at least {margin:g}; "
                f"measured is the smaller lead (sin {final[SHAPED[0]]:.3g}, tanh "
                f"{final[SHAPED[1]]:.3g})"
            ),
            source=source, measured=lead, relation=">=", bound=margin, note=note,
        ))  # fmt: skip
    if explosion_log_ratio is not None:
        deep = table[table["depth"] == depth]
        init = _run_means(deep[deep["point"] == 0], "log_gradient_ratio", ["network"])
        final = _final(table, "train_accuracy")
        claims += [
            evaluate(
                id=f"{prefix}.unshaped_control_explodes",
                statement=(
                    f"the unshaped control ({CONTROL}, gamma = 0) at depth {depth} explodes at "
                    f"initialization: ln ||dL/dW_1||_F - ln ||dL/dW_(L-1)||_F >= "
                    f"{explosion_log_ratio:g} (Fig. 6.5 without gain)"
                ),
                source="Thesis Sec. 6.4, Fig. 6.5 (the control of Fig. 6.4)",
                measured=float(init[CONTROL]), relation=">=", bound=explosion_log_ratio,
                note=note,
            ),
            evaluate(
                id=f"{prefix}.shaped_beats_unshaped",
                statement=(
                    f"shaping makes the depth-{depth} net trainable: shaped sin and tanh each "
                    f"exceed the unshaped control's final train accuracy "
                    f"({final[CONTROL]:.3g}) by at least {margin:g}; measured is the smaller lead"
                ),
                source="Thesis Sec. 6.4 ('networks trainable at arbitrary depths')",
                measured=min(final[n] - final[CONTROL] for n in SHAPED), relation=">=",
                bound=margin, note=note,
            ),
        ]  # fmt: skip
    if stable_log_ratio is not None:
        deep = table[(table["depth"] == depth) & table["network"].isin(SHAPED)]
        ratios = _run_means(deep, "log_gradient_ratio", ["network", "point"]).abs()
        claims.append(evaluate(
            id=f"{prefix}.shaped_gradients_stable",
            statement=(
                f"'the gradients remain stable during training': for shaped sin and tanh at "
                f"depth {depth}, |ln ||dL/dW_1||_F - ln ||dL/dW_(L-1)||_F| <= "
                f"{stable_log_ratio:g} at every epoch (probe batch); measured is the largest"
            ),
            source="Thesis Sec. 6.3, Fig. 6.4",
            measured=float(ratios.max(skipna=False)), relation="<=", bound=stable_log_ratio,
            note=note,
        ))  # fmt: skip
    return claims


def fig6_4_claims(
    table: pd.DataFrame,
    margin: float,
    explosion_log_ratio: float,
    stable_log_ratio: float,
    depth_tolerance: float,
) -> list[Claim]:
    """Thesis Fig. 6.4 (CIFAR-10; training accuracy): ``accuracy_claims`` with the control, and
    "the training accuracy remains largely depth-independent" (Sec. 6.4): the shaped nets'
    final train accuracy at the deepest and the shallowest depth within ``depth_tolerance``."""
    claims = accuracy_claims(
        table, margin, "gradients.fig6_4", "Thesis Sec. 6.3-6.4, Fig. 6.4", ("train",),
        explosion_log_ratio, stable_log_ratio,
    )  # fmt: skip
    last = table[table["point"] == table["point"].max()]
    final = _run_means(last, "train_accuracy", ["network", "depth"])
    depths = sorted(table["depth"].unique())
    shallow, deep = depths[0], depths[-1]
    gaps = [final[n, deep] - final[n, shallow] for n in SHAPED] if len(depths) > 1 else []
    worst = max(gaps, key=abs) if gaps else math.nan
    claims.append(evaluate(
        id="gradients.fig6_4.depth_independent",
        statement=(
            f"'the training accuracy remains largely depth-independent': shaped sin and tanh end "
            f"within {depth_tolerance:g} train accuracy of themselves from depth {int(shallow)} "
            f"to depth {int(deep)}; measured is the larger change, deep minus shallow"
        ),
        source="Thesis Sec. 6.4, Fig. 6.4",
        measured=worst, relation="within", bound=0.0, tolerance=depth_tolerance,
        note=gamma_note(table),
    ))  # fmt: skip
    return claims


def _train_test(figure: str, dataset: str):
    def judge(table: pd.DataFrame, margin: float) -> list[Claim]:
        return accuracy_claims(
            table, margin, f"gradients.{figure}", f"Thesis app. C.7, Fig. {dataset}",
            ("train", "test"),
        )  # fmt: skip

    judge.__name__ = judge.__qualname__ = f"{figure}_claims"
    judge.__doc__ = (
        f"Thesis Fig. {dataset}: shaped sin and tanh beat identity in train and test accuracy "
        "(``accuracy_claims``)."
    )
    return judge


fig_c5_claims = _train_test("fig_c5", "C.5 (MNIST)")
fig_c6_claims = _train_test("fig_c6", "C.6 (Fashion-MNIST)")
fig_c7_claims = _train_test("fig_c7", "C.7 (CIFAR-100)")
fig_c8_claims = _train_test("fig_c8", "C.8 (CIFAR-10)")


def middle_layers(table: pd.DataFrame) -> pd.DataFrame:
    """Rows of the middle half of each network's hidden layers, L/4 <= l <= 3L/4 ("the middle
    layers remain orthogonal", Sec. 6.5; our reading of "middle")."""
    return table[
        (4 * table["layer"] >= table["depth"]) & (4 * table["layer"] <= 3 * table["depth"])
    ]


def _layer_table(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of existing layers (0..L) of each depth."""
    return table[table["layer"] <= table["depth"]]


def _gap_max(table: pd.DataFrame) -> float:
    """The largest run-mean weight isometry gap over networks, depths, layers and points."""
    means = _run_means(table, "weight_isometry_gap", ["network", "depth", "layer", "point"])
    return float(means.max(skipna=False))


def _gradient_spread(table: pd.DataFrame) -> float:
    """The smallest, over networks, depths and points, of min_l / max_l of the run-mean
    gradient norms over every layer l = 0..L."""
    means = _run_means(table, "gradient_norm", ["network", "depth", "point", "layer"])
    grouped = means.groupby(level=["network", "depth", "point"])
    ratio = grouped.min(skipna=False) / grouped.max(skipna=False)
    return float(ratio.min(skipna=False))


def _near_orthogonal(table, prefix, source, what, gap_bound) -> Claim:
    middle = middle_layers(table)
    return evaluate(
        id=f"{prefix}.weights_near_orthogonal",
        statement=(
            f"{what}: the middle layers' weights stay near orthogonal during SGD: the isometry "
            f"gap of W_l W_l^T (L/4 <= l <= 3L/4, mean over runs) stays <= {gap_bound:g} at "
            f"every epoch (a square Gaussian W has a gap near 1; an orthogonal one 0)"
        ),
        source=source, measured=_gap_max(middle), relation="<=", bound=gap_bound,
        note=f"largest gap over all layers, fc_0..fc_L: {_gap_max(table):.3g}; {gamma_note(table)}",
    )  # fmt: skip


def _not_vanishing(table, prefix, source, what, min_fraction) -> Claim:
    return evaluate(
        id=f"{prefix}.gradients_do_not_vanish",
        statement=(
            f"{what}: gradients do not vanish: at every epoch the smallest per-layer "
            f"||dL/dW_l||_F (l = 0..L, probe batch, mean over runs) is at least {min_fraction:g} "
            f"of the largest; measured is the smallest such ratio"
        ),
        source=source, measured=_gradient_spread(table), relation=">=", bound=min_fraction,
        note=gamma_note(table),
    )  # fmt: skip


def fig6_6_claims(table: pd.DataFrame, gap_bound: float, min_fraction: float) -> list[Claim]:
    """Thesis Fig. 6.6 (Sec. 6.5): the deepest tanh net's middle layers stay near orthogonal
    and their gradients are not negligible.

    Args:
        table: network, depth, run, layer, point, epoch, weight_isometry_gap, gradient_norm.
        gap_bound: the largest middle-layer weight isometry gap allowed.
        min_fraction: the smallest gradient norm over the largest, at least this.
    """
    table = _layer_table(table)
    depth = int(table["depth"].max())
    rows = table[(table["network"] == ORTHOGONALITY_NETWORK) & (table["depth"] == depth)]
    what = f"shaped tanh, depth {depth}"
    source = "Thesis Sec. 6.5, Fig. 6.6"
    return [
        _near_orthogonal(rows, "gradients.fig6_6", source + " (a)", what, gap_bound),
        _not_vanishing(rows, "gradients.fig6_6", source + " (b)", what, min_fraction),
    ]


def fig_c3_claims(table: pd.DataFrame, gap_bound: float, min_growth: float) -> list[Claim]:
    """Thesis Fig. C.3 (app. C.6): weights near orthogonal at every depth; the middle layers
    more orthogonal the deeper the net; and (control) SGD moves the weights: the middle layers'
    gap at the last epoch is at least ``min_growth`` times that at initialization."""
    table = _layer_table(table)
    middle = middle_layers(table)
    last = middle[middle["point"] == middle["point"].max()]
    gaps = _run_means(last, "weight_isometry_gap", ["network", "depth"])
    depths = sorted(table["depth"].unique())
    ratios = [
        gaps[n, deeper] / gaps[n, shallower]
        for n in SHAPED
        for shallower, deeper in zip(depths[:-1], depths[1:], strict=True)
    ]
    start = middle[middle["point"] == 0]
    growth = [
        gaps[n, d] / _run_means(start, "weight_isometry_gap", ["network", "depth"])[n, d]
        for n in SHAPED
        for d in depths
    ]
    source = "Thesis app. C.6, Fig. C.3"
    return [
        _near_orthogonal(table, "gradients.fig_c3", source, "shaped sin and tanh, depths "
                         f"{[int(d) for d in depths]}", gap_bound),  # fmt: skip
        evaluate(
            id="gradients.fig_c3.middle_more_orthogonal_with_depth",
            statement=(
                "'The middle layers become increasingly more orthogonal with depth': the mean "
                "middle-layer weight isometry gap at the last epoch falls from each depth to "
                "the next, for sin and tanh; measured is the largest ratio deeper / shallower"
            ),
            source=source,
            measured=max(ratios) if ratios else math.nan, relation="<=", bound=1.0,
            note=gamma_note(table),
        ),
        evaluate(
            id="gradients.fig_c3.weights_move",
            statement=(
                f"control: SGD moves the weights off orthogonality, so the gap measures "
                f"something: the middle layers' gap at the last epoch is at least {min_growth:g}"
                f" x that at initialization (round-off), for every network and depth; measured "
                f"is the smallest factor"
            ),
            source=source, measured=min(growth), relation=">=", bound=min_growth,
            note=gamma_note(table),
        ),
    ]  # fmt: skip


def fig_c4_claims(table: pd.DataFrame, min_fraction: float) -> list[Claim]:
    """Thesis Fig. C.4: gradients do not vanish at any depth, layer or epoch."""
    table = _layer_table(table)
    depths = [int(d) for d in sorted(table["depth"].unique())]
    return [
        _not_vanishing(table, "gradients.fig_c4", "Thesis app. C.6, Fig. C.4",
                       f"shaped sin and tanh, depths {depths}", min_fraction),
    ]  # fmt: skip
