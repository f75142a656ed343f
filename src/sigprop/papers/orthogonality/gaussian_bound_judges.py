"""Claims of DJB21 Thm. 1, Lemma 2, Cor. 3 and Table 1 (Thesis 2.1-2.3, Table 2.1).

The claim functions read back the tables of ``gaussian_tables`` (tidy summaries of the
``gaussian_chain`` simulation), as every check rule does. Torch-free: a judge job imports only
this module.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...engine.stats import Measurement, exact, from_se
from ...verdicts.claims import Claim, Record, confidence_level
from .chain_judges import PLATEAU_REASON, plateau_slope_margin
from .gaussian_tables import radius_exponent
from .verdicts import judge, mean_of, worst

__all__ = [
    "THM1_BOUND_RECORDS",
    "THM1_CELL_RECORDS",
    "THM1_FIT_RECORDS",
    "W2_DEPTH_RECORDS",
    "plateau_exponents",
    "table1_claims",
    "thm1_claims",
    "w2_depth_claims",
    "w2_width_claims",
]

SOURCE_THM1 = "DJB21 Thm. 1, Eq. (3) (Thesis Thm. 2.1, Eq. (2.3))"
SOURCE_LEMMA2 = "DJB21 Lemma 2, Eq. (4) and App. D (Thesis Lemma 2.2, Eq. (2.4))"
SOURCE_COR3 = "DJB21 Cor. 3, Eq. (5) (Thesis Cor. 2.3, Eq. (2.5))"
SOURCE_TABLE1 = "DJB21 Table 1 and Cor. 3 (Thesis Table 2.1)"
READINGS = ("literal", "rigorous")
"""alpha of A_1: literal alpha = alpha_hat (a bound on sigma_n), rigorous alpha = alpha_hat^2."""
_ALPHA = {"literal": "alpha_hat", "rigorous": "alpha_hat^2"}


def plateau_exponents(plateau: pd.DataFrame) -> dict[str, float]:
    """Weighted fit log P = a + beta_n log n + beta_d log d + c n / d over the (n, d) cells.

    The rate is asymptotic (d >> n); c n / d absorbs the first finite-width correction (without
    it the quick grid gives beta_d = -0.510 +- 0.001, curvature from the n = 16, d = 64 cell).
    Cells are independent (own streams); the weight of a cell is 1 / Var(log P) with
    Var(log P) = (se / P)^2 by the delta method, so the SEs are those of generalized least squares.

    Args:
        plateau: one row per (batch_size, width) with ``plateau_gap`` and ``plateau_gap_se``.
    Returns:
        ``beta_n``, ``beta_n_se``, ``beta_d``, ``beta_d_se``, ``intercept``.
    """
    p = plateau["plateau_gap"].to_numpy(float)
    var = (plateau["plateau_gap_se"].to_numpy(float) / p) ** 2
    n, d = plateau["batch_size"].to_numpy(float), plateau["width"].to_numpy(float)
    design = np.stack([np.ones(p.size), np.log(n), np.log(d), n / d], axis=1)
    if p.size <= 4 or np.linalg.matrix_rank(design) < 4:
        raise ValueError("the plateau fit needs at least 2 batch sizes, 3 widths and 5 cells")
    weights = 1.0 / var
    cov = np.linalg.inv(design.T @ (design * weights[:, None]))
    beta = cov @ design.T @ (weights * np.log(p))
    return {
        "intercept": beta[0],
        "beta_n": beta[1],
        "beta_n_se": math.sqrt(cov[1, 1]),
        "beta_d": beta[2],
        "beta_d_se": math.sqrt(cov[2, 2]),
        "correction": beta[3],
    }


def _worst_ratio(table: pd.DataFrame, value: str, bound: str, se: str):
    """The (n, d, layer) point whose ratio value / bound has the least favourable interval
    against ``<= 1`` (t over the point's ``runs``), the point's row, and the ratio's possible
    range: [0, largest vacuous_level / bound] (the gap or W2^2 cannot exceed vacuous_level)."""
    ratio = (table[value] / table[bound]).to_numpy(float)
    ratio_se = (table[se] / table[bound]).to_numpy(float)
    runs = table["runs"].to_numpy(int)
    ms = [mean_of(r, s, int(k)) for r, s, k in zip(ratio, ratio_se, runs, strict=True)]
    k = worst(ms, "<=", 1.0)
    most = float((table["vacuous_level"] / table[bound]).max())
    return ms[k], table.iloc[k], (0.0, most)


def _informative_widths(table: pd.DataFrame, reading: str, floor_numerator) -> str:
    """From which width the bound could fall below the largest possible value, per n: its floor
    ``c n^k / (alpha sqrt d)`` (the transient gone; ``floor_numerator(n)`` = c n^k) is below
    ``vacuous_level`` for d > (c n^k / (alpha level))^2. alpha is held at its value at the deepest
    simulated layer (the most favourable width's): an estimate of what would decide the claim,
    since alpha_hat is measured, not known at larger d."""
    deepest = table[table["layer"] == table["layer"].max()]
    alpha = deepest["alpha_hat"] ** (2 if reading == "rigorous" else 1)
    n = deepest["batch_size"]
    needed = (floor_numerator(n) / (alpha * deepest["vacuous_level"])) ** 2
    smallest = needed.groupby(n).min()
    return ", ".join(f"n={int(k)}: d > {v:.2g}" for k, v in smallest.items())


def _largest_ratio(table: pd.DataFrame, value: str, bound: str) -> tuple[Measurement, pd.Series]:
    """max(value / bound) over the rows, a property of the tabulated means (exact), and its row."""
    ratio = (table[value] / table[bound]).to_numpy(float)
    k = int(np.nanargmax(ratio))
    return exact(float(ratio[k])), table.iloc[k]


THM1_BOUND_RECORDS = tuple(
    Record(
        f"bound_{reading}",
        "E V(H_(l+1)) <= 2 (1 - 2 alpha / 3)^l + 3 n / (alpha sqrt d) with alpha = "
        f"{_ALPHA[reading]} at every simulated layer, n and d; measured is the ratio of the mean "
        "gap to the bound at the point whose interval (t over runs) reaches highest",
        SOURCE_THM1,
        "paper",
        f"ratio_{reading}",
        "<=",
        1.0,
        possible=f"possible_{reading}",
        note="alpha_hat(l) = min over runs and 1 <= k <= l of sigma_n(H_k). Worst point "
        f"{{worst_{reading}}}. The bound is below the gap's maximum sqrt((n-1)/n) "
        f"(informative) at {{useful_{reading}}} of {{points}} (n, d, layer) points "
        f"{{cells_{reading}}}; where it is above it everywhere the claim cannot fail (VACUOUS). "
        f"Its floor 3 n / (alpha sqrt d) falls below that maximum, alpha held at its deepest "
        f"simulated value, only at {{informative_{reading}}}: such widths would decide it.",
    )
    for reading in READINGS
) + (
    Record(
        "control_floor_rate",
        "negative control: Thm. 1 with a floor one power of d faster, 3 n / (alpha d) (literal "
        "alpha), is violated on the plateau (layers >= {plateau_from}): the d^(-1/2) of the "
        "bound cannot be improved to d^(-1); measured is the ratio of E V to that bound at the "
        "point whose interval (t over runs) reaches highest",
        SOURCE_THM1 + " (rate of the floor)",
        "control",
        "faster_floor",
        ">=",
        1.0,
        note="Replaces control_transient_only (the transient alone, 2 (1 - 2 alpha/3)^l, is "
        "below any positive plateau by construction). This counterfactual fails when the "
        "simulated plateau decays as fast as 1/d or lies far below the floor's constant. "
        "Point {faster_worst}.",
    ),
)


def _bound_context(bounded: pd.DataFrame, n_runs: int, plateau_from: int) -> dict:
    """The bound claims at every point of both parts; the control on the grid's plateau."""
    context = {"points": len(bounded), "plateau_from": plateau_from}
    for reading in READINGS:
        m, row, possible = _worst_ratio(bounded, "mean_gap", f"bound_{reading}", "se_gap")
        useful = bounded[bounded[f"bound_{reading}"] < bounded["vacuous_level"]]
        cells = sorted({(int(r.batch_size), int(r.width)) for r in useful.itertuples()})
        context |= {
            f"ratio_{reading}": m,
            f"possible_{reading}": possible,
            f"worst_{reading}": _point(row),
            f"useful_{reading}": len(useful),
            f"cells_{reading}": f"(cells {cells})" if cells else "(none)",
            f"informative_{reading}": _informative_widths(bounded, reading, lambda n: 3.0 * n),
        }
    plateau = bounded[(bounded["layer"] >= plateau_from) & (bounded["part"] == "grid")]
    a, n, d = plateau["alpha_hat"], plateau["batch_size"], plateau["width"]
    plateau = plateau.assign(faster=plateau["transient_literal"] + 3.0 * n / (a * d))
    ratio = (plateau["mean_gap"] / plateau["faster"]).to_numpy(float)
    ratio_se = (plateau["se_gap"] / plateau["faster"]).to_numpy(float)
    ms = [mean_of(r, s, n_runs) for r, s in zip(ratio, ratio_se, strict=True)]
    k = _best(ms)  # "violated somewhere": the point whose interval lies highest decides
    context |= {"faster_floor": ms[k], "faster_worst": _point(plateau.iloc[k])}
    return context


def _best(ms: list[Measurement]) -> int:
    """Index of the measurement whose interval lies highest (largest lower end)."""
    lows = [m.interval(confidence_level())[0] for m in ms]
    return int(np.argmax(np.nan_to_num(lows, nan=-np.inf)))


def _point(row: pd.Series) -> str:
    return f"n={int(row.batch_size)}, d={int(row.width)}, layer {int(row.layer)}"


THM1_CELL_RECORDS = (
    Record(
        "decay_n{n}_d{d}",
        "n={n}, d={d}: log V(H_l) decreases over layers {decay_window[0]}..{decay_window[1]}; "
        "measured is the mean per-run OLS slope (t over runs)",
        f"{SOURCE_THM1}; DJB21 Sec. 3.3",
        "paper",
        "decay",
        "<=",
        0.0,
    ),
    Record(
        "plateau_n{n}_d{d}",
        "n={n}, d={d}: log V(H_l) is flat over layers {plateau_window[0]}..{plateau_window[1]}: "
        "mean per-run slope 0 within {margin:.4g} per layer (V changes by at most "
        "{plateau_drift:.0%} across the window)",
        f"{SOURCE_THM1}; DJB21 Sec. 3.3",
        "paper",
        "flat",
        "within",
        0.0,
        tolerance="margin",
        note="Margin: config orthogonality/thm1/plateau_drift, as in fig2a.",
        tolerance_reason=PLATEAU_REASON,
    ),
)

THM1_FIT_RECORDS = (
    Record(
        "plateau_width_exponent",
        "the plateau of V scales as d^beta_d with beta_d = -1/2 (the O(1/sqrt d) floor of Thm. 1 "
        "is tight in d); fit log P = a + beta_n log n + beta_d log d + c n/d over {grid}, within "
        "{exponent_margin:g} (GLS SE, df = cells - 4)",
        f"{SOURCE_THM1}; DJB21 Fig. 2b",
        "paper",
        "beta_d",
        "within",
        -0.5,
        tolerance="exponent_margin",
        tolerance_reason="wording: DJB21 Sec. 3.3 reads its printed Fig. 2b slope -0.46 as "
        "'close to -1/2' and 'almost tight', so beta_d counts as -1/2 within the distance the "
        "seed itself accepts, |-0.46 + 1/2| = 0.04 (orthogonality/thm1/exponent_margin = "
        "{exponent_margin:g})",
        note="c n/d absorbs the first finite-width correction (choice, as in fig2b). Margin: "
        "orthogonality/thm1/exponent_margin.",
    ),
    Record(
        "plateau_n_exponent",
        "the plateau of V grows with the batch size as n^beta_n with beta_n about 1/2 (spec "
        "[scratch]: ~0.55 sqrt(n/d)); same fit, within {n_exponent_tolerance:g}",
        SOURCE_THM1,
        "setup",
        "beta_n",
        "within",
        0.5,
        tolerance="n_exponent_tolerance",
        tolerance_reason="finite_size: 1/2 is the d >> n limit of the scratch reference "
        "plateau ~ 0.55 sqrt(n/d) (spec Sec. 8, not the seed); on its table the exponent over "
        "n = 4..16 is 0.457 at d = 1024 and 0.455 at d = 2048, a finite-n/d shift of 0.045 that "
        "the tolerance {n_exponent_tolerance:g} covers about twice",
        note="The paper states no n-rate beyond its bound: the 1/2 is our scratch reference, so "
        "this is a setup check, not a paper claim.",
    ),
    Record(
        "plateau_n_below_bound",
        "the plateau grows with n more slowly than the floor of Thm. 1, which grows as n at "
        "fixed alpha (n^1.5 literal, n^2 rigorous with alpha_hat ~ 1/sqrt n); measured is "
        "beta_n, bound the slowest of these, 1",
        SOURCE_THM1,
        "paper",
        "beta_n",
        "<=",
        1.0,
    ),
)


def thm1_claims(
    table: pd.DataFrame,
    widths: list[int],
    decay_window: tuple[int, int],
    plateau_window: tuple[int, int],
    plateau_drift: float,
    exponent_margin: float,
    n_exponent_tolerance: float,
    n_runs: int,
) -> list[Claim]:
    """Thm. 1 holds at every layer (both alpha readings); log E V decays, then plateaus at a level
    ~ d^{-1/2} that grows with n far slower than the bound's n (literal) or n^2 (rigorous).

    Args:
        table: ``thm1_table`` outputs of both simulations (means and SEs over each point's
            ``runs``); the bound claims read every point, the others the ``grid`` part only.
        n_runs: the grid's runs (its per-cell slopes).
        widths: the (n, d) cells with these d get decay and plateau claims (the plotted curves).
        plateau_drift: "flat" margin (relative change of V across the plateau window).
        exponent_margin: margin of beta_d around -1/2; n_exponent_tolerance: of beta_n around 1/2.
    """
    bounded = table[table["layer"] >= 1]
    claims = judge(THM1_BOUND_RECORDS, _bound_context(bounded, n_runs, plateau_window[0]), "thm1")
    cells = table[table["part"] == "grid"].drop_duplicates(["batch_size", "width"])
    margin = plateau_slope_margin(plateau_drift, plateau_window)
    for r in cells[cells["width"].isin(widths)].itertuples():
        context = dict(
            n=int(r.batch_size),
            d=int(r.width),
            decay_window=decay_window,
            plateau_window=plateau_window,
            plateau_drift=plateau_drift,
            margin=margin,
            window_length=plateau_window[1] - plateau_window[0],
            decay=mean_of(r.decay_slope, r.decay_slope_se, n_runs),
            flat=mean_of(r.plateau_slope, r.plateau_slope_se, n_runs),
        )
        claims += judge(THM1_CELL_RECORDS, context, "thm1")
    fit = plateau_exponents(cells)
    df = len(cells) - 4
    context = dict(
        grid=f"n = {sorted(cells['batch_size'].unique())}, d = {sorted(cells['width'].unique())}",
        exponent_margin=exponent_margin,
        n_exponent_tolerance=n_exponent_tolerance,
        beta_d=from_se(fit["beta_d"], fit["beta_d_se"], df=df, n=len(cells)),
        beta_n=from_se(fit["beta_n"], fit["beta_n_se"], df=df, n=len(cells)),
        details={"plateau_width_exponent": fit, "plateau_n_exponent": fit},
    )
    return claims + judge(THM1_FIT_RECORDS, context, "thm1")


W2_ROUNDOFF = (
    "round_off: the step holds run by run (or by Jensen on the runs' average), so only the "
    "float64 round-off of sums of O(1) terms from the runs' SVDs is allowed: "
    "orthogonality/w2_depth/float_tolerance = {float_tolerance:g}"
)

W2_DEPTH_RECORDS = (
    Record(
        "gelbrich_below_coupling",
        "the Gelbrich lower bound from E[C] is at most the mean exact conditional W2^2 (upper "
        "bound) at every n, d, layer; measured is max(lower - upper) (exact)",
        f"{SOURCE_LEMMA2}; our derivation",
        "identity",
        "gelbrich",
        "<=",
        0.0,
        tolerance="float_tolerance",
        tolerance_reason=W2_ROUNDOFF,
        note="Holds run by run (Gelbrich's inequality); only round-off is allowed.",
    ),
    Record(
        "coupling_below_n_v2",
        "the mean conditional W2^2 is at most n E[V^2] (App. D, second-to-last step); measured "
        "is max(upper - n E V^2) (exact)",
        SOURCE_LEMMA2,
        "identity",
        "proof_step",
        "<=",
        0.0,
        tolerance="float_tolerance",
        tolerance_reason=W2_ROUNDOFF,
        note="Holds run by run; only round-off is allowed: a failure is a defect in our code.",
    ),
    Record(
        "lemma2",
        "W2^2(law(W_l H_l), law(G/sqrt n)) <= 2 n E[V(H_l)]: the upper end of the sandwich "
        "against the bound, largest ratio over n, d, layers (exact: Jensen on the runs' average)",
        SOURCE_LEMMA2,
        "paper",
        "lemma2_ratio",
        "<=",
        1.0,
        tolerance="float_tolerance",
        tolerance_reason=W2_ROUNDOFF,
        note="Worst {lemma2_worst}; near orthogonality the conditional W2^2 is ~ n V^2 / 4, so "
        "the ratio is ~ V/8.",
    ),
) + tuple(
    Record(
        f"cor3_{reading}",
        "mean conditional W2^2 (upper bound on W2^2) <= 4 n (1 - 2 alpha/3)^l + 6 n^2 / (alpha "
        f"sqrt d), alpha = {_ALPHA[reading]}, at every n, d, layer; measured is the ratio at the "
        "point whose interval (t over runs) reaches highest",
        SOURCE_COR3,
        "paper",
        f"ratio_{reading}",
        "<=",
        1.0,
        possible=f"possible_{reading}",
        note=f"Worst {{worst_{reading}}}; the bound is below the largest possible conditional "
        f"W2^2, 2 - 2/sqrt(n) (informative), at {{useful_{reading}}} of {{points}} points; where "
        "it is above it everywhere the claim cannot fail (VACUOUS). Its floor 6 n^2 / (alpha "
        "sqrt d) falls below that maximum, alpha held at its deepest simulated value, only at "
        f"{{informative_{reading}}}: such widths would decide it. The printed exponent l is one "
        "factor tighter than Lemma 2 x Thm. 1 gives.",
    )
    for reading in READINGS
)


def w2_depth_claims(table: pd.DataFrame, float_tolerance: float, plateau_from: int) -> list[Claim]:
    """Lemma 2's chain Gelbrich <= E[cond. W2^2] <= n E V^2 <= 2 n E V, and Cor. 3, every layer.

    The first three inequalities hold run by run or by Jensen on the empirical average, so only
    round-off (``float_tolerance``) is allowed; a failure would be a defect in the code. Cor. 3
    is judged at the point whose interval over its ``runs`` reaches highest, with the range the
    ratio can take at all (``possible``: VACUOUS where the bound exceeds every possible W2^2).
    ``plateau_from`` is kept for the config's plotted window (the former control is removed:
    Cor. 3's floor is loose by about n in every form, so no counterfactual floor gives a control
    that can fail for a reason of our code).
    """
    lemma2, row = _largest_ratio(table, "upper", "two_n_mean_gap")
    context = dict(
        float_tolerance=float_tolerance,
        gelbrich=exact(float((table["lower"] - table["upper"]).max())),
        proof_step=exact(float((table["upper"] - table["n_mean_gap_sq"]).max())),
        lemma2_ratio=lemma2,
        lemma2_worst=_point(row),
        points=len(table),
    )
    for reading in READINGS:
        m, worst_row, possible = _worst_ratio(table, "upper", f"cor3_{reading}", "upper_se")
        context |= {
            f"ratio_{reading}": m,
            f"possible_{reading}": possible,
            f"worst_{reading}": _point(worst_row),
            f"useful_{reading}": int((table[f"cor3_{reading}"] < table["vacuous_level"]).sum()),
            f"informative_{reading}": _informative_widths(table, reading, lambda n: 6.0 * n**2),
        }
    return judge(W2_DEPTH_RECORDS, context, "w2_depth")


W2_WIDTH_RECORDS = (
    Record(
        "radius_exponent_n{n}",
        "n={n}: the plateau W2 distance to the Gaussian (sqrt of the mean conditional W2^2, an "
        "upper bound) is O(d^{max_exponent:g}); measured is the log-log slope over "
        "d = {widths[0]}..{widths_last} (bootstrap over runs)",
        SOURCE_TABLE1,
        "paper",
        "beta",
        "<=",
        "max_exponent",
        printed="max_exponent",
        note="the radius of Table 1 is O(width^-1/4) in W2 (O(width^-1/2) in W2^2); our scratch "
        "simulations find the upper bound ~ 1/d, i.e. W2 ~ d^-1/2",
    ),
)


def w2_width_claims(table: pd.DataFrame, max_exponent: float) -> list[Claim]:
    """Per n: the plateau W2 radius shrinks at least as fast as d^{-1/4} (Table 1, Cor. 3)."""
    claims = []
    for n in sorted(int(x) for x in table["batch_size"].unique()):
        widths = sorted(int(w) for w in table.loc[table["batch_size"] == n, "width"].unique())
        context = dict(
            n=n,
            widths=widths,
            widths_last=widths[-1],
            max_exponent=max_exponent,
            beta=radius_exponent(table, n),
        )
        claims += judge(W2_WIDTH_RECORDS, context, "w2_width")
    return claims


TABLE1_RECORDS = (
    Record(
        "bn_radius_exponent",
        "BN MLP row: the representations lie in an O(width^{max_exponent:g})-W2 ball around the "
        "Gaussian; measured is the exponent of the plateau W2 upper bound in d (n = {n}, "
        "d = {d_min}..{d_max}; normal interval from its bootstrap SE over runs)",
        SOURCE_TABLE1,
        "paper",
        "beta",
        "<=",
        "max_exponent",
        printed="max_exponent",
    ),
)


def table1_claims(table: pd.DataFrame, max_exponent: float) -> list[Claim]:
    """The BN row of Table 1: the measured W2 radius exponent is <= -1/4."""
    bn = table[table["network"] == "BN MLP (Cor. 3)"].iloc[0]
    context = dict(
        max_exponent=max_exponent,
        n=int(bn.batch_size),
        d_min=int(bn.min_width),
        d_max=int(bn.max_width),
        beta=from_se(bn.exponent, bn.exponent_se),
    )
    return judge(TABLE1_RECORDS, context, "table1")
