"""The DAG end to end on a tiny config, in a temporary copy of the workflow."""

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]

TINY = {
    "rank_collapse": {
        "depth_rank": {"width": 16, "batch_size": 16, "depth": 400, "n_runs": 3},
        "bn_chain": {
            "widths": [8, 16, 32],
            "gammas": [1.0, float("inf")],
            "depth": 300,
            "burn_in": 100,
            "n_runs": 2,
        },
        "collinear_chain": {"width": 16, "depth": 60, "n_runs": 3},
    },
    "orthogonality": {
        "cosine_pair": {"width": 16, "depth": 20, "n_runs": 4},
        "gap_chain": {"widths": [8, 16, 32, 64], "depth": 120, "n_runs": 4},
        "fig2a": {"widths": [8, 32], "layers": 40, "plateau_window": [25, 40]},
        "fig2b": {"window": [40, 120], "paper_window": [1, 100]},
        "real_gap": {"width": 16, "channels": 4, "depth": 8, "n_batches": 3},
        "fig5": {"growth_window": [2, 8], "plateau_window": [4, 8]},
        "gaussian_chain": {"batch_sizes": [2, 4], "widths": [8, 16, 32], "depth": 20, "n_runs": 4},
        "thm1": {"widths": [8, 32], "decay_window": [1, 3], "plateau_window": [10, 20]},
        "w2_depth": {"widths": [8], "plateau_from": 10},
        "w2_width": {"window": [10, 20]},
        "conjecture_chain": {
            "widths": [8, 16, 32, 64],
            "reference_depth": 100,
            "depth": 40,
            "burn_in": 10,
            "n_runs": 3,
        },
        "fig6": {"fit_min_width": 16},
        "a1_grid": {
            "batch_sizes": [4, 8, 12, 16, 30],
            "widths": [16, 32, 64, 128, 256],
            "depth": 50,
            "n_runs": 3,
        },
        "lemma4": {"batch_sizes": [2, 4], "width": 8, "n_matrices": 10, "depth": 5, "n_runs": 2},
        "theorem5": {
            "cases": [[4, 64]],
            "n_states": 4,
            "n_degenerate": 1,
            "n_draws": 100,
            "lemma8_batch_sizes": [2, 4],
            "lemma8_spectra": 8,
        },
        "lemma6": {"cases": [[2, 4], [4, 8]], "n_states": 2, "n_degenerate": 1, "n_draws": 200},
        "lemma10": {"batch_sizes": [2, 6], "n_grid": 20, "n_search": 3},
        "stability": {"cases": [[2, 256]], "depth": 150, "n_runs": 4},
        "app_e": {
            "n_spectra": 200,
            "widths": [8],
            "n_matrices": 20,
            "mlp_width": 8,
            "mlp_depth": 6,
            "n_runs": 2,
        },
        "lemma_a8": {"widths": [8, 16], "depth": 200, "n_runs": 10},
        "whitening": {"widths": [8], "batch_sizes": [4, 16], "n_runs": 10},
        "init_mlp": {"width": 16, "depth": 6, "eval_batch_size": 48, "n_runs": 2},
    },
    "mean_field": {
        "gram_chain": {
            "widths": [16, 32],
            "batch_sizes": [4, 6],
            "depth": 8,
            "n_runs": 3,
            "fixed_point_samples": 5000,
        },
        "fig3_1": {"batch_size": 4},
        "fig3_2": {"batch_size": 6, "last_layer": 8, "plateau_from": 4},
        "fig3_3": {"batch_size": 6, "layer": 8},
        "fig3_4": {"layer": 8},
        "fixed_point": {
            "batch_sizes": [4],
            "activations": ["linear", "relu"],
            "sphere_samples": 5000,
            "map_samples": 1000,
            "map_iterations": 10,
            "map_average": 4,
            "map_replicas": 2,
            "chain_width": 500,
            "chain_depth": 12,
            "chain_burn_in": 6,
            "chain_runs": 2,
        },
        "lemma_b1_b2": {
            "batch_size": 5,
            "activations": ["tanh"],
            "widths": [20, 80],
            "draws": 200,
            "fixed_point_samples": 5000,
            "n_boot": 20,
        },
        "mixing": {
            "batch_size": 5,
            "widths": [64],
            "activations": ["relu"],
            "depth": 16,
            "n_runs": 8,
            "fixed_point_samples": 5000,
            "merged_from": 12,
            "n_boot": 50,
        },
    },
    "isometry": {
        "lemma4_2": {"n_cases": 100, "n_range": [2, 10]},
        "theorem4_3": {"n_cases": 100, "n_range": [2, 10]},
        "corollary4_4": {"n_cases": 100, "n_range": [2, 10]},
        "corollary4_5": {"n_cases": 100, "n_range": [2, 10]},
        "table5_2": {"series_order": 60, "mc_samples": 20000},
        "kernel_bounds": {"rho0": [-0.9, 0.5], "depth": 20, "n_grid": 101},
        "fig5_1": {"n_points": 21},
        "fig5_2": {"n_points": 21},
        "theorem5_15": {"activations": ["tanh", "relu"], "rho0": [-0.9, 0.5], "depth": 20},
        "prop5_1": {
            "activations": ["relu"],
            "norms": ["none", "post_ln"],
            "widths": [20, 40, 80],
            "depth": 4,
            "runs": 3,
        },
    },
    "gradients": {
        "depth_sweep": {"depths": [5, 20, 60], "n_runs": 2},
        "depth_claims": {"window": [20, 60]},
        "jacobian": {"widths": [3, 4], "n_cases": 5},
        "lemma_c11": {"classes": [3], "n_samples": 100},
        "chain_rule": {"widths": [4], "depths": [3, 6], "runs": 2},
        "lemma_c12": {"widths": [6], "depth": 120, "runs": 3},
        "lemma_c14_c15": {
            "widths": [3],
            "depth": 80,
            "runs": 4,
            "step_states": 2,
            "step_draws": 50,
        },
        "table_c1": {"batch_sizes": [16, 256], "batches": 3, "control_batches": 1},
        "gain_depth": {"depths": [5, 10, 20], "runs": 2},
        "constant_gain": {"gains": [0.5, 0.7, 0.85, 1.0], "depth": 30, "layers": [20], "runs": 2},
        "fig_c1": {"fit_min_gain": 0.5},
        "exponent_rate": {"exponents": [0.0, 0.4, 1.0], "depths": [15], "runs": 2},
        "fig_c2": {"flat_from": 1.0},
        "isometry_chain": {"widths": [8, 16], "depth": 30, "n_runs": 2},
        "fig6_1": {"fit_window": [5, 30]},
        "lemma6_2": {"n_cases": 50, "d_range": [2, 6]},
        "theorem6_3": {"widths": [4], "spreads": [0.01, 0.3], "draws": 300},
        "lemma_c8_c9": {"widths": [4], "n_spectra": 200, "spreads": [0.01, 1.0], "draws": 300},
    },
}


