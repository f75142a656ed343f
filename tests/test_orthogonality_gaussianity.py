"""W2 to the Gaussian (DJB21 Lemma 2, Cor. 3), the gaussian_chain simulation and its claims."""

import math

import numpy as np
import pandas as pd
import pytest
import torch
from scipy.linalg import sqrtm

from sigprop.engine import metrics, stats
from sigprop.papers.orthogonality import gaussian_bound_judges as ogb
from sigprop.papers.orthogonality import gaussian_tables as og
from sigprop.papers.orthogonality import gaussianity
from sigprop.papers.orthogonality.gaussian_simulations import (
    equicorrelated_gaussian_inputs,
    gaussian_chain,
)


def unit_frobenius(h):
    return h / torch.linalg.matrix_norm(h)[..., None, None]


def brute_force_w2(a: np.ndarray, b: np.ndarray) -> float:
    """Bures W2^2 between N(0, A) and N(0, B) with scipy's matrix square root."""
    root = sqrtm(a)
    return float(np.trace(a) + np.trace(b) - 2 * np.trace(sqrtm(root @ b @ root)).real)


@pytest.mark.parametrize(("d", "n"), [(3, 2), (4, 3), (5, 5)])
def test_conditional_w2_equals_gaussian_w2_of_the_nd_covariances(gen, d, n):
    """DJB21 Eq. (4) given H: rows of W H ~ N(0, C / d), rows of G/sqrt n ~ N(0, I / (d n))."""
    for scale in (1.0, 0.3):  # the identity sum (sigma_i - 1/sqrt n)^2 needs no unit norm
        h = scale * unit_frobenius(torch.randn(d, n, generator=gen, dtype=torch.float64))
        c = (h.T @ h).numpy()
        law_wh = np.kron(np.eye(d), c / d)  # vec row by row
        law_g = np.kron(np.eye(d), np.eye(n) / (d * n))
        expected = brute_force_w2(law_wh, law_g)
        assert gaussianity.conditional_w2_squared(h).item() == pytest.approx(expected, abs=1e-10)


def test_bures_formula_matches_scipy(gen):
    x = torch.randn(2, 5, 5, generator=gen, dtype=torch.float64)
    a, b = x[0] @ x[0].T, x[1] @ x[1].T
    assert gaussianity.bures_w2_squared(a, b).item() == pytest.approx(
        brute_force_w2(a.numpy(), b.numpy()), rel=1e-9
    )


def test_conditional_w2_closed_forms(gen):
    """0 for orthogonal equal-norm samples; 2 - 2/sqrt(n) (its maximum) for rank-one H."""
    n, d = 4, 9
    q, _ = torch.linalg.qr(torch.randn(d, n, generator=gen, dtype=torch.float64))
    assert gaussianity.conditional_w2_squared(q / math.sqrt(n)).item() == pytest.approx(
        0.0, abs=1e-14
    )
    rank_one = unit_frobenius(
        torch.ones(d, 1, dtype=torch.float64) @ torch.arange(1.0, n + 1).double()[None]
    )
    assert gaussianity.conditional_w2_squared(rank_one).item() == pytest.approx(
        2 - 2 / math.sqrt(n)
    )


def test_conditional_w2_is_rotation_invariant(gen):
    h = unit_frobenius(torch.randn(5, 16, 4, generator=gen, dtype=torch.float64))
    q, _ = torch.linalg.qr(torch.randn(5, 16, 16, generator=gen, dtype=torch.float64))
    p, _ = torch.linalg.qr(torch.randn(5, 4, 4, generator=gen, dtype=torch.float64))
    torch.testing.assert_close(
        gaussianity.conditional_w2_squared(q @ h @ p), gaussianity.conditional_w2_squared(h)
    )


@pytest.mark.parametrize("n", [2, 4, 8])
def test_lemma2_chain_on_random_states(gen, n):
    """Gelbrich LB <= mean cond. W2^2 <= n E V^2 <= 2 n E V (DJB21 App. D), on mixed states."""
    d = 3 * n
    spread = torch.logspace(-3, 0, 64, dtype=torch.float64)[:, None, None]
    h = torch.randn(64, d, n, generator=gen, dtype=torch.float64)
    h = unit_frobenius(h + torch.randn(1, d, n, generator=gen, dtype=torch.float64) / spread)
    lower = gaussianity.gelbrich_lower_bound((h.mT @ h).mean(0)).item()
    upper = gaussianity.conditional_w2_squared(h).mean().item()
    gap = metrics.orthogonality_gap(h)
    assert 0 <= lower <= upper <= n * gap.square().mean().item() <= 2 * n * gap.mean().item()
    assert lower < upper  # the states differ, so Jensen is strict


