"""Claims of Dan+20 (seeds 000-002), from the plotted tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...claims import Claim, evaluate
from ...stats import bootstrap_slope

__all__ = [
    "ergodic_averages",
    "theorem14_floor",
    "fig2_claims",
    "fig3a_claims",
    "fig3b_claims",
    "fig8_claims",
    "fig9_claims",
    "sec3_1_claims",
]


def ergodic_averages(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (gamma, width, run): averages over the recorded layers, Dan+20 Eq. (49).

    Every statistic is averaged; ``alpha_hat`` = sum_l Tr diag(M_l^2)^2 / sum_l Tr M_l^3 is a
    ratio of layer averages, not an average of ratios (Def. 3, Eq. (46), App. E).

    Args:
        frame: the BN chain in long form: gamma, width, run, layer, and the statistics of
            ``metrics.spectral_statistics``.
    """
    keys = ["gamma", "width", "run"]
    stats = [c for c in frame.columns if c not in keys + ["layer"]]
    out = frame.groupby(keys, as_index=False)[stats].mean()
    out["alpha_hat"] = out["trace_diag_m2_squared"] / out["trace_m_cubed"]
    return out


def theorem14_floor(alpha_hat, d):
    """sqrt((1 - alpha) d), Dan+20 Thm. 14 / Eq. (62)'s floor on r (times (1 - tau)^2 on
    rank_tau), with alpha_hat of Eq. (49); 0 where alpha_hat >= 1."""
    return np.sqrt(np.clip(1 - np.asarray(alpha_hat, float), 0, None) * d)


def _gamma_label(gamma: float) -> str:
    return "inf" if math.isinf(gamma) else f"{gamma:g}"


SOURCE_FIG2 = "Dan+20 Fig. 2 and Sec. 1.1"


def _run_mean(table: pd.DataFrame, by: list[str], y: str) -> pd.DataFrame:
    """Mean, standard error and count of y over runs, per group."""
    grouped = table.groupby(by)[y]
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    out["se"] = out["std"] / out["count"].pow(0.5)
    return out


def fig2_claims(table: pd.DataFrame, width: int, vanilla_rank_tolerance: float) -> list[Claim]:
    """BN keeps rank above sqrt(d) at every depth; vanilla collapses toward rank one.

    Args:
        table: columns network (BN | vanilla), activation, run, depth, rank.
        width: d; the BN floor is sqrt(d) (Dan+20 Thm. 2, Fig. 2 caption).
        vanilla_rank_tolerance: how far above 1 the deepest vanilla rank may be (integer ranks).
    """
    means = _run_mean(table, ["network", "activation", "depth"], "rank")
    claims = []
    for act in sorted(table["activation"].unique()):
        bn = means.query("network == 'BN' and activation == @act")
        worst = bn.loc[bn["mean"].idxmin()]
        claims.append(
            evaluate(
                id=f"rank_collapse.fig2.bn_{act}_above_sqrt_d",
                statement=(
                    f"{act} BN MLP, d={width}: the mean numerical rank of the last hidden layer "
                    f"stays >= sqrt(d) = {math.sqrt(width):.2f} at every depth "
                    f"1..{int(bn['depth'].max())}; "
                    f"measured is its minimum over depths (at depth {int(worst['depth'])})"
                ),
                source=SOURCE_FIG2,
                measured=worst["mean"],
                measured_se=worst["se"],
                relation=">=",
                bound=math.sqrt(width),
            )
        )
        vanilla = means.query("network == 'vanilla' and activation == @act")
        deepest = vanilla.loc[vanilla["depth"].idxmax()]
        claims.append(
            evaluate(
                id=f"rank_collapse.fig2.vanilla_{act}_collapse",
                statement=(
                    f"{act} vanilla MLP, d={width}: the mean numerical rank at the deepest layer "
                    f"L={int(deepest['depth'])} has collapsed toward 1"
                ),
                source=SOURCE_FIG2 + "; Lemma 3",
                measured=deepest["mean"],
                measured_se=deepest["se"],
                relation="<=",
                bound=1.0,
                tolerance=vanilla_rank_tolerance,
            )
        )
    return claims


