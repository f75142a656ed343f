"""Claims of the Dan+20 spectral items (seeds 000-002): Lemma 3, Prop. 8, Examples 9, 11, 12.

The ``judge_<item>`` of the items of ``spectral_lemmas`` (which measures them and documents the
errata): the measured table and the item's config slice in, the claims out. Torch-free at import
(judge jobs load only this module); ``judge_example9`` imports torch for one erratum value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...claims import Claim, evaluate
from ...store import require_finite

__all__ = [
    "judge_example9",
    "judge_examples11_12",
    "judge_lemma3",
    "judge_prop8",
]


def _tag(x: float) -> str:
    """A number as a claim-id fragment: 0.1 -> '0p1', 1e-3 -> '0p001'."""
    return f"{x:g}".replace("-", "m").replace(".", "p").replace("+", "")


def judge_lemma3(
    table: pd.DataFrame,
    *,
    width: int = 32,
    depth: int = 3000,
    n_runs: int = 16,
    gammas: Sequence[float] = (0.1, 0.5, 0.9),
    laws: Sequence[str] = ("gaussian", "uniform"),
    burn_in: int = 100,
    rank_tolerance: float = 0.03,
    z: float = 3.0,
    **_settings,
) -> list[Claim]:
    """The claims of Lemma 3 from the ``measure_lemma3`` table, per (law, gamma): ``rate``
    (<= -z SE) and ``rank_one`` (largest r at the last layer <= 1 + ``rank_tolerance``)."""
    source = "Dan+20 Lemma 3, Eq. (6)"
    claims = []
    for law in laws:
        for gamma in gammas:
            case = f"{law}_g{_tag(gamma)}"
            rows = table[(table["law"] == law) & (table["gamma"] == gamma)]
            last = rows[rows["layer"] == depth].iloc[0]
            rate, rate_se = last["rate"], last["rate_se"]
            claims += [
                evaluate(
                    id=f"rank_collapse.lemma3.rate_{case}",
                    statement=(
                        f"vanilla residual product, {law} weights, gamma={gamma:g}, d={width}: "
                        f"log(sigma_2/sigma_1) of B_l X decreases linearly in l (rank collapse); "
                        f"measured is the mean per-run OLS slope over layers {burn_in}..{depth} "
                        f"(Lyapunov gap lambda_2 - lambda_1, QR-tracked), which must be <= "
                        f"-{z:g} SE"
                    ),
                    source=source,
                    measured=rate,
                    measured_se=rate_se,
                    relation="<=",
                    bound=-z * rate_se,
                    note=(
                        f"log10(sigma_2/sigma_1) at layer {depth}: "
                        f"{last['log10_ratio_qr']:.2f} (QR, up to an O(1) offset), "
                        f"{last['log10_ratio_svd']:.2f} (direct float64 SVD, floored by "
                        "round-off near -15)"
                    ),
                    details={"per_run_layers": [burn_in, depth], "z": z},
                ),
                evaluate(
                    id=f"rank_collapse.lemma3.rank_one_{case}",
                    statement=(
                        f"vanilla residual product, {law} weights, gamma={gamma:g}, d={width}: "
                        f"H~_l = B_l X / ||B_l X||_F is rank one at l={depth}; measured is the "
                        f"largest r(H~_l) (Eq. (4)) over {n_runs} runs"
                    ),
                    source=source + "; Eq. (4)",
                    measured=float(last["r_max"]),
                    relation="<=",
                    bound=1.0,
                    tolerance=rank_tolerance,
                    details={"r_mean": float(last["r_mean"])},
                ),
            ]
    return claims


def judge_prop8(
    table: pd.DataFrame,
    *,
    widths: Sequence[int] = (8, 16, 32, 64, 128, 256),
    n_spectra: int = 16,
    rtol: float = 1e-10,
    basis: str = "hadamard",
    **_settings,
) -> list[Claim]:
    """The claims of Prop. 8 from the ``measure_prop8`` table: each identity holds to ``rtol``;
    the printed middle identity of Eq. (44) is off by at least a factor 2."""
    source = "Dan+20 Prop. 8, Eq. (44)-(45); proof Eq. (75)-(77)"
    setting = (
        f"M = U diag(lambda) U^T, U {basis} basis, d in {list(widths)}, "
        f"{n_spectra} Exp(1) spectra with sum d plus rank-one and flat spectra"
    )
    identities = {
        "trace_m_cubed": "Tr(M^3) = ||lambda||_3^3",
        "trace_diag_m2_squared": (
            "Tr(diag(M^2)^2) = ||lambda||_2^4 / d (Eq. (77), the corrected Eq. (44))"
        ),
        "frobenius_m_squared": "||M||_F^2 = ||lambda||_2^2",
        "frobenius_drift": (
            "delta_F(M) = delta_F(lambda) (Eq. (45); error relative to the sum of the absolute "
            "values of its terms)"
        ),
    }
    claims = [
        evaluate(
            id=f"rank_collapse.prop8.{key}",
            statement=f"{text}, float64; {setting}; measured is the largest relative error",
            source=source,
            measured=table[f"err_{key}"].max(),
            relation="<=",
            bound=rtol,
            details={"per_width": table[f"err_{key}"].tolist()},
        )
        for key, text in identities.items()
    ]
    claims.append(
        evaluate(
            id="rank_collapse.prop8.printed_eq44_differs",
            statement=(
                "erratum: the printed middle identity of Eq. (44), Tr(diag(M^2))^2 = "
                "||lambda||^4 / d, does not hold (its left side is ||lambda||_2^4, a factor d "
                f"larger); {setting}; measured is the smallest relative deviation, which must be "
                ">= 1"
            ),
            source="Dan+20 Eq. (44) as printed vs Eq. (77)",
            measured=table["printed_eq44_rel_deviation"].min(),
            relation=">=",
            bound=1.0,
            note="exact value d - 1; the corrected identity is the claim trace_diag_m2_squared",
        )
    )
    return claims


def _printed_eq78_correction(width: int, e: float) -> float:
    """(d^2 - ||lambda||_2^2) / (2 eps^2 d) of the Example 9 spectrum (1 if Eq. (78) held).

    The only torch of the judges, imported here: the float64 sum of torch's CPU kernel (its
    summation order, which depends on the CPU's vector width) fixes the last bits of the claim's
    measured value, and no numpy summation reproduces it for every d.
    """
    import torch

    lam = torch.full((width,), e**2, dtype=torch.float64)
    lam[0] = width - e**2 * (width - 1)
    return (width**2 - lam.square().sum().item()) / (2 * e**2 * width)


def judge_example9(
    table: pd.DataFrame,
    *,
    width: int = 16,
    antithetic: bool = True,
    z: float = 3.0,
    **_settings,
) -> list[Claim]:
    """The claims of Example 9 from the ``measure_example9`` table: per (law, gamma)
    ``leading_shrinks``, ``small_grow``, ``frobenius_shrinks``, ``frobenius_paper_bound``;
    per eps the erratum ``printed_eq78_differs``."""
    source = "Dan+20 Example 9, Eq. (78)-(82); Prop. 8"
    claims = []
    for row in table.to_dict("records"):
        law, gamma, e = row["law"], row["gamma"], row["eps"]
        n_runs, n_samples = int(row["n_runs"]), int(row["n_samples"])
        l1_mean, l1_se = row["lambda1_plus"], row["lambda1_plus_se"]
        sm_mean, sm_se = row["small_plus"], row["small_plus_se"]
        fd_mean, fd_se = row["frob_delta"], row["frob_delta_se"]
        paper_bound = row["paper_bound"]
        case = f"{law}_g{_tag(gamma)}"
        setting = (
            f"d={width}, {law} W, gamma={gamma:g}, eps={e:g}, "
            f"{n_runs} runs x {n_samples} W{' (+ antithetic -W)' if antithetic else ''}"
        )
        claims += [
            evaluate(
                id=f"rank_collapse.example9.leading_shrinks_{case}",
                statement=(
                    f"one BN layer shrinks the leading eigenvalue of M in expectation: "
                    f"E lambda_1(M_+) - lambda_1 <= -{z:g} SE; {setting}"
                ),
                source=source,
                measured=l1_mean - row["lambda1"],
                measured_se=l1_se,
                relation="<=",
                bound=-z * l1_se,
            ),
            evaluate(
                id=f"rank_collapse.example9.small_grow_{case}",
                statement=(
                    f"one BN layer grows the small eigenvalues in expectation: "
                    f"E mean_(i>1) lambda_i(M_+) - eps^2 >= {z:g} SE; {setting}"
                ),
                source=source,
                measured=sm_mean - e**2,
                measured_se=sm_se,
                relation=">=",
                bound=z * sm_se,
                note="Tr M_+ = Tr M = d, so this is leading_shrinks in the seed's words (ii)",
            ),
            evaluate(
                id=f"rank_collapse.example9.frobenius_shrinks_{case}",
                statement=(
                    f"E ||M_+||_F^2 - ||M||_F^2 <= -{z:g} SE; {setting}; Prop. 8 predicts "
                    f"gamma^2 delta_F(lambda) = {row['predicted_delta']:.4g}"
                ),
                source=source + "; Eq. (79)",
                measured=fd_mean,
                measured_se=fd_se,
                relation="<=",
                bound=-z * fd_se,
            ),
            evaluate(
                id=f"rank_collapse.example9.frobenius_paper_bound_{case}",
                statement=(
                    f"E ||M_+||_F^2 < ||M||_F^2 - gamma^2 eps^2 d^2 (the seed's gamma^4 d^2 "
                    f"with eps = gamma) = {paper_bound:.4g}, margin {z:g} SE; {setting}"
                ),
                source=source,
                measured=fd_mean,
                measured_se=fd_se,
                relation="<=",
                bound=paper_bound - z * fd_se,
            ),
        ]
    for e in sorted(set(table["eps"].tolist())):
        correction = _printed_eq78_correction(width, e)
        claims.append(
            evaluate(
                id=f"rank_collapse.example9.printed_eq78_differs_e{_tag(e)}",
                statement=(
                    f"erratum: Eq. (78) prints ||lambda||_2^2 ~ d^2 - 2 gamma^2 d, but the "
                    f"first-order correction is 2 eps^2 d (d - 1); measured is the exact "
                    f"(d^2 - ||lambda||_2^2) / (2 eps^2 d) at d={width}, eps={e:g} (1 if the "
                    "printed form held), which must be >= 2"
                ),
                source="Dan+20 Eq. (78)-(79) as printed",
                measured=correction,
                relation=">=",
                bound=2.0,
                note=(
                    "exact value (d - 1)(1 - eps^2 / 2); likewise ||lambda||_3^3 ~ d^3 - "
                    "3 eps^2 d^2 (d - 1) and ||lambda||_2^4 ~ d^4 - 4 eps^2 d^3 (d - 1), so "
                    "delta_F(lambda) ~ -4 eps^2 d (d - 1)(2 d - 1) and Eq. (79) is "
                    "O(-gamma^4 d^3), not O(-gamma^4 d^2); the seed's bound -gamma^4 d^2 "
                    "still follows (claims frobenius_paper_bound)"
                ),
            )
        )
    return claims


def _even_spread_exponent(beta: float) -> float:
    """Asymptotic exponent of alpha(d) for the spike spectrum of ``_spike_spectrum`` (derived).

    alpha ~ (d^(2 beta) + d)^2 / (d (d^(3 beta) + d)): d^(beta - 1) for beta >= 1/2 (the seed's
    Eq. (89)), d^(1 - 3 beta) for 1/3 <= beta < 1/2, and d^0 (alpha -> 1) for beta < 1/3, where
    the even bulk dominates both norms.
    """
    if beta >= 0.5:
        return beta - 1
    return 1 - 3 * beta if beta >= 1 / 3 else 0.0


def judge_examples11_12(
    table: pd.DataFrame,
    *,
    widths: Sequence[int] = (8, 16, 32, 64, 128, 256),
    n_spectra: int = 64,
    alpha_widths: Sequence[int] = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096),
    betas: Sequence[float] = (0.5, 0.75),
    tol: float = 1e-12,
    alpha_bound: float = 0.9,
    basis: str = "hadamard",
    **_settings,
) -> list[Claim]:
    """The claims of Examples 11 and 12 from the ``measure_examples11_12`` table.

    Example 11: ``ratio_at_most_one`` and ``equal_eigenvalues_ratio_one`` (within ``tol``).
    Example 12, per beta: ``alpha_below_0p9_b<beta>`` (alpha at the largest d <= alpha_bound)
    and ``alpha_slope_b<beta>`` (slope of log alpha on log d <= 0).
    """
    example = table["example"].astype(str)  # "11" | "12"; a CSV reads them back as integers
    spike = require_finite(
        table[(example == "12") & (table["method"] == "spectrum")],
        ["beta", "ratio_mean", "slope"],
        "rank_collapse.examples11_12 (Example 12 rows)",
    )
    claims_12 = []
    for beta in betas:
        rows = spike[spike["beta"] == beta]
        alphas = rows["ratio_mean"].tolist()
        slope = rows["slope"].iloc[0]
        setting = (
            f"lambda_1 = d^{beta:g}, the rest (d - d^beta) / (d - 1) each, "
            f"d = {alpha_widths[0]}..{alpha_widths[-1]}, alpha = ||lambda||_2^4 / "
            "(d ||lambda||_3^3) (Prop. 8)"
        )
        local = math.log(alphas[-1] / alphas[-2]) / math.log(alpha_widths[-1] / alpha_widths[-2])
        claims_12 += [
            evaluate(
                id=f"rank_collapse.examples11_12.alpha_below_0p9_b{_tag(beta)}",
                statement=(
                    f"Example 12: alpha < {alpha_bound:g} for large d; measured is alpha at "
                    f"d = {alpha_widths[-1]}; {setting}"
                ),
                source="Dan+20 Example 12, Eq. (87)-(89)",
                measured=alphas[-1],
                relation="<=",
                bound=alpha_bound,
            ),
            evaluate(
                id=f"rank_collapse.examples11_12.alpha_slope_b{_tag(beta)}",
                statement=(
                    f"Example 12: alpha decreases toward 0 as d grows; measured is the OLS slope "
                    f"of log alpha on log d, which must be <= 0 (predicted asymptotic exponent "
                    f"beta - 1 = {beta - 1:g}); {setting}"
                ),
                source="Dan+20 Example 12, Eq. (89)",
                measured=slope,
                relation="<=",
                bound=0.0,
                note=(
                    f"local slope between the two largest widths: {local:.4f}; asymptotic "
                    f"exponent of this even-spread spectrum: {_even_spread_exponent(beta):g} "
                    "(beta - 1 only for beta >= 1/2, see module docstring)"
                ),
                details={"alphas": alphas, "widths": list(alpha_widths), "local_slope": local},
            ),
        ]

    ex11 = table[example == "11"]
    random_rows = ex11[ex11["spectrum"] == "random"]
    proj_rows = ex11[ex11["spectrum"] == "projection"]
    proj_dev = np.maximum(
        (proj_rows["ratio_max"] - 1).abs(), (proj_rows["ratio_min"] - 1).abs()
    ).max()
    setting = f"M = U diag(lambda) U^T, U {basis} basis, d in {list(widths)}"
    claims = [
        evaluate(
            id="rank_collapse.examples11_12.ratio_at_most_one",
            statement=(
                f"Example 11: Tr(diag(M^2)^2) / Tr(M^3) <= 1 for equal-row-norm M; {setting}, "
                f"{n_spectra} Exp(1) spectra with sum d plus rank-one and flat; measured is the "
                "largest ratio"
            ),
            source="Dan+20 Example 11, Eq. (83)-(85)",
            measured=random_rows["ratio_max"].max(),
            relation="<=",
            bound=1.0,
            tolerance=tol,
            note="the flat and rank-one spectra attain 1 (all nonzero eigenvalues equal)",
        ),
        evaluate(
            id="rank_collapse.examples11_12.equal_eigenvalues_ratio_one",
            statement=(
                "Example 11: equality g2 / g1 = 1 when the nonzero eigenvalues are equal; "
                f"{setting}, k eigenvalues d/k for k in {{1, 2, 3, d/2, d-1, d}}; measured is "
                "the largest |ratio - 1|"
            ),
            source="Dan+20 Example 11, Eq. (86)",
            measured=proj_dev,
            relation="<=",
            bound=0.0,
            tolerance=tol,
        ),
    ]
    return claims + claims_12
