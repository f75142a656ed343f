"""What the one-step-drift measurements (``drift_theorems``) and their judges
(``drift_theorem_judges``, ``sawa_judges``, ``stability_judges``) share, torch-free: the (n, d)
cases, the stability chains' starts, lemma6's rare-event threshold, and the contraction factor of
Thm. 5 (the drift figure draws it)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["RARE_EVENT_COUNT", "STARTS", "case_text", "check_cases", "drift_contraction"]

RARE_EVENT_COUNT = 100.0
"""lemma6: a state with n <= 3 is compared with the Monte Carlo only if the expected number of
rows in its rare-event region, n_draws d s_n^{(n-1)/2}, reaches this."""

STARTS = ("gaussian", "near_rank_one")
"""Inputs H_0 of the stability chains: i.i.d. Gaussian, or ``inputs.near_rank_one`` (degenerate)."""


def case_text(cases: Sequence[Sequence[int]]) -> str:
    """The cases as text for a claim's statement: (n=.., d=..), ..."""
    return ", ".join(f"(n={int(n)}, d={int(d)})" for n, d in cases)


def check_cases(cases: Sequence[Sequence[int]], name: str) -> list[tuple[int, int]]:
    """The (n, d) cases as int pairs; a ValueError naming the key ``name`` unless every case is
    [n, d] with n >= 2 and d >= 1 and there is one."""
    out = []
    for case in cases:
        if len(case) != 2:
            raise ValueError(f"{name}: each case is [n, d], got {case}")
        n, d = int(case[0]), int(case[1])
        if n < 2 or d < 1:
            raise ValueError(f"{name}: need n >= 2 and d >= 1, got n={n}, d={d}")
        out.append((n, d))
    if not out:
        raise ValueError(f"{name}: no cases")
    return out


def drift_contraction(vhat, n: int):
    """gamma = 1 - (2/3) sigma_n^2 = 1 - (2/3)(1/n - V_hat), the contraction factor of DJB21
    Thm. 5 and Lemma 8 (Thesis Thm. A.2, Lemma A.5) for unit-Frobenius H. Works on floats,
    numpy arrays and tensors alike."""
    return 1.0 - 2.0 / 3.0 * (1.0 / n - vhat)