SOURCE_FIG3A = "Dan+20 Fig. 3a, Thm. 2 / Thm. 14"


def fig3a_claims(table: pd.DataFrame, taus: list[float], min_width: int) -> list[Claim]:
    """Thm. 2 / 14 on the layer-averaged soft rank, per gamma (including inf).

    Claims per gamma: the log-log slope of avg rank_{1/2} vs d is >= 1/2 (Omega(sqrt d));
    avg rank_{1/2} >= sqrt(d) for every d >= min_width; and Eq. (62):
    avg rank_tau >= (1 - tau)^2 avg r >= (1 - tau)^2 sqrt((1 - alpha_hat) d) for every d and tau,
    measured as the smallest ratio of left to right side over (d, tau, step of the chain).

    Args:
        table: per (gamma, width, run): soft_rank_<tau> columns, rank_lower_bound, alpha_hat.
    """
    claims = []
    for gamma in sorted(table["gamma"].unique()):
        part = table[table["gamma"] == gamma]
        g = _gamma_label(gamma)
        slope = bootstrap_slope(part, x="width", y="soft_rank_0.5")
        claims.append(
            evaluate(
                id=f"rank_collapse.fig3a.slope_gamma_{g}",
                statement=(
                    f"gamma={g}: the layer average of rank_1/2 grows at least like sqrt(d): "
                    "log-log slope vs d >= 1/2"
                ),
                source=SOURCE_FIG3A,
                measured=slope.value,
                measured_se=slope.se,
                relation=">=",
                bound=0.5,
            )
        )
        means = part.groupby("width").mean(numeric_only=True)
        wide = means[means.index >= min_width]
        ratio = wide["soft_rank_0.5"] / np.sqrt(wide.index.to_numpy(float))
        claims.append(
            evaluate(
                id=f"rank_collapse.fig3a.above_sqrt_d_gamma_{g}",
                statement=(
                    f"gamma={g}: avg rank_1/2 >= sqrt(d) for every d >= {min_width}; measured is "
                    f"the smallest avg rank_1/2 / sqrt(d) (at d={int(ratio.idxmin())})"
                ),
                source=SOURCE_FIG3A + "; Sec. 3.1",
                measured=ratio.min(),
                relation=">=",
                bound=1.0,
            )
        )
        d = means.index.to_numpy(float)
        floor = theorem14_floor(means["alpha_hat"].to_numpy(), d)
        first = min(
            (means[f"soft_rank_{t:g}"] / ((1 - t) ** 2 * means["rank_lower_bound"])).min()
            for t in taus
        )
        second = (means["rank_lower_bound"] / floor).min()
        claims.append(
            evaluate(
                id=f"rank_collapse.fig3a.theorem14_gamma_{g}",
                statement=(
                    f"gamma={g}: Eq. (62) avg rank_tau >= (1-tau)^2 avg r >= (1-tau)^2 "
                    f"sqrt((1-alpha_hat) d) for tau in {list(taus)} and every d; measured is the "
                    "smallest left/right ratio of either inequality"
                ),
                source="Dan+20 Thm. 14, Eq. (58)-(62)",
                measured=min(first, second),
                relation=">=",
                bound=1.0,
                details={"rank_over_r_min": float(first), "r_over_floor_min": float(second)},
                note="The theorem needs gamma <= 1/(8 B d); the chain uses larger gamma, as the "
                "paper's experiments do.",
            )
        )
    return claims