def test_gelbrich_of_a_single_state_equals_its_conditional_w2(gen):
    h = unit_frobenius(torch.randn(7, 3, generator=gen, dtype=torch.float64))
    torch.testing.assert_close(
        gaussianity.gelbrich_lower_bound(h.T @ h), gaussianity.conditional_w2_squared(h)
    )


def test_exchangeable_mean_gram_is_the_permutation_average(gen):
    n = 5
    h = unit_frobenius(torch.randn(200, 12, n, generator=gen, dtype=torch.float64))
    gram = h.mT @ h
    perms = [torch.randperm(n, generator=gen) for _ in range(400)]
    averaged = torch.stack([gram[:, p][:, :, p] for p in perms]).mean((0, 1))
    offdiag = (gram.sum((-2, -1)) - 1.0) / (n * (n - 1))
    exact = gaussianity.exchangeable_mean_gram(offdiag.mean(), n)
    assert exact.trace().item() == pytest.approx(1.0)
    torch.testing.assert_close(averaged, exact, atol=2e-3, rtol=0)


def test_running_alpha_hat_is_the_running_minimum():
    sigma = torch.tensor([[[0.5, 0.4, 0.45, 0.3, 0.35], [0.5, 0.42, 0.2, 0.5, 0.5]]])
    expected = torch.tensor([[0.4, 0.4, 0.2, 0.2, 0.2]])
    torch.testing.assert_close(gaussianity.running_alpha_hat(sigma), expected)


def test_corollary3_is_2n_times_theorem1():
    """Eq. (5) = 2 n x Eq. (3) at the same (alpha, l): Lemma 2's factor."""
    for alpha, layer, n, d in [(0.2, 0, 4, 64), (0.05, 7, 16, 1024), (0.5, 30, 2, 8)]:
        assert gaussianity.corollary3_rhs(alpha, layer, n, d) == pytest.approx(
            2 * n * gaussianity.theorem1_rhs(alpha, layer, n, d)
        )


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="d >= n"):
        gaussianity.conditional_w2_squared(torch.ones(2, 3))
    with pytest.raises(ValueError, match="square"):
        gaussianity.gelbrich_lower_bound(torch.ones(2, 3))
    with pytest.raises(ValueError, match="n must be >= 2"):
        gaussianity.exchangeable_mean_gram(torch.tensor(0.0), 1)
    with pytest.raises(ValueError, match="correlation"):
        equicorrelated_gaussian_inputs("x", [0], 8, 2, 1.0)
    with pytest.raises(ValueError, match="batch sizes"):
        gaussian_chain(
            [8],
            [4, 16],
            2,
            2,
            0.0,
            "float64",
            device="cpu",
            experiment_id="orthogonality.gaussian_chain",
        )


def test_equicorrelated_inputs():
    """Unit Frobenius norm; E[C_0] = ((1 - rho) I + rho 1 1^T) / n."""
    rho, n = 0.6, 3
    h = equicorrelated_gaussian_inputs("test.inputs", list(range(40)), 2000, n, rho)
    torch.testing.assert_close(torch.linalg.matrix_norm(h), torch.ones(40, dtype=torch.float64))
    expected = ((1 - rho) * torch.eye(n, dtype=torch.float64) + rho) / n
    torch.testing.assert_close((h.mT @ h).mean(0), expected, atol=3e-3, rtol=0)


@pytest.fixture(scope="module")
def tiny_chain():
    from sigprop.base.store import Labelled

    result = gaussian_chain(
        [2, 4],
        [8, 16, 32],
        12,
        6,
        0.9,
        "float64",
        device="cpu",
        experiment_id="orthogonality.gaussian_chain",
    )
    assert isinstance(result, Labelled)
    payload = result.values
    index = pd.MultiIndex.from_product([result.coords[d] for d in result.dims], names=result.dims)
    return pd.DataFrame(
        {k: v.numpy().reshape(-1) for k, v in payload.items()}, index=index
    ).reset_index()


