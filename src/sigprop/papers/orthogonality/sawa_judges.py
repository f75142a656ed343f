"""Claims of DJB21 Lemmas 6, 9 (Sawa) and 10 (Thesis Lemmas A.3, A.6, A.7): the ``judge_<item>``
halves of ``drift_theorems`` for items ``lemma6`` and ``lemma10``. Torch-free."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ...engine.stats import exact
from ...verdicts.claims import Claim, Record
from .drift_spec import RARE_EVENT_COUNT, case_text, check_cases
from .drift_theorem_judges import (
    SOURCE_LEMMA6,
    SOURCE_LEMMA8,
    SOURCE_LEMMA9,
    SOURCE_LEMMA10,
    worst_of,
)
from .verdicts import judge

__all__ = ["LEMMA10_RECORDS", "LEMMA6_RECORDS", "judge_lemma10", "judge_lemma6"]

_WORST = "at the state whose interval (t over draws) is least favourable"

MC_REASON = (
    "wording: our equivalence margin for an equality the seed states exactly ({what}), checked "
    "by Monte Carlo, whose mean has no bias: the two agree within {relative_margin:.0%} "
    "(orthogonality/lemma6/relative_margin); no number of the seed bounds it"
)
QUADRATURE = (
    "round_off: float64 quadrature (trapezoid in log t), accurate to ~1e-16; "
    "orthogonality/lemma10/float_tolerance = {float_tolerance:g}"
)

LEMMA6_RECORDS = (
    Record(
        "exact_variance",
        "E||C_l+1 - E C_l+1||_F^2 = (1 - sum_i p_i^2)/d exactly ({setting}); measured is the "
        "relative error of the Monte-Carlo mean " + _WORST + ", within {relative_margin:g}",
        SOURCE_LEMMA6 + " (our exact form)",
        "setup",
        "frob_error",
        "within",
        0.0,
        tolerance="relative_margin",
        tolerance_reason=MC_REASON.replace("{what}", "our exact form (1 - sum p_i^2)/d of Lemma 6"),
        note="Our exact form, stronger than the seed's <= 1/d: it checks our derivation and the "
        "Monte Carlo that the other claims use. {usable} states; the same W within a case{aside}. "
        "Margin: orthogonality/lemma6/relative_margin.",
    ),
    Record(
        "below_one_over_d",
        "E||C_l+1 - E C_l+1||_F^2 <= 1/d ({setting}); measured is d times the Monte-Carlo mean "
        + _WORST,
        SOURCE_LEMMA6,
        "paper",
        "frob_d",
        "<=",
        1.0,
        note="Exactly 1 - sum p_i^2 < 1: tight only as p spreads evenly and n -> inf.",
    ),
    Record(
        "sawa_vs_mc",
        "p_i(sigma) by Sawa's integral (Eq. (15)) equals the Monte-Carlo mean of [C_l+1]_ii, "
        "E_W C_l+1 = diag(p) (Eq. (13)), for every state and i ({setting}); measured is n times "
        "the difference (in units of the mean coefficient 1/n) " + _WORST + ", within "
        "{relative_margin:g}",
        SOURCE_LEMMA9,
        "paper",
        "p_error",
        "within",
        0.0,
        tolerance="relative_margin",
        tolerance_reason=MC_REASON.replace(
            "{what}", "E_W C = diag(p), Eq. (13), with p by Eq. (15)"
        ),
        note="{coefficients} coefficients{aside}; the seed's Eq. (13) prints sigma_n^2 w_n^2 in "
        "the numerator for every i, a typo for sigma_i^2 w_i^2.",
    ),
    Record(
        "sawa_sum",
        "sum_i p_i(sigma) = 1 for the quadrature coefficients (same states); measured is the "
        "largest |sum_i p_i - 1| (exact)",
        SOURCE_LEMMA9,
        "identity",
        "sum_error",
        "<=",
        0.0,
        tolerance="float_tolerance",
        tolerance_reason="round_off: a sum of n float64 quadrature coefficients; "
        "orthogonality/lemma6/float_tolerance = {float_tolerance:g}",
        note="float64 round-off allowance.",
    ),
)


def judge_lemma6(
    table: pd.DataFrame,
    *,
    cases: Sequence[Sequence[int]],
    n_states: int,
    n_degenerate: int,
    n_draws: int,
    relative_margin: float,
    float_tolerance: float,
) -> list[Claim]:
    """Claims of DJB21 Lemmas 6 and 9 from ``measure_lemma6``'s table.

    Monte-Carlo claims: t intervals over the ``n_draws`` draws, judged at the state (or
    coefficient) least favourable to the claim; ``relative_margin`` is the equivalence margin of
    the Monte-Carlo vs exact comparisons; ``float_tolerance`` the round-off allowance.
    """
    cases = check_cases(cases, "lemma6.cases")
    states = table.drop_duplicates(["n", "d", "state"])
    usable = states[states["mc_reliable"]]
    set_aside = len(states) - len(usable)
    aside = (
        f"; {set_aside} near-degenerate state(s) with n <= 3 set aside (rare-event region "
        f"expected to hold < {RARE_EVENT_COUNT:g} rows)"
        if set_aside
        else ""
    )
    exact_frob = usable["frob_exact"]
    # a coefficient whose draws are all equal has SE 0 and z NaN: left out, as before
    coef = table[table["mc_reliable"] & table["z_p"].notna()]
    n_of = coef["n"].to_numpy(float)
    context = dict(
        setting=f"{n_states} Dirichlet + {n_degenerate} near-degenerate spectra per case "
        f"{case_text(cases)}, {n_draws} draws each",
        relative_margin=relative_margin,
        float_tolerance=float_tolerance,
        usable=len(usable),
        aside=aside,
        coefficients=len(coef),
        frob_error=worst_of(
            usable["frob"] / exact_frob - 1.0, usable["frob_se"] / exact_frob, n_draws, "within"
        )[0],
        frob_d=worst_of(states["frob"] * states["d"], states["frob_se"] * states["d"], n_draws)[0],
        p_error=worst_of(
            (coef["p_mc"] - coef["p_quadrature"]) * n_of, coef["p_mc_se"] * n_of, n_draws, "within"
        )[0],
        sum_error=exact((states["sum_p"] - 1.0).abs().max()),
    )
    return judge(LEMMA6_RECORDS, context, "lemma6")


LEMMA10_RECORDS = (
    Record(
        "g_at_zero",
        "g(0) = 1 (Eq. (16)) for {ns}; measured is the largest |g(0) - 1| (exact: quadrature)",
        SOURCE_LEMMA10,
        "paper",
        "g0",
        "<=",
        0.0,
        tolerance="float_tolerance",
        tolerance_reason=QUADRATURE,
        note="float64 quadrature (trapezoid in log t).",
    ),
    Record(
        "slope_at_zero",
        "g'(0) = 2n/(n+2) for {ns}; measured is the largest |g'(0) - 2n/(n+2)| with g'(0) by "
        "Richardson-extrapolated central differences of the quadrature (exact)",
        SOURCE_LEMMA10 + " and the last display of App. C.6",
        "paper",
        "slope",
        "<=",
        0.0,
        tolerance="derivative_tolerance",
        tolerance_reason="round_off: Richardson-extrapolated central differences of the float64 "
        "quadrature with step {derivative_step:g}/n: truncation O(h^4) and round-off ~1e-10; "
        "orthogonality/lemma10/derivative_tolerance = {derivative_tolerance:g}",
        note="step {derivative_step:g}/n; truncation O(h^4), round-off ~ 1e-10.",
    ),
    Record(
        "convex",
        "g is convex on [0, 1/n) for {ns}: second differences on {n_grid} grid points, relative "
        "to max g; measured is the smallest (exact)",
        SOURCE_LEMMA10,
        "paper",
        "convex",
        ">=",
        0.0,
        tolerance="float_tolerance",
        tolerance_reason=QUADRATURE,
        note="The proof's h_1' has exponent -(n-3)/2 where -(n+1)/2 is right; with it "
        "h_1' = theta h_3 (5B - (n+1)/(n-1) A) >= 0 still holds, so the lemma stands.",
    ),
    Record(
        "equal_others_minimize",
        "at fixed sigma_n, f_n(sigma) is smallest when the other sigma_j are equal (unproven in "
        "the seed): {n_search} random spectra per n, {ns}; measured is the smallest relative "
        "f_n(sigma) - g(delta) (exact)",
        "DJB21 App. C.6, the step before Eq. (16) (Thesis A.3)",
        "paper",
        "minimize",
        ">=",
        0.0,
        tolerance="float_tolerance",
        tolerance_reason=QUADRATURE,
        note="Holds: for each t, sum_j log(1 + 2 t s_j) is Schur-concave in (s_j)_{{j != n}}, so "
        "the integrand of f_n is pointwise smallest at equal s_j [our derivation].",
    ),
    Record(
        "linear_lower_bound",
        "f_n(sigma) >= 1 + 2n/(n+2) delta, delta = 1/n - sigma_n^2 (convexity of g plus the "
        "minimization step), on the same random spectra; measured is the smallest left minus "
        "right side (exact)",
        SOURCE_LEMMA8 + ", App. C.6",
        "paper",
        "linear",
        ">=",
        0.0,
        tolerance="float_tolerance",
        tolerance_reason=QUADRATURE,
    ),
)


def judge_lemma10(
    table: pd.DataFrame,
    *,
    batch_sizes: Sequence[int],
    n_grid: int,
    n_search: int,
    search_every: int,
    derivative_step: float,
    float_tolerance: float,
    derivative_tolerance: float,
) -> list[Claim]:
    """Claims of DJB21 Lemma 10 and the step before Eq. (16) from ``measure_lemma10``'s table
    (quadrature: exact, with ``float_tolerance`` and ``derivative_tolerance``)."""
    n_min, n_max = (int(x) for x in batch_sizes)
    searched = table[table["n_search"] > 0]
    context = dict(
        ns=f"n = {n_min}..{n_max}",
        n_grid=n_grid,
        n_search=n_search,
        derivative_step=derivative_step,
        float_tolerance=float_tolerance,
        derivative_tolerance=derivative_tolerance,
        g0=exact((table["g0"] - 1).abs().max()),
        slope=exact((table["g_slope"] - table["g_slope_exact"]).abs().max()),
        convex=exact(table["min_second_difference"].min()),
        minimize=exact(searched["min_f_minus_g"].min(skipna=False)),  # NaN (invalid) if none
        linear=exact(searched["min_f_minus_linear"].min(skipna=False)),
    )
    return judge(LEMMA10_RECORDS, context, "lemma10")