def fig8_claims(table: pd.DataFrame, max_alpha_wide: float, wide_from: int) -> list[Claim]:
    """Lemma 10 and App. E on the regularity constant alpha_hat, per gamma.

    Claims per gamma: alpha_hat < 1 for every d (Lemma 10); alpha_hat < max_alpha_wide for
    d > wide_from (App. E: "less than 0.9 for d > 10"); alpha_hat decreases with d (the slope of
    alpha_hat against log d is negative).

    Args:
        table: per (gamma, width, run): alpha_hat.
    """
    claims = []
    for gamma in sorted(table["gamma"].unique()):
        part = table[table["gamma"] == gamma]
        g = _gamma_label(gamma)
        means = part.groupby("width")["alpha_hat"].mean()
        slope = bootstrap_slope(part, x="width", y="alpha_hat", log_y=False)
        wide = means[means.index > wide_from]
        claims += [
            evaluate(
                id=f"rank_collapse.fig8.alpha_below_one_gamma_{g}",
                statement=f"gamma={g}: alpha_hat < 1 for every d; measured is its maximum",
                source="Dan+20 Lemma 10, Fig. 8",
                measured=means.max(),
                relation="<=",
                bound=1.0,
            ),
            evaluate(
                id=f"rank_collapse.fig8.alpha_wide_gamma_{g}",
                statement=(
                    f"gamma={g}: alpha_hat < {max_alpha_wide} for d > {wide_from}; measured is "
                    "its maximum over those d"
                ),
                source="Dan+20 App. E, Fig. 8",
                measured=wide.max() if len(wide) else math.nan,
                relation="<=",
                bound=max_alpha_wide,
            ),
            evaluate(
                id=f"rank_collapse.fig8.alpha_decreasing_gamma_{g}",
                statement=f"gamma={g}: alpha_hat decreases with d: slope vs log d < 0",
                source="Dan+20 App. E, Fig. 8",
                measured=slope.value,
                measured_se=slope.se,
                relation="<=",
                bound=0.0,
            ),
        ]
    return claims


def fig9_claims(table: pd.DataFrame, slope_tolerance: float) -> list[Claim]:
    """Lemma 13 and Fig. 9 on E ||M||_F^2, per gamma.

    Claims per gamma: the log2-log2 slope of avg ||M||_F^2 vs d is 1.5 within slope_tolerance
    (Fig. 9's d^1.5 line); Lemma 13, E ||M||_F^2 <= d^{3/2} / sqrt(1 - alpha_hat), for every d,
    measured as the largest ratio of left to right side.

    Args:
        table: per (gamma, width, run): frobenius_m_squared, alpha_hat.
    """
    claims = []
    for gamma in sorted(table["gamma"].unique()):
        part = table[table["gamma"] == gamma]
        g = _gamma_label(gamma)
        slope = bootstrap_slope(part, x="width", y="frobenius_m_squared")
        means = part.groupby("width").mean(numeric_only=True)
        d = means.index.to_numpy(float)
        bound = d**1.5 / np.sqrt(np.clip(1 - means["alpha_hat"].to_numpy(), 1e-12, None))
        claims += [
            evaluate(
                id=f"rank_collapse.fig9.slope_gamma_{g}",
                statement=(
                    f"gamma={g}: avg ||M||_F^2 scales as d^1.5: log-log slope within "
                    f"{slope_tolerance} of 1.5"
                ),
                source="Dan+20 Fig. 9, Lemma 13",
                measured=slope.value,
                measured_se=slope.se,
                relation="within",
                bound=1.5,
                tolerance=slope_tolerance,
            ),
            evaluate(
                id=f"rank_collapse.fig9.lemma13_gamma_{g}",
                statement=(
                    f"gamma={g}: Lemma 13, avg ||M||_F^2 <= d^1.5 / sqrt(1 - alpha_hat) for every "
                    "d; measured is the largest ratio of the two sides"
                ),
                source="Dan+20 Lemma 13, Eq. (50)",
                measured=float((means["frobenius_m_squared"].to_numpy() / bound).max()),
                relation="<=",
                bound=1.0,
                note="Eq. (53)-(54) print a sign typo and Eq. (55) is loose by a factor 4; the "
                "bound checked is the stated Eq. (50).",
            ),
        ]
    return claims