def test_gaussian_chain_records_consistent_metrics(tiny_chain):
    f = tiny_chain
    assert set(f.columns) >= {"gap", "sigma_min", "w2_conditional", "gram_offdiagonal"}
    assert (f["sigma_min"] <= 1 / np.sqrt(f["batch_size"]) + 1e-12).all()
    assert (f["gap"] <= np.sqrt((f["batch_size"] - 1) / f["batch_size"]) + 1e-12).all()
    assert (f["w2_conditional"] <= f["batch_size"] * f["gap"] ** 2 + 1e-12).all()
    start = f.query("layer == 0")  # rho = 0.9: the gap starts near rho sqrt((n-1)/n)
    assert start["gap"].mean() > 0.5


def thm1(table, widths=(8, 32)):
    claims = ogb.thm1_claims(table, list(widths), (1, 3), (6, 12), 0.1, 0.05, 0.5, 6)
    return {c.id.split(".", 2)[2]: c for c in claims}


def test_claims_on_the_chain_and_on_counterexamples(tiny_chain):
    table = og.thm1_table(tiny_chain, (1, 3), (6, 12))
    claims = thm1(table)
    assert claims["decay_n4_d32"].verdict == "holds"
    assert claims["bound_literal"].verdict in ("holds", "undecided")
    assert claims["plateau_n_exponent"].kind == "setup"
    assert claims["control_floor_rate"].kind == "control"
    # at these widths both bounds exceed every possible gap: no data can make them fail
    broken = thm1(table.assign(mean_gap=table["mean_gap"] * 1e4), [8])
    assert {broken[f"bound_{r}"].verdict for r in ("literal", "rigorous")} == {"undecided"}
    assert "VACUOUS" in broken["bound_literal"].note

    w2 = og.w2_depth_table(tiny_chain)
    verdicts = {c.id: c.verdict for c in ogb.w2_depth_claims(w2, 1e-12, plateau_from=0)}
    assert "orthogonality.w2_depth.control_transient_only" not in verdicts
    assert {verdicts[f"orthogonality.w2_depth.{k}"] for k in (
        "gelbrich_below_coupling", "coupling_below_n_v2", "lemma2")} == {"holds"}  # fmt: skip
    swapped = w2.assign(lower=w2["upper"] * 1.01 + 1e-9)
    verdicts = {c.id: c.verdict for c in ogb.w2_depth_claims(swapped, 1e-12, plateau_from=0)}
    assert verdicts["orthogonality.w2_depth.gelbrich_below_coupling"] == "fails"


def test_thm1_bounds_are_vacuous_where_they_exceed_every_possible_gap(tiny_chain):
    """Issue 24, list 3: a bound above the largest possible gap sqrt((n-1)/n) at every point
    cannot fail, so it is undecided (VACUOUS), never a hold; where it is informative (below
    that level somewhere) the same claim holds or fails with the data."""
    table = og.thm1_table(tiny_chain, (1, 3), (6, 12))
    level = table["vacuous_level"]
    vacuous = table.assign(bound_literal=2 * level, bound_rigorous=3 * level)
    claim = thm1(vacuous)["bound_literal"]
    assert claim.verdict == "undecided" and "VACUOUS" in claim.note
    informative = table.assign(bound_literal=0.5 * level, bound_rigorous=0.5 * level)
    small = informative.assign(mean_gap=0.1 * level, se_gap=0.001 * level)
    large = informative.assign(mean_gap=0.9 * level, se_gap=0.001 * level)
    assert thm1(small)["bound_literal"].verdict == "holds"
    assert thm1(large)["bound_literal"].verdict == "fails"
    assert thm1(large)["bound_rigorous"].verdict == "fails"


def _frame(result) -> pd.DataFrame:
    index = pd.MultiIndex.from_product([result.coords[d] for d in result.dims], names=result.dims)
    values = {k: v.numpy().reshape(-1) for k, v in result.values.items()}
    return pd.DataFrame(values, index=index).reset_index()


