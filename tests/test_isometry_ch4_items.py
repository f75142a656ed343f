"""Thesis ch. 4 items: Lemma 4.2, Thm. 4.3, Cors. 4.4/4.5 (measure, then judge from the CSV) and
the claims of Fig. 4.1."""

import pandas as pd
import torch
from item_setups import quick_slice

from sigprop.engine import gram_isometry as iso
from sigprop.engine import ops
from sigprop.papers.isometry import isometry_property_judges as PJ
from sigprop.papers.isometry import isometry_property_theorems as P
from sigprop.papers.isometry import normalization_gain_judges as TJ
from sigprop.papers.isometry import normalization_gain_theorems as T
from sigprop.papers.isometry.parallelepiped_judges import fig4_1_claims
from sigprop.pipeline.jobs import read_table

SMALL = dict(n_cases=150, n_range=(2, 12))
SETTINGS = dict(SMALL, roundoff_units=4.0)
LEMMA = dict(SETTINGS, max_log10_condition=8.0, log10_delta_range=(-2.0, 0.0), deficit_rtol=1e-6)


def judged(measure, judge, settings, tmp_path, tolerances):
    """Measure with the settings (the quick config elsewhere) less the tolerances, write and read
    the CSV, judge it."""
    path = tmp_path / "table.csv"
    settings = {**quick_slice("isometry", measure.__name__), **settings}
    measure(**{k: v for k, v in settings.items() if k not in tolerances}, device="cpu").to_csv(
        path, index=False
    )
    return {c.id.split(".", 2)[2]: c for c in judge(read_table(path), **settings)}


def lemma(tmp_path):
    return judged(
        P.lemma4_2, PJ.lemma4_2_claims, LEMMA, tmp_path, ("roundoff_units", "deficit_rtol")
    )


def test_lemma4_2_claims_pass(tmp_path):
    claims = lemma(tmp_path)
    assert len(claims) == 7
    assert all(c.verdict == "holds" for c in claims.values()), [
        c for c in claims.values() if c.verdict != "holds"
    ]
    assert [c.kind for c in claims.values()].count("identity") == 2


def test_lemma4_2_fails_for_a_wrong_isometry(monkeypatch, tmp_path):
    """A gap that ignores the smallest eigenvalue breaks the zero-iff-singular claim."""
    monkeypatch.setattr(iso, "isometry_gap", lambda m, rtol=None: torch.zeros(m.shape[:-2]))
    claims = lemma(tmp_path)
    assert claims["zero_iff_singular"].verdict == "fails"
    assert claims["gm_over_am"].verdict == "fails"


def test_theorem_and_corollaries_verdicts(tmp_path):
    thm = judged(T.theorem4_3, TJ.theorem4_3_claims, SETTINGS, tmp_path, ("roundoff_units",))
    assert thm["bound"].verdict == "holds" and thm["exact_identity"].verdict == "holds"
    erratum = thm["printed_equality_4_7"]  # the erratum (4.6) -> (4.7)
    assert erratum.verdict == "fails" and erratum.kind == "erratum"
    assert erratum.pair == "isometry.theorem4_3.exact_identity"
    assert thm["exact_identity"].kind == "paper"
    for measure, judge in (
        (T.corollary4_4, TJ.corollary4_4_claims),
        (T.corollary4_5, TJ.corollary4_5_claims),
    ):
        claims = judged(measure, judge, SETTINGS, tmp_path, ("roundoff_units",))
        assert claims["scaling_bound"].verdict == "holds"
        assert claims["scaling_exact_identity"].verdict == "holds"
        # centring breaks the corollary: counter-example controls that find violations hold
        for name in ("centered_decreases", "centered_bound_violated"):
            assert claims[name].kind == "control" and claims[name].verdict == "holds"


def test_centred_controls_fail_when_the_operator_does_not_centre(monkeypatch, tmp_path):
    """The counter-example controls can fail: if ``ln_centered`` / ``bn_centered`` were the
    scaling operators, no case would lower the isometry and both controls fail; the scaling
    bound (Cors. 4.4, 4.5) presumes the control that shows a violation is detected, so it is
    then invalid."""
    from dataclasses import asdict

    from sigprop.verdicts.claims import apply_requirements

    monkeypatch.setattr(ops, "ln_centered", ops.ln_rms)
    monkeypatch.setattr(ops, "bn_centered", ops.bn_rms)
    for measure, judge in (
        (T.corollary4_4, TJ.corollary4_4_claims),
        (T.corollary4_5, TJ.corollary4_5_claims),
    ):
        claims = judged(measure, judge, SETTINGS, tmp_path, ("roundoff_units",))
        assert claims["centered_decreases"].verdict == "fails"
        assert claims["centered_bound_violated"].verdict == "fails"
        after = {
            r["id"].split(".", 2)[2]: r
            for r in apply_requirements([asdict(c) for c in claims.values()], strict=False)
        }
        assert after["scaling_bound"]["verdict"] == "invalid"
        assert "centered_bound_violated, which fails" in after["scaling_bound"]["note"]
        assert claims["scaling_bound"].tolerance_reason.startswith("round_off: ")


def test_theorem4_3_bound_fails_with_a_wrong_normalization(monkeypatch, tmp_path):
    """Normalizing to norms that vary (not a projection) violates Eq. (4.3)."""
    monkeypatch.setattr(
        ops, "ln_rms", lambda h: h * torch.linspace(0.2, 3, h.shape[-1], dtype=h.dtype)
    )
    thm = judged(T.theorem4_3, TJ.theorem4_3_claims, SETTINGS, tmp_path, ("roundoff_units",))
    assert thm["bound"].verdict == "fails" and thm["exact_identity"].verdict == "fails"


def test_a_tighter_tolerance_changes_only_the_verdicts(tmp_path):
    """The judge reads the tolerance; the measured numbers do not depend on it."""
    loose = judged(T.theorem4_3, TJ.theorem4_3_claims, SETTINGS, tmp_path, ("roundoff_units",))
    tight = judged(
        T.theorem4_3, TJ.theorem4_3_claims, dict(SETTINGS, roundoff_units=0.0), tmp_path,
        ("roundoff_units",),
    )  # fmt: skip
    assert {k: c.measured for k, c in loose.items()} == {k: c.measured for k, c in tight.items()}


def test_fig4_1_claims_pass_and_detect_a_wrong_annotation():
    table = iso.example_table(
        ["a", "b"],
        [[1, 1, 90], [1, 0.5, 30]],
        [torch.eye(3).tolist(), [[1, 0, 0], [1, 1, 0], [0, 1, 1]]],
    )
    assert all(c.verdict == "holds" for c in fig4_1_claims(table, tolerance=1e-12))
    wrong = table.assign(isometry=table["isometry"] * 0.99)
    failed = {c.id for c in fig4_1_claims(wrong, tolerance=1e-12) if c.verdict == "fails"}
    assert "isometry.fig4_1.parallelogram_closed_form" in failed
    assert isinstance(table, pd.DataFrame)