def fig3b_claims(table: pd.DataFrame, min_growth: float) -> list[Claim]:
    """Fig. 3b and Example 9: BN shrinks the largest singular value and amplifies small ones.

    Per run, over the second half of the layers: the largest singular value relative to its
    input value, and the growth of the small ones, the geometric mean over k = 2..top of
    sigma_k (layer-averaged) / sigma_k(H_0).

    Args:
        table: gamma, run, layer, sigma_1 .. sigma_top (singular values of H_l / sqrt(N)).
        min_growth: the growth of the small singular values must reach this factor.
    """
    claims = []
    last = int(table["layer"].max())
    small = [c for c in table.columns if c.startswith("sigma_") and c != "sigma_1"]
    for gamma in sorted(table["gamma"].unique()):
        part = table[table["gamma"] == gamma]
        g = _gamma_label(gamma)
        start = part[part["layer"] == 0].set_index("run")
        late = part[part["layer"] >= last / 2].groupby("run").mean(numeric_only=True)
        shrink = late["sigma_1"] / start["sigma_1"]
        growth = np.exp(np.log(late[small] / start[small]).mean(axis=1))
        claims += [
            evaluate(
                id=f"rank_collapse.fig3b.largest_shrinks_gamma_{g}",
                statement=(
                    f"gamma={g}: the largest singular value decreases from the nearly collinear "
                    f"input; measured is sigma_1 averaged over layers {last // 2}..{last} over "
                    "sigma_1(H_0)"
                ),
                source="Dan+20 Fig. 3b, Example 9",
                measured=shrink.mean(),
                measured_se=shrink.std(ddof=1) / math.sqrt(shrink.size),
                relation="<=",
                bound=1.0,
            ),
            evaluate(
                id=f"rank_collapse.fig3b.small_grow_gamma_{g}",
                statement=(
                    f"gamma={g}: small singular values grow: the geometric mean over "
                    f"k = 2..{len(small) + 1} of sigma_k (averaged over layers {last // 2}.."
                    f"{last}) / sigma_k(H_0) is >= {min_growth}"
                ),
                source="Dan+20 Fig. 3b, Example 9",
                measured=growth.mean(),
                measured_se=growth.std(ddof=1) / math.sqrt(growth.size),
                relation=">=",
                bound=min_growth,
            ),
        ]
    return claims


def sec3_1_claims(table: pd.DataFrame, rank_tolerance: int) -> list[Claim]:
    """Dan+20 (seed 002) Sec. 3.1: the BN chain keeps full rank N when N = O(sqrt d).

    Args:
        table: columns gamma, batch (sqrt_d | square), width, run, layer, rank_fraction,
            batch_size.
        rank_tolerance: how many directions below N the smallest rank may lose.

    Claims per (width, gamma): ``full_rank_d<d>_g<gamma>``, the smallest rank over runs and
    layers of the N = round(sqrt d) batch is N; and ``square_deficient_d<d>_g<gamma>``, the
    contrast: with N = d the mean last-layer rank falls below N (so full rank at small N is a
    finding, not a property of every batch).
    """
    source = "Dan+20 (seed 002) Sec. 3.1, 'Necessary assumptions'"
    last = table["layer"].max()
    claims = []
    for (width, gamma), rows in table.groupby(["width", "gamma"], sort=True):
        label = f"d{width}_g{_gamma_label(gamma)}"
        small = rows[rows["batch"] == "sqrt_d"]
        n = int(small["batch_size"].iloc[0])
        smallest = small["rank_fraction"].min() * n
        claims.append(
            evaluate(
                id=f"rank_collapse.sec3_1.full_rank_{label}",
                statement=(
                    f"BN chain, d={width}, gamma={_gamma_label(gamma)}, N = round(sqrt d) = {n}: "
                    f"the numerical rank of H_l stays N at every recorded layer 0..{last} of "
                    f"every run; measured is the smallest rank"
                ),
                source=source,
                measured=smallest,
                relation=">=",
                bound=float(n),
                tolerance=float(rank_tolerance),
            )
        )
        square = rows[(rows["batch"] == "square") & (rows["layer"] == last)]
        per_run = square["rank_fraction"] * width
        claims.append(
            evaluate(
                id=f"rank_collapse.sec3_1.square_deficient_{label}",
                statement=(
                    f"contrast, N = d = {width}, gamma={_gamma_label(gamma)}: the mean numerical "
                    f"rank of H_{last} over runs is below N (at least one direction lost)"
                ),
                source=source + "; Thm. 2, Cor. 15 (rank Omega(sqrt d) only)",
                measured=per_run.mean(),
                measured_se=per_run.std(ddof=1) / math.sqrt(per_run.size),
                relation="<=",
                bound=float(width - 1),
                tolerance=0.0,
            )
        )
    return claims