def test_the_wide_part_reaches_only_the_bound_claims(tiny_chain):
    """thm1 and w2_depth read gaussian_chain's grid and wide_gaussian_chain: the bound claims
    are judged at every point of both (each point's t interval over its own runs), the per-cell,
    fit and control claims on the grid alone, bit for bit as without the wide part. Where only
    the wide part's bound is informative, the wide part decides the bound claim."""
    wide_id = "orthogonality.wide_gaussian_chain"
    wide = _frame(gaussian_chain([2], [64], 12, 3, 0.9, "float64", "cpu", experiment_id=wide_id))
    grid = og.thm1_table(tiny_chain, (1, 3), (6, 12))
    both = pd.concat([grid, og.thm1_table(wide, (1, 3), (6, 12), "wide")])
    assert set(both["runs"]) == {6, 3} and set(both["part"]) == {"grid", "wide"}
    alone, joint = thm1(grid), thm1(both)
    assert joint.keys() == alone.keys()
    for key in joint.keys() - {"bound_literal", "bound_rigorous"}:
        assert joint[key].measured == alone[key].measured, key
    points = lambda t: f"of {(t['layer'] >= 1).sum()} (n, d, layer) points"  # noqa: E731
    assert points(grid) in alone["bound_literal"].note
    assert points(both) in joint["bound_literal"].note
    level = both["vacuous_level"]
    is_wide = both["part"] == "wide"
    bound = level.where(is_wide, 2 * level) * np.where(is_wide, 0.5, 1.0)
    informative = both.assign(bound_literal=bound, bound_rigorous=bound, se_gap=0.001 * level)
    assert thm1(informative.assign(mean_gap=0.1 * level))["bound_literal"].verdict == "holds"
    assert thm1(informative.assign(mean_gap=0.9 * level))["bound_literal"].verdict == "fails"

    w2 = pd.concat([og.w2_depth_table(tiny_chain), og.w2_depth_table(wide, "wide")])
    claims = {c.id.rsplit(".", 1)[1]: c for c in ogb.w2_depth_claims(w2, 1e-12, plateau_from=0)}
    assert claims["gelbrich_below_coupling"].verdict == "holds"
    assert f"of {len(w2)} points" in claims["cor3_literal"].note


def test_w2_cor3_is_vacuous_where_it_exceeds_every_possible_w2(tiny_chain):
    w2 = og.w2_depth_table(tiny_chain)
    level = w2["vacuous_level"]

    def by_id(t):
        return {c.id.rsplit(".", 1)[1]: c for c in ogb.w2_depth_claims(t, 1e-12, plateau_from=0)}

    claim = by_id(w2.assign(cor3_literal=2 * level))["cor3_literal"]
    assert claim.verdict == "undecided" and "VACUOUS" in claim.note
    informative = w2.assign(cor3_literal=0.5 * level, upper_se=0.001 * level)
    assert by_id(informative.assign(upper=0.1 * level))["cor3_literal"].verdict == "holds"
    assert by_id(informative.assign(upper=0.9 * level))["cor3_literal"].verdict == "fails"


def test_thm1_control_fails_when_the_plateau_decays_like_one_over_d(tiny_chain):
    """Issue 24, list 3: the former control (the bound without its floor is exceeded on the
    plateau) held for any positive plateau. The new one compares the plateau with a floor one
    power of d faster, 3 n / (alpha d): it holds for a plateau well above that floor and fails
    for one that decays as fast."""
    table = og.thm1_table(tiny_chain, (1, 3), (6, 12))
    floor = 3 * table["batch_size"] / (table["alpha_hat"] * table["width"])
    above = table.assign(mean_gap=3 * floor, se_gap=0.01 * floor)
    below = table.assign(mean_gap=0.3 * floor, se_gap=0.01 * floor)
    assert thm1(above)["control_floor_rate"].verdict == "holds"
    assert thm1(below)["control_floor_rate"].verdict == "fails"


def test_plateau_exponents_recover_a_known_law():
    cells = pd.DataFrame(
        [(n, d) for n in (4, 8, 16) for d in (64, 256, 1024)], columns=["batch_size", "width"]
    )
    n, d = cells["batch_size"], cells["width"]
    cells["plateau_gap"] = 0.55 * n**0.5 * d**-0.5 * np.exp(0.3 * n / d)
    cells["plateau_gap_se"] = 0.01 * cells["plateau_gap"]
    fit = ogb.plateau_exponents(cells)
    assert fit["beta_n"] == pytest.approx(0.5) and fit["beta_d"] == pytest.approx(-0.5)
    assert fit["correction"] == pytest.approx(0.3)