def snakemake(workdir, *args, check=True):
    return subprocess.run(
        [*SNAKEMAKE, "--cores", "2", *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=check,
        timeout=600,
    )


def copy_workflow(work: Path) -> Path:
    shutil.copy(ROOT / "Snakefile", work)
    for folder in ("workflow", "config", "envs"):
        shutil.copytree(ROOT / folder, work / folder)
    return work


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A copy of the workflow with a tiny config, run once for all tests of this module."""
    work = copy_workflow(tmp_path_factory.mktemp("dag"))
    (work / "tiny.yaml").write_text(yaml.safe_dump(TINY))
    run = snakemake(work, "all", "--configfile", "tiny.yaml", check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return work


QUICK_CLAIMS = [
    "orthogonality.fig1.bn_orthogonalizes",
    "orthogonality.fig1.vanilla_aligns",
    "orthogonality.fig2a.decay_d32",
    "orthogonality.fig2a.decay_d512",
    "orthogonality.fig2a.plateau_d32",
    "orthogonality.fig2a.plateau_d512",
    "orthogonality.fig2b.gap_slope",
    "orthogonality.fig2b.paper_protocol_slope",
    "orthogonality.fig5.convnet.vanilla_grows",
    "orthogonality.fig5.convnet.bn_decreases",
    "orthogonality.fig5.convnet.bn_flat",
    "orthogonality.fig5.convnet.flatness_power",
    "orthogonality.fig5.convnet.bn_below_vanilla",
    "orthogonality.fig5.mlp.vanilla_grows",
    "orthogonality.fig5.mlp.bn_decreases",
    "orthogonality.fig5.mlp.bn_flat",
    "orthogonality.fig5.mlp.flatness_power",
    "orthogonality.fig5.mlp.bn_below_vanilla",
    "orthogonality.fig5.mlp.bn_floor",
    "orthogonality.fig6.curves_differ",
    "orthogonality.fig6.k_offdiag_linear",
    "orthogonality.fig6.k_offdiag_relu",
    "orthogonality.fig6.k_offdiag_sigmoid",
    "orthogonality.fig6.k_offdiag_sin",
    "orthogonality.fig6.k_offdiag_tanh",
    "orthogonality.fig6.k_offdiag_tanh_plus_one",
    "orthogonality.fig6.slope_linear",
    "orthogonality.fig6.slope_relu",
    "orthogonality.fig6.slope_sigmoid",
    "orthogonality.fig6.slope_sin",
    "orthogonality.fig6.slope_tanh",
    "orthogonality.fig6.slope_tanh_plus_one",
    "orthogonality.fig2_3.exponent_caption",
    "orthogonality.fig2_3.exponent_printed",
    "orthogonality.fig2_3.holds_above_n2",
    "orthogonality.fig2_3.monotone_in_d",
    "orthogonality.fig2_3.printed_curve_separates",
    "orthogonality.drift.noise_floor",
    "orthogonality.drift.sharpened_bound",
    "orthogonality.lemma10.convex",
    "orthogonality.lemma10.equal_others_minimize",
    "orthogonality.lemma10.g_at_zero",
    "orthogonality.lemma10.linear_lower_bound",
    "orthogonality.lemma10.slope_at_zero",
    "orthogonality.lemma4.equality_case",
    "orthogonality.lemma4.paper_bound",
    "orthogonality.lemma4.tight_bound",
    "orthogonality.lemma6.below_one_over_d",
    "orthogonality.lemma6.exact_variance",
    "orthogonality.lemma6.sawa_sum",
    "orthogonality.lemma6.sawa_vs_mc",
    "orthogonality.stability.bound_gaussian_n2_d1024",
    "orthogonality.stability.bound_gaussian_n4_d256",
    "orthogonality.stability.bound_near_rank_one_n2_d1024",
    "orthogonality.stability.bound_near_rank_one_n4_d256",
    "orthogonality.stability.control_no_floor",
    "orthogonality.theorem5.control_lemma8_c2",
    "orthogonality.theorem5.control_no_slack",
    "orthogonality.theorem5.drift",
    "orthogonality.theorem5.lemma7",
    "orthogonality.theorem5.lemma8",
    "orthogonality.theorem5.lemma8_sharp",
    "orthogonality.theorem5.weyl_step",
    "orthogonality.app_e.inequality",
    "orthogonality.app_e.equality_flat",
    "orthogonality.app_e.strict",
    "orthogonality.app_e.paper_decreases",
    "orthogonality.app_e.paper_formula",
    "orthogonality.app_e.code_exact",
    "orthogonality.app_e.sliced_control",
    "orthogonality.app_e.mlp_paper",
    "orthogonality.app_e.mlp_code",
    "orthogonality.lemma_a8.slope_d8",
    "orthogonality.lemma_a8.slope_d16",
    "orthogonality.lemma_a8.slope_d32",
    "orthogonality.lemma_a8.printed_rate_d8",
    "orthogonality.lemma_a8.printed_rate_d16",
    "orthogonality.lemma_a8.printed_rate_d32",
    "orthogonality.whitening.exact",
    "orthogonality.whitening.rank_floor",
    "orthogonality.whitening.bn_not_exact",
    "orthogonality.init_gap.iterative_below_xavier",
    "orthogonality.init_gap.iterative_every_run",
    "orthogonality.init_gap.iterative_not_growing",
    "orthogonality.init_gap.xavier_aligns",
    "orthogonality.init_gap.orthogonal_aligns",
    "rank_collapse.example9.frobenius_paper_bound_gaussian_g0p05",
    "rank_collapse.example9.frobenius_paper_bound_gaussian_g0p1",
    "rank_collapse.example9.frobenius_paper_bound_gaussian_g0p2",
    "rank_collapse.example9.frobenius_paper_bound_uniform_g0p05",
    "rank_collapse.example9.frobenius_paper_bound_uniform_g0p1",
    "rank_collapse.example9.frobenius_paper_bound_uniform_g0p2",
    "rank_collapse.example9.frobenius_shrinks_gaussian_g0p05",
    "rank_collapse.example9.frobenius_shrinks_gaussian_g0p1",
    "rank_collapse.example9.frobenius_shrinks_gaussian_g0p2",
    "rank_collapse.example9.frobenius_shrinks_uniform_g0p05",
    "rank_collapse.example9.frobenius_shrinks_uniform_g0p1",
    "rank_collapse.example9.frobenius_shrinks_uniform_g0p2",
    "rank_collapse.example9.leading_shrinks_gaussian_g0p05",
    "rank_collapse.example9.leading_shrinks_gaussian_g0p1",
    "rank_collapse.example9.leading_shrinks_gaussian_g0p2",
    "rank_collapse.example9.leading_shrinks_uniform_g0p05",
    "rank_collapse.example9.leading_shrinks_uniform_g0p1",
    "rank_collapse.example9.leading_shrinks_uniform_g0p2",
    "rank_collapse.example9.printed_eq78_differs_e0p05",
    "rank_collapse.example9.printed_eq78_differs_e0p1",
    "rank_collapse.example9.printed_eq78_differs_e0p2",
    "rank_collapse.example9.small_grow_gaussian_g0p05",
    "rank_collapse.example9.small_grow_gaussian_g0p1",
    "rank_collapse.example9.small_grow_gaussian_g0p2",
    "rank_collapse.example9.small_grow_uniform_g0p05",
    "rank_collapse.example9.small_grow_uniform_g0p1",
    "rank_collapse.example9.small_grow_uniform_g0p2",
    "rank_collapse.examples11_12.alpha_below_0p9_b0p5",
    "rank_collapse.examples11_12.alpha_below_0p9_b0p75",
    "rank_collapse.examples11_12.alpha_slope_b0p5",
    "rank_collapse.examples11_12.alpha_slope_b0p75",
    "rank_collapse.examples11_12.equal_eigenvalues_ratio_one",
    "rank_collapse.examples11_12.ratio_at_most_one",
    "rank_collapse.fig2.bn_linear_above_sqrt_d",
    "rank_collapse.fig2.bn_relu_above_sqrt_d",
    "rank_collapse.fig2.vanilla_linear_collapse",
    "rank_collapse.fig2.vanilla_relu_collapse",
    "rank_collapse.fig3a.above_sqrt_d_gamma_0.1",
    "rank_collapse.fig3a.above_sqrt_d_gamma_1",
    "rank_collapse.fig3a.above_sqrt_d_gamma_inf",
    "rank_collapse.fig3a.slope_gamma_0.1",
    "rank_collapse.fig3a.slope_gamma_1",
    "rank_collapse.fig3a.slope_gamma_inf",
    "rank_collapse.fig3a.theorem14_gamma_0.1",
    "rank_collapse.fig3a.theorem14_gamma_1",
    "rank_collapse.fig3a.theorem14_gamma_inf",
    "rank_collapse.fig3b.largest_shrinks_gamma_0.1",
    "rank_collapse.fig3b.largest_shrinks_gamma_1",
    "rank_collapse.fig3b.small_grow_gamma_0.1",
    "rank_collapse.fig3b.small_grow_gamma_1",
    "rank_collapse.fig8.alpha_below_one_gamma_0.1",
    "rank_collapse.fig8.alpha_below_one_gamma_1",
    "rank_collapse.fig8.alpha_below_one_gamma_inf",
    "rank_collapse.fig8.alpha_decreasing_gamma_0.1",
    "rank_collapse.fig8.alpha_decreasing_gamma_1",
    "rank_collapse.fig8.alpha_decreasing_gamma_inf",
    "rank_collapse.fig8.alpha_wide_gamma_0.1",
    "rank_collapse.fig8.alpha_wide_gamma_1",
    "rank_collapse.fig8.alpha_wide_gamma_inf",
    "rank_collapse.fig9.lemma13_gamma_0.1",
    "rank_collapse.fig9.lemma13_gamma_1",
    "rank_collapse.fig9.lemma13_gamma_inf",
    "rank_collapse.fig9.slope_gamma_0.1",
    "rank_collapse.fig9.slope_gamma_1",
    "rank_collapse.fig9.slope_gamma_inf",
    "rank_collapse.lemma1.control_violations",
    "rank_collapse.lemma1.rank_ge_r",
    "rank_collapse.lemma1.soft_rank_ge_bound",
    "rank_collapse.lemma3.rank_one_gaussian_g0p1",
    "rank_collapse.lemma3.rank_one_gaussian_g0p5",
    "rank_collapse.lemma3.rank_one_gaussian_g0p9",
    "rank_collapse.lemma3.rank_one_uniform_g0p1",
    "rank_collapse.lemma3.rank_one_uniform_g0p5",
    "rank_collapse.lemma3.rank_one_uniform_g0p9",
    "rank_collapse.lemma3.rate_gaussian_g0p1",
    "rank_collapse.lemma3.rate_gaussian_g0p5",
    "rank_collapse.lemma3.rate_gaussian_g0p9",
    "rank_collapse.lemma3.rate_uniform_g0p1",
    "rank_collapse.lemma3.rate_uniform_g0p5",
    "rank_collapse.lemma3.rate_uniform_g0p9",
    "rank_collapse.lemma4.centering_identity",
    "rank_collapse.lemma4.centering_r_g0p1",
    "rank_collapse.lemma4.centering_r_g1",
    "rank_collapse.lemma4.centering_r_ginf",
    "rank_collapse.lemma4.centering_rank_half_g0p1",
    "rank_collapse.lemma4.centering_rank_half_g1",
    "rank_collapse.lemma4.centering_rank_half_ginf",
    "rank_collapse.lemma4.offdiag_cross_run_g0p1",
    "rank_collapse.lemma4.offdiag_cross_run_g1",
    "rank_collapse.lemma4.offdiag_cross_run_ginf",
    "rank_collapse.lemma4.offdiag_mean_g0p1",
    "rank_collapse.lemma4.offdiag_mean_g1",
    "rank_collapse.lemma4.offdiag_mean_ginf",
    "rank_collapse.lemma4.row_mean_g0p1",
    "rank_collapse.lemma4.row_mean_g1",
    "rank_collapse.lemma4.row_mean_ginf",
    "rank_collapse.lemma5_6.control_changes",
    "rank_collapse.lemma5_6.delta_m_bound",
    "rank_collapse.lemma5_6.delta_m_printed_bound_erratum",
    "rank_collapse.lemma5_6.r_above_one",
    "rank_collapse.lemma5_6.r_above_one_beyond",
    "rank_collapse.lemma5_6.rank_at_least_two",
    "rank_collapse.lemma5_6.rank_at_least_two_beyond",
    "rank_collapse.lemma5_6.rank_one_absorbing",
    "rank_collapse.lemma5_6.unit_entries",
    "rank_collapse.lemma7.delta_f_d4_gaussian",
    "rank_collapse.lemma7.delta_f_d4_uniform",
    "rank_collapse.lemma7.delta_f_d8_gaussian",
    "rank_collapse.lemma7.delta_f_d8_uniform",
    "rank_collapse.lemma7.remainder_order_d4_gaussian",
    "rank_collapse.lemma7.remainder_order_d4_uniform",
    "rank_collapse.lemma7.remainder_order_d8_gaussian",
    "rank_collapse.lemma7.remainder_order_d8_uniform",
    "rank_collapse.prop8.frobenius_drift",
    "rank_collapse.prop8.frobenius_m_squared",
    "rank_collapse.prop8.printed_eq44_differs",
    "rank_collapse.prop8.trace_diag_m2_squared",
    "rank_collapse.prop8.trace_m_cubed",
    "orthogonality.thm1.bound_literal",
    "orthogonality.thm1.bound_rigorous",
    "orthogonality.thm1.control_transient_only",
    "orthogonality.thm1.decay_n4_d64",
    "orthogonality.thm1.plateau_n4_d64",
    "orthogonality.thm1.decay_n4_d256",
    "orthogonality.thm1.plateau_n4_d256",
    "orthogonality.thm1.decay_n4_d1024",
    "orthogonality.thm1.plateau_n4_d1024",
    "orthogonality.thm1.decay_n8_d64",
    "orthogonality.thm1.plateau_n8_d64",
    "orthogonality.thm1.decay_n8_d256",
    "orthogonality.thm1.plateau_n8_d256",
    "orthogonality.thm1.decay_n8_d1024",
    "orthogonality.thm1.plateau_n8_d1024",
    "orthogonality.thm1.decay_n16_d64",
    "orthogonality.thm1.plateau_n16_d64",
    "orthogonality.thm1.decay_n16_d256",
    "orthogonality.thm1.plateau_n16_d256",
    "orthogonality.thm1.decay_n16_d1024",
    "orthogonality.thm1.plateau_n16_d1024",
    "orthogonality.thm1.plateau_width_exponent",
    "orthogonality.thm1.plateau_n_exponent",
    "orthogonality.thm1.plateau_n_below_bound",
    "orthogonality.w2_depth.gelbrich_below_coupling",
    "orthogonality.w2_depth.coupling_below_n_v2",
    "orthogonality.w2_depth.lemma2",
    "orthogonality.w2_depth.cor3_literal",
    "orthogonality.w2_depth.cor3_rigorous",
    "orthogonality.w2_depth.control_transient_only",
    "orthogonality.w2_width.radius_exponent_n4",
    "orthogonality.w2_width.radius_exponent_n8",
    "orthogonality.w2_width.radius_exponent_n16",
    "orthogonality.table1.bn_radius_exponent",
    "mean_field.fig3_1.no_bn_grows",
    "mean_field.fig3_1.bn_contracts",
    "mean_field.fig3_2.decays",
    "mean_field.fig3_2.plateau_flat",
    "mean_field.fig3_3.slope_bn_linear",
    "mean_field.fig3_3.slope_bn_tanh",
    "mean_field.fig3_3.slope_bn_relu",
    "mean_field.fig3_3.slope_bn_sin",
    "mean_field.fig3_4.slope_bn_linear",
    "mean_field.fig3_4.slope_bn_tanh",
    "mean_field.fig3_4.slope_bn_relu",
    "mean_field.fig3_4.slope_bn_sin",
    "mean_field.fixed_point.map_iteration",
    "mean_field.fixed_point.wide_chain",
    "mean_field.fixed_point.diagonal_quadrature",
    "mean_field.fixed_point.start_is_far",
    "mean_field.lemma_b1_b2.row_norm_bound",
    "mean_field.lemma_b1_b2.b1_tail",
    "mean_field.lemma_b1_b2.b1_width",
    "mean_field.lemma_b1_b2.b2_tail",
    "mean_field.lemma_b1_b2.b2_width",
    "mean_field.lemma_b1_b2.lemma3_3_width",
    "mean_field.lemma_b1_b2.tail_control",
    "mean_field.lemma_b1_b2.lemma3_3_control",
    "mean_field.mixing.starts_differ",
    "mean_field.mixing.decay",
    "mean_field.mixing.merged",
    "isometry.lemma4_2.scale_invariance",
    "isometry.lemma4_2.gm_over_am",
    "isometry.lemma4_2.unit_range",
    "isometry.lemma4_2.one_at_identity",
    "isometry.lemma4_2.below_one_off_identity",
    "isometry.lemma4_2.zero_iff_singular",
    "isometry.lemma4_2.positive_if_nonsingular",
    "isometry.theorem4_3.bound",
    "isometry.theorem4_3.exact_identity",
    "isometry.theorem4_3.printed_equality_4_7",
    "isometry.corollary4_4.scaling_bound",
    "isometry.corollary4_4.scaling_exact_identity",
    "isometry.corollary4_4.centered_never_decreases",
    "isometry.corollary4_4.centered_bound",
    "isometry.corollary4_5.scaling_bound",
    "isometry.corollary4_5.scaling_exact_identity",
    "isometry.corollary4_5.centered_never_decreases",
    "isometry.corollary4_5.centered_bound",
    "isometry.fig4_1.parallelogram_closed_form",
    "isometry.fig4_1.printed_ratio_is_half",
    "isometry.fig4_1.parallelepiped_closed_form",
    "isometry.fig4_1.orthogonal_equal_norms_maximal",
    "isometry.table5_1.printed_polynomials",
    "isometry.table5_1.orthonormality",
    "isometry.table5_2.stein_identities",
    "isometry.table5_2.series_vs_quadrature",
    "isometry.table5_2.closed_forms",
    "isometry.table5_2.monte_carlo",
    "isometry.table5_2.relu_case_exact",
    "isometry.table5_2.relu_case2_truncated",
    "isometry.table5_2.relu_case2_thesis",
    "isometry.kernel_bounds.thm5_8",
    "isometry.kernel_bounds.cor5_10",
    "isometry.kernel_bounds.printed_eq5_7",
    "isometry.kernel_bounds.case2",
    "isometry.kernel_bounds.case3",
    "isometry.kernel_bounds.case4",
    "isometry.kernel_bounds.unique_fixed_point",
    "isometry.kernel_bounds.case4_attracting",
    "isometry.kernel_bounds.rho_star_above_kappa0",
    "isometry.kernel_bounds.control_identity",
    "isometry.kernel_bounds.control_he3_pm1",
    "isometry.fig5_1.case1_bound",
    "isometry.fig5_1.case1_converges",
    "isometry.fig5_1.case2_bound",
    "isometry.fig5_1.case2_converges",
    "isometry.fig5_1.case3_bound",
    "isometry.fig5_1.case3_converges",
    "isometry.fig5_1.case4_bound",
    "isometry.fig5_1.case4_converges",
    "isometry.fig5_2.tanh_bound",
    "isometry.fig5_2.tanh_converges",
    "isometry.fig5_2.tanh_printed_eq5_7",
    "isometry.fig5_2.relu_bound",
    "isometry.fig5_2.relu_converges",
    "isometry.fig5_2.exp_bound",
    "isometry.fig5_2.exp_converges",
    "isometry.fig5_2.gelu_bound",
    "isometry.fig5_2.gelu_converges",
    "isometry.theorem5_15.printed_eq5_14",
    "isometry.theorem5_15.corrected_rate",
    "isometry.theorem5_15.alpha_below_one",
    "isometry.theorem5_15.control_uncentred",
    "isometry.prop5_1.slope_gaussian",
    "isometry.prop5_1.slope_uniform",
    "isometry.prop5_1.laws_agree",
    "isometry.prop5_1.control_wrong_kernel",
    "gradients.fig6_2.degenerate_explodes",
    "gradients.fig6_2.nondegenerate_flat",
    "gradients.fig6_2.difference",
    "gradients.fig6_3.orthogonal_flat",
    "gradients.fig6_3.gaussian_explodes",
    "gradients.fig6_3.gaussian_above_orthogonal",
    "gradients.fig_c9.sin_explodes",
    "gradients.fig_c9.tanh_explodes",
    "gradients.fig_c9.identity_flat",
    "gradients.fig_c9.sin_gap_large",
    "gradients.fig_c9.tanh_gap_large",
    "gradients.fig_c9.identity_gap_decays",
    "gradients.fig_c10.with_flat",
    "gradients.fig_c10.without_flat",
    "gradients.fig_c10.slopes_agree",
    "gradients.chain_rule.profile_consistency",
    "gradients.chain_rule.bound_c80",
    "gradients.chain_rule.bound_c82",
    "gradients.chain_rule.readout_control",
    "gradients.jacobian.closed_form_c18",
    "gradients.jacobian.block_diagonal_c136",
    "gradients.jacobian.spectrum_c19",
    "gradients.jacobian.printed_multiplicity_c19",
    "gradients.jacobian.op_norm_c138",
    "gradients.jacobian.lemma_c16",
    "gradients.jacobian.lemma_c20",
    "gradients.jacobian.lemma_c17_general",
    "gradients.jacobian.lemma_c17_small_psi",
    "gradients.jacobian.lemma_c17_sharpness",
    "gradients.jacobian.lemma_c13",
    "gradients.jacobian.lemma_c13_scale_control",
    "gradients.jacobian.lemma_c21",
    "gradients.jacobian.lemma_c21_gaussian_control",
    "gradients.lemma_c11.closed_forms",
    "gradients.lemma_c11.ce_bound",
    "gradients.lemma_c11.ce_sharp",
    "gradients.lemma_c11.mse_softmax_bound",
    "gradients.lemma_c11.mse_raw_control",
    "gradients.lemma_c12.c13_along_chain_d8",
    "gradients.lemma_c12.orthogonal_converges_d8",
    "gradients.lemma_c12.gaussian_linear_d8",
    "gradients.lemma_c12.c13_along_chain_d16",
    "gradients.lemma_c12.orthogonal_converges_d16",
    "gradients.lemma_c12.gaussian_linear_d16",
    "gradients.lemma_c14_c15.hits_d4",
    "gradients.lemma_c14_c15.c14_d4",
    "gradients.lemma_c14_c15.gaussian_no_hit_d4",
    "gradients.lemma_c14_c15.c15_d4",
    "gradients.lemma_c14_c15.c108_d4",
    "gradients.lemma_c14_c15.c108_gaussian_control_d4",
    "gradients.lemma_c14_c15.hits_d8",
    "gradients.lemma_c14_c15.c14_d8",
    "gradients.lemma_c14_c15.gaussian_no_hit_d8",
    "gradients.lemma_c14_c15.c15_d8",
    "gradients.lemma_c14_c15.c108_d8",
    "gradients.lemma_c14_c15.c108_gaussian_control_d8",
    "gradients.table_c1.full_rank",
    "gradients.table_c1.duplicate_control",
    "gradients.table_c1.float32_deficit",
    "gradients.table_c1.deficit_is_tolerance",
    "gradients.table_c1.printed_rank_fashion_mnist",
    "gradients.table_c1.printed_cosine_fashion_mnist",
    "gradients.fig6_5.explodes_sin",
    "gradients.fig6_5.explodes_tanh",
    "gradients.fig6_5.identity_flat",
    "gradients.fig6_5.bounded_identity",
    "gradients.fig6_5.bounded_sin",
    "gradients.fig6_5.bounded_tanh",
    "gradients.fig_c1.increasing_sin",
    "gradients.fig_c1.power_law_sin",
    "gradients.fig_c1.gain_exponent_sin",
    "gradients.fig_c1.increasing_tanh",
    "gradients.fig_c1.power_law_tanh",
    "gradients.fig_c1.gain_exponent_tanh",
    "gradients.fig_c2.decreasing_sin",
    "gradients.fig_c2.explodes_without_gain_sin",
    "gradients.fig_c2.no_explosion_sin",
    "gradients.fig_c2.used_exponent_sin",
    "gradients.fig_c2.decreasing_tanh",
    "gradients.fig_c2.explodes_without_gain_tanh",
    "gradients.fig_c2.no_explosion_tanh",
    "gradients.fig_c2.used_exponent_tanh",
    "gradients.fig6_1.monotone",
    "gradients.fig6_1.decay_d16",
    "gradients.fig6_1.decay_d32",
    "gradients.fig6_1.decay_d50",
    "gradients.fig6_1.decay_d100",
    "gradients.fig6_1.slower_for_wider",
    "gradients.fig6_1.proof_bound",
    "gradients.fig6_1.control_fast_bound",
    "gradients.fig6_1.authors_curve_d16",
    "gradients.fig6_1.authors_curve_d32",
    "gradients.fig6_1.authors_curve_d50",
    "gradients.fig6_1.authors_curve_d100",
    "gradients.fig6_1.k_exponent",
    "gradients.lemma6_2.lemma_c1_identity",
    "gradients.lemma6_2.lemma_c1_bound",
    "gradients.lemma6_2.rotation_invariance",
    "gradients.lemma6_2.rotation_bound",
    "gradients.lemma6_2.corollary_c3",
    "gradients.theorem6_3.isometry_gain",
    "gradients.theorem6_3.control_tightened",
    "gradients.theorem6_3.equality_orthogonal",
    "gradients.theorem6_3.corollary6_4",
    "gradients.theorem6_3.eq_c48",
    "gradients.theorem6_3.weingarten",
    "gradients.theorem6_3.control_gaussian_moments",
    "gradients.theorem6_3.printed_eigenvalues_unit_interval",
    "gradients.lemma_c8_c9.lemma_c8_printed",
    "gradients.lemma_c8_c9.eq_c56",
    "gradients.lemma_c8_c9.control_c56_threshold",
    "gradients.lemma_c8_c9.eq_c53",
    "gradients.lemma_c8_c9.control_c53_hypothesis",
    "gradients.lemma_c8_c9.eq_c60",
    "gradients.lemma_c8_c9.regime_small",
    "gradients.lemma_c8_c9.regime_large",
]
"""Every claim of the quick scale (config/config.yaml)."""

QUICK_FAILURES: set[str] = {
    "orthogonality.fig2_3.printed_curve_separates",  # the printed (n - 28)^1.8 lies below the grid
    "orthogonality.fig5.convnet.bn_flat",  # the BN ConvNet's V rises again after layer ~15
    "orthogonality.fig6.slope_sigmoid",  # the logistic's L-bar still curves at d <= 256
    # Thesis Eq. (A.13) erratum (factor 2), expected to fail
    "orthogonality.lemma_a8.printed_rate_d8",
    "orthogonality.lemma_a8.printed_rate_d16",
    "orthogonality.lemma_a8.printed_rate_d32",
    # the code variant of iterative orthogonalization collapses on new samples in 1 of 5 runs
    "orthogonality.init_gap.iterative_every_run",
    # ||G_20 - G_*||_F grows faster than linearly in n at d = 400, n = 5..20 (n / sqrt(d) ~ 1)
    "mean_field.fig3_4.slope_bn_linear",
    "mean_field.fig3_4.slope_bn_relu",
    # Thesis ch. 4: printed equality (4.7) (erratum) and the corollaries with mean centering
    "isometry.theorem4_3.printed_equality_4_7",
    "isometry.corollary4_4.centered_never_decreases",
    "isometry.corollary4_4.centered_bound",
    "isometry.corollary4_5.centered_never_decreases",
    "isometry.corollary4_5.centered_bound",
    # Thesis errata, expected to fail: ReLU is case 3, not 2; printed Eq. (5.7) rate
    "isometry.table5_2.relu_case2_thesis",
    "isometry.kernel_bounds.printed_eq5_7",
    "isometry.fig5_2.tanh_printed_eq5_7",
    # Thesis Thm. 5.15 printed rate (5.14) (erratum; 1 / (2 - kappa_psi'(0)) holds)
    "isometry.theorem5_15.printed_eq5_14",
    # Thesis Cor. C.19 printed multiplicity d^2 - 1 (erratum: n - 1 per row block)
    "gradients.jacobian.printed_multiplicity_c19",
    # Fig. C.1 heuristic: tanh c2 ~ 2.1 needs gamma >= 1 / c2 ~ 0.47 (0.4 gives k ~ 0.85)
    "gradients.fig_c1.gain_exponent_tanh",
    # Fig. C.2 at Fig. 6.5's gamma = 0.4: early-layer R still exceeds identity's by ~0.03/layer
    "gradients.fig_c2.used_exponent_sin",
    "gradients.fig_c2.used_exponent_tanh",
    # Thesis Fig. 6.1: the authors' dashed curves (k = 0.015 d^2 (1 + d psi_0)) lie below the data
    # at the quick-only widths d = 16, 32 (data k ~ d); k ~ d^2 of Thm. 6.1 is refuted (beta ~ 1)
    "gradients.fig6_1.authors_curve_d16",
    "gradients.fig6_1.authors_curve_d32",
    "gradients.fig6_1.k_exponent",
    # Thesis errata, expected to fail: "eigenvalues in (0, 1]" after Thm. 6.3; Lemma C.8 as printed
    "gradients.theorem6_3.printed_eigenvalues_unit_interval",
    "gradients.lemma_c8_c9.lemma_c8_printed",
}
"""Claims that fail at quick scale, as reported in the closing notes (config/README.md)."""


@pytest.mark.workflow
def test_quick_scale_reproduces_its_verdicts(tmp_path):
    """The default config end to end: every claim and its verdict, exactly as recorded."""
    work = copy_workflow(tmp_path)
    run = snakemake(work, "all", check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    ledger = pd.read_csv(work / "results" / "claims.csv")
    assert sorted(ledger["id"]) == sorted(QUICK_CLAIMS)
    assert set(ledger.loc[~ledger["passed"], "id"]) == QUICK_FAILURES
    assert set(ledger["scale"]) == {"quick"}


@pytest.mark.workflow
def test_report_bundles_figures_and_claims(workdir):
    snakemake(workdir, "--configfile", "tiny.yaml", "--report", "report.zip")
    assert (workdir / "report.zip").stat().st_size > 10_000
    caption = (workdir / "results" / "captions" / "orthogonality" / "fig2b.rst").read_text()
    assert "DJB21 Fig. 2b" in caption and "``orthogonality.fig2b.gap_slope``" in caption


@pytest.mark.workflow
def test_all_produces_figures_and_the_claims_ledger(workdir):
    for family, figs in {
        "rank_collapse": ["fig2"],
        "orthogonality": [
            "fig1",
            "fig2a",
            "fig2b",
            "fig2_3",
            "fig5",
            "fig6",
            "thm1",
            "w2_depth",
            "w2_width",
            "drift",
            "init_gap",
        ],
    }.items():
        for fig in figs:
            for ext in ("pdf", "png"):
                assert (workdir / "figures" / family / f"{fig}.{ext}").stat().st_size > 0
            assert (workdir / "results" / family / f"{fig}.csv").exists()
    ledger = pd.read_csv(workdir / "results" / "claims.csv")
    assert {
        "orthogonality.fig2b.gap_slope",
        "orthogonality.fig2b.paper_protocol_slope",
        "orthogonality.fig2_3.monotone_in_d",
        "rank_collapse.fig2.bn_relu_above_sqrt_d",
        "orthogonality.fig1.bn_orthogonalizes",
    } <= set(ledger["id"])
    assert ledger["measured"].notna().all()
    assert set(ledger["scale"]) == {"quick"}


@pytest.mark.workflow
def test_claims_of_the_tiny_run_hold(workdir):
    """The seeds' claims that tiny sizes can show hold at the tiny scale too."""
    ledger = pd.read_csv(workdir / "results" / "claims.csv").set_index("id")
    for claim in (
        "rank_collapse.fig2.bn_linear_above_sqrt_d",
        "rank_collapse.fig2.bn_relu_above_sqrt_d",
        "rank_collapse.fig2.vanilla_relu_collapse",
        "orthogonality.fig1.bn_orthogonalizes",
        "orthogonality.fig2a.decay_d8",
        "orthogonality.fig2a.decay_d32",
    ):
        assert ledger.loc[claim, "passed"], ledger.loc[claim].to_dict()


@pytest.mark.workflow
def test_simulations_carry_provenance(workdir):
    meta = yaml.safe_load((workdir / "results" / "orthogonality" / "gap_chain.json").read_text())
    assert meta["config"]["widths"] == [8, 16, 32, 64]
    assert meta["seeds"]["experiment_ids"][0] == "orthogonality.gap_chain.d8"
    assert meta["device"] == "cpu" and meta["versions"]["torch"]


@pytest.mark.workflow
def test_second_run_has_nothing_to_do(workdir):
    out = snakemake(workdir, "all", "--configfile", "tiny.yaml", "-n")
    assert "Nothing to be done" in out.stdout + out.stderr


@pytest.mark.workflow
def test_one_figure_reruns_without_its_simulation(workdir):
    # the target goes before --forcerun, which would swallow it (spec snakemake_ecosystem §1)
    out = snakemake(
        workdir,
        "figures/orthogonality/fig2b.pdf",
        "--configfile",
        "tiny.yaml",
        "-n",
        "--forcerun",
        "orthogonality_fig2b",
    )
    text = out.stdout + out.stderr
    assert "orthogonality_fig2b" in text
    assert "simulate" not in text


@pytest.mark.workflow
def test_changing_a_tolerance_reruns_only_the_check(workdir):
    (workdir / "tol.yaml").write_text(
        yaml.safe_dump(
            {
                **TINY,
                "orthogonality": {
                    **TINY["orthogonality"],
                    "fig2b": {**TINY["orthogonality"]["fig2b"], "slope_z": 4.0},
                },
            }
        )
    )
    out = snakemake(workdir, "all", "--configfile", "tol.yaml", "-n")
    jobs = out.stdout.split("Job stats:")[1].split("Reasons:")[0]
    assert "orthogonality_check_fig2b" in jobs
    assert "simulate" not in jobs and "orthogonality_fig2b " not in jobs


@pytest.mark.workflow
def test_bad_config_fails_before_any_job(workdir, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"rank_collapse": {"depth_rank": {"depth": -3}}}))
    out = snakemake(workdir, "all", "--configfile", str(bad), "--forceall", check=False)
    assert out.returncode != 0
    assert "['rank_collapse']['depth_rank']['depth']" in out.stderr
    assert "-3 is less than the minimum of 1" in out.stderr
    assert "localrule" not in out.stdout + out.stderr


def test_lint_is_clean():
    out = subprocess.run([*SNAKEMAKE, "--lint"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