def test_radius_exponent_is_half_the_slope_of_w2_squared():
    """W2^2 = c d^-1 in every run: W2 ~ d^-1/2 (beta = -1/2, no spread); the claims and
    Table 1's BN row carry this one exponent (half ``bootstrap_slope``, replicates halved)."""
    rows = [(4, d, r, 3.0 / d) for d in (16, 32, 64, 128) for r in range(5)]
    table = pd.DataFrame(rows, columns=["batch_size", "width", "run", "plateau_upper"])
    beta = og.radius_exponent(table, 4)
    assert beta.value == pytest.approx(-0.5, abs=1e-12) and beta.se == pytest.approx(0, abs=1e-12)
    rng = np.random.default_rng(1)
    noisy = table.assign(plateau_upper=table["plateau_upper"] * rng.lognormal(0, 0.2, len(table)))
    beta = og.radius_exponent(noisy, 4)
    slope = stats.bootstrap_slope(noisy, "width", "plateau_upper", as_measurement=True)
    assert beta.value == slope.value / 2 and beta.replicates == tuple(
        r / 2 for r in slope.replicates
    )
    row = og.table1(noisy, 4).iloc[-1]
    assert (row["exponent"], row["exponent_se"]) == (beta.value, beta.se)
    (claim,) = ogb.w2_width_claims(noisy, -0.25)
    assert claim.measured == beta.value


def test_radius_exponent_claims_fail_for_a_slow_radius():
    """W2^2 ~ d^-0.3 (radius d^-0.15) violates the O(d^-1/4) of Table 1."""
    rng = np.random.default_rng(0)
    rows = [
        (4, d, r, d**-0.3 * (1 + 0.01 * rng.standard_normal()))
        for d in (64, 128, 256, 512)
        for r in range(10)
    ]
    table = pd.DataFrame(rows, columns=["batch_size", "width", "run", "plateau_upper"])
    (claim,) = ogb.w2_width_claims(table, -0.25)
    assert claim.measured == pytest.approx(-0.15, abs=0.01) and claim.verdict == "fails"
    assert claim.interval == "bootstrap" and claim.printed == -0.25
    (row_claim,) = ogb.table1_claims(og.table1(table, 4), -0.25)
    assert row_claim.verdict == "fails"
    fast = table.assign(plateau_upper=table["width"] ** -1.0)
    assert ogb.table1_claims(og.table1(fast, 4), -0.25)[0].verdict == "holds"
    with pytest.raises(ValueError, match="not simulated"):
        og.table1(table, 8)


def test_config_consistency_names_the_gaussian_chain_keys():
    import copy
    from pathlib import Path

    import yaml

    from sigprop.base.config import ConfigError
    from sigprop.papers.orthogonality.config_checks import check_config

    root = Path(__file__).resolve().parents[1]
    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    check_config(config)
    for key, value, message in [
        ("table1", {"batch_size": 3}, "table1.batch_size"),
        ("thm1", {"widths": [96]}, "thm1.widths"),
        ("w2_width", {"window": [0, 10**6]}, "window"),
    ]:
        bad = copy.deepcopy(config)
        bad["orthogonality"][key].update(value)
        with pytest.raises(ConfigError, match=message):
            check_config(bad)


def test_informative_widths_solve_the_floor_against_the_largest_gap():
    """Thm. 1's floor 3 n / (alpha sqrt d) equals sqrt((n-1)/n) at d = (3 n / (alpha v))^2: with
    alpha = 0.5 at n = 4 that is (12 / (0.5 sqrt(3/4)))^2 = 768; the rigorous reading squares
    alpha; the most favourable width's alpha at the deepest layer counts."""
    level = math.sqrt(3 / 4)
    table = pd.DataFrame(
        {
            "batch_size": [4, 4, 4],
            "width": [64, 128, 128],
            "layer": [5, 5, 1],
            "alpha_hat": [0.25, 0.5, 0.9],  # the shallow layer's alpha is not the plateau's
            "vacuous_level": [level] * 3,
        }
    )
    assert ogb._informative_widths(table, "literal", lambda n: 3.0 * n) == "n=4: d > 7.7e+02"
    assert ogb._informative_widths(table, "rigorous", lambda n: 3.0 * n) == "n=4: d > 3.1e+03"
