"""Tests of the chain engine: batched vs naive loop, fast path vs explicit, validation."""

import math

import pytest
import torch

from sigprop.engine import chains, inputs, metrics, ops, seeding


def naive_bn_chain(h0, experiment_id, run, depth, gamma=math.inf, variance=1.0):
    """Dan+20 Eq. (1) for one run, written plainly: one layer at a time, no batching.

    Draws W_l by the stream contract of ``chains``: float32 Gaussian blocks of
    ``block_layers(d*d)`` layers from the run's "weights" generator, cast to the chain's dtype.
    """
    d = h0.shape[0]
    g = seeding.generator(experiment_id, run, "weights")
    block = chains.block_layers(d * d)
    draws = torch.cat(
        [torch.randn(block, d, d, generator=g) for _ in range(-(-depth // block))]
    ).to(h0.dtype) * math.sqrt(variance)
    h, gaps = h0.clone(), []
    for layer in range(depth):
        w = draws[layer]
        pre = w @ h if math.isinf(gamma) else h + gamma * (w @ h)
        h = pre / torch.sqrt((pre**2).mean(dim=1, keepdim=True))  # Eq. (2), row RMS
        gaps.append(metrics.orthogonality_gap(h))
    return torch.stack(gaps)


@pytest.mark.parametrize("gamma", [math.inf, 0.5])
def test_batched_engine_equals_naive_loop(gamma):
    """Same seeds, same numbers: the batched engine reproduces the per-run loop to rounding."""
    d, n, depth, runs = 12, 5, 150, [0, 1, 2, 3]
    h0 = inputs.gaussian_inputs("test.naive", runs, d, n)
    product = chains.ExplicitProduct("test.naive", runs, d, "gaussian", 1.0)
    trace = chains.simulate(
        h0,
        chains.Step("bn_rms", gamma=gamma),
        product,
        depth,
        {"gap": metrics.orthogonality_gap},
        runs=runs,
    )
    for i, r in enumerate(runs):
        expected = naive_bn_chain(h0[i], "test.naive", r, depth, gamma)
        torch.testing.assert_close(trace.values["gap"][i], expected, rtol=1e-9, atol=1e-12)


def test_a_run_alone_equals_the_run_in_a_batch():
    """Randomness has an address: run 3 is the same whether simulated with others or alone."""
    d, n, depth = 8, 4, 100
    batch = [0, 1, 2, 3, 4]
    kwargs = dict(
        step=chains.Step("bn_rms_scaled"), depth=depth, observers={"gap": metrics.orthogonality_gap}
    )
    h0 = inputs.near_rank_one(d, n)
    full = chains.simulate(
        h0, product=chains.GaussianGramProduct("t", batch, d, n), runs=batch, **kwargs
    )
    alone = chains.simulate(
        h0, product=chains.GaussianGramProduct("t", [3], d, n), runs=[3], **kwargs
    )
    torch.testing.assert_close(alone.values["gap"][0], full.values["gap"][3])


def test_stacked_streams_draw_what_each_stream_draws_alone():
    """ExplicitProduct over several ids: id-major runs, each with its own stream's draws."""
    ids, runs = ["t.a", "t.b", "t.c"], [0, 2]
    for law in ("gaussian", "uniform"):
        stacked = chains.ExplicitProduct(ids, runs, 6, law, 0.5)
        alone = [chains.ExplicitProduct(e, runs, 6, law, 0.5) for e in ids]
        for _ in range(40):  # crosses a block refill
            expected = torch.cat([p.next_weights().clone() for p in alone])
            assert torch.equal(stacked.next_weights(), expected)


@pytest.mark.parametrize("gammas", [(0.1, 1.0, math.inf), (0.5, 2.0)])
def test_gamma_tuple_equals_separate_chains_bit_for_bit(gammas):
    """Step with a tuple of gammas runs one chain per gamma group, with the same bits."""
    d, n, depth, runs = 8, 8, 60, [0, 1]
    ids = [f"t.g{k}" for k in range(len(gammas))]
    h0 = torch.cat([inputs.gaussian_inputs(e, runs, d, n) for e in ids])
    observers = {"stats": lambda h: metrics.spectral_statistics(h, [0.5])}
    batched = chains.simulate(
        h0,
        chains.Step("bn_rms", gamma=gammas),
        chains.ExplicitProduct(ids, runs, d),
        depth,
        observers,
        runs=runs * len(gammas),
    )
    for k, (e, gamma) in enumerate(zip(ids, gammas, strict=True)):
        alone = chains.simulate(
            h0[2 * k : 2 * k + 2],
            chains.Step("bn_rms", gamma=gamma),
            chains.ExplicitProduct(e, runs, d),
            depth,
            observers,
            runs=runs,
        )
        for name, value in alone.values.items():
            assert torch.equal(batched.values[name][2 * k : 2 * k + 2], value), name
    with pytest.raises(ValueError, match="gamma groups"):
        chains.Step("bn_rms", gamma=gammas)(torch.ones(len(gammas) + 1, 2, 2), lambda h: h)


def test_gram_sqrt_reproduces_the_gram(gen):
    h = torch.randn(3, 20, 5, generator=gen, dtype=torch.float64)
    r = chains.gram_sqrt(h)
    torch.testing.assert_close(r.mT @ r, h.mT @ h)


def test_gram_fast_path_agrees_in_law_with_explicit_weights():
    """spec orthogonality §1.4: W H and G R(H) have one law; stationary mean V agrees.

    Tolerance: 4 standard errors of the difference of the two run means.
    """
    d, n, depth, runs = 48, 4, 300, list(range(40))
    h0 = inputs.near_rank_one(d, n)
    means = []
    for product in (
        chains.ExplicitProduct("t.law", runs, d, "gaussian", 1 / d),
        chains.GaussianGramProduct("t.law", runs, d, n, 1 / d),
    ):
        trace = chains.simulate(
            h0,
            chains.Step("bn_rms_scaled"),
            product,
            depth,
            {"gap": metrics.orthogonality_gap},
            layers=range(100, depth + 1),
            runs=runs,
        )
        means.append(trace.values["gap"].mean(dim=1))
    se = math.sqrt(sum(m.var().item() / len(runs) for m in means))
    assert abs(means[0].mean().item() - means[1].mean().item()) < 4 * se


def test_gamma_infinity_is_the_limit_of_large_gamma():
    """Dan+20 §1.2: BN(H + gamma W H) -> BN(W H) as gamma -> inf (row-scale invariance)."""
    d, n = 6, 6
    h0 = inputs.gaussian_inputs("t.gamma", [0, 1], d, n)
    out = {}
    for gamma in (math.inf, 1e9):
        product = chains.ExplicitProduct("t.gamma", [0, 1], d)
        trace = chains.simulate(
            h0, chains.Step("bn_rms", gamma=gamma), product, 5, {"r": metrics.rank_lower_bound}
        )
        out[gamma] = trace.values["r"]
    torch.testing.assert_close(out[1e9], out[math.inf], rtol=1e-6, atol=1e-6)


def test_vanilla_rescaling_leaves_scale_invariant_metrics_unchanged():
    """The per-layer scalar rescale of vanilla nets changes no scale-invariant metric."""
    d, n, depth = 8, 8, 20
    h0 = inputs.gaussian_inputs("t.van", [0], d, n)
    trace = chains.simulate(
        h0,
        chains.Step("none", "relu"),
        chains.ExplicitProduct("t.van", [0], d),
        depth,
        {"r": metrics.rank_lower_bound},
    )
    product, h = chains.ExplicitProduct("t.van", [0], d), h0.clone()
    for _ in range(depth):
        h = torch.relu(product.next_weights() @ h)  # no rescaling; float64 survives 20 layers
    torch.testing.assert_close(trace.values["r"][0, -1], metrics.rank_lower_bound(h)[0])


def test_dead_relu_network_stays_zero():
    """A vanilla ReLU net whose units all die has rank 0; the rescaling must not make NaN."""
    step = chains.Step("none", "relu")
    h = step(torch.ones(1, 4, 3, dtype=torch.float64), lambda h: -h)
    assert torch.equal(h, torch.zeros_like(h))
    assert metrics.numerical_rank(h).item() == 0


def test_float32_and_float64_chains_share_their_weights():
    w32 = chains.ExplicitProduct("t.p", [0, 1], 8, dtype=torch.float32).next_weights()
    w64 = chains.ExplicitProduct("t.p", [0, 1], 8, dtype=torch.float64).next_weights()
    assert w64.dtype == torch.float64
    torch.testing.assert_close(w64.float(), w32, rtol=0, atol=0)


def test_uniform_law_has_the_requested_variance():
    product = chains.ExplicitProduct("t.u", [0], 64, "uniform", variance=2.0)
    w = torch.stack([product.next_weights() for _ in range(20)])
    assert w.abs().max().item() <= math.sqrt(6.0)
    assert w.var().item() == pytest.approx(2.0, rel=0.02)


def test_record_layers_thins_after_burn_in():
    assert chains.record_layers(10, burn_in=4, stride=3) == [4, 7, 10]
    assert chains.record_layers(5) == [1, 2, 3, 4, 5]
    assert chains.record_layers(4, stride=2, include_input=True) == [0, 2, 4]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(depth=0), "depth must be >= 1, got 0"),
        (dict(depth=-3), "depth must be >= 1, got -3"),
        (dict(depth=5, burn_in=6), "burn_in"),
        (dict(depth=5, stride=0), "stride must be >= 1"),
    ],
)
def test_record_layers_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        chains.record_layers(**kwargs)


def test_step_rejects_bad_settings():
    with pytest.raises(ValueError, match="positively homogeneous"):
        chains.Step("none", "tanh")
    with pytest.raises(ValueError, match="gamma must be > 0"):
        chains.Step("bn_rms", gamma=-1.0)
    with pytest.raises(ValueError, match="gamma must be > 0"):
        chains.Step("bn_rms", gamma=(1.0, 0.0))
    with pytest.raises(ValueError, match="normalization must be one of"):
        chains.Step("group_norm")
    with pytest.raises(ValueError, match="weight law"):
        chains.ExplicitProduct("t", [0], 4, law="cauchy")


def test_simulate_keeps_only_recorded_layers():
    """Memory does not grow with depth: only the recorded layers are stored."""
    product = chains.GaussianGramProduct("t.mem", [0, 1], 16, 4)
    trace = chains.simulate(
        inputs.near_rank_one(16, 4),
        chains.Step("bn_rms_scaled"),
        product,
        2000,
        {"gap": metrics.orthogonality_gap},
        layers=chains.record_layers(2000, burn_in=1000, stride=500),
        runs=[0, 1],
    )
    assert trace.layers.tolist() == [1000, 1500, 2000]
    assert trace.values["gap"].shape == (2, 3)


def test_simulate_runs_on_each_device(device):
    """The engine runs unchanged on CPU and CUDA (values agree in law, not draw for draw)."""
    product = chains.GaussianGramProduct("t.dev", [0, 1, 2], 32, 4, device=device)
    h0 = inputs.near_rank_one(32, 4, device=device)
    trace = chains.simulate(
        h0,
        chains.Step("bn_rms_scaled"),
        product,
        200,
        {"gap": metrics.orthogonality_gap},
        layers=range(100, 201),
        runs=[0, 1, 2],
    )
    assert 0.1 < trace.values["gap"].mean().item() < 0.3  # stationary V ~ 0.2 at d=32, n=4
    assert ops.bn_rms_scaled(h0).device.type == device.type


def test_unit_variance_draws_have_unit_variance_and_bounded_uniform():
    """Dan+20 Def. 1 laws in one place: N(0, 1) and U[-sqrt3, sqrt3], both variance 1."""
    for law in chains.WEIGHT_LAWS:
        w = chains.unit_variance_draws(seeding.generator("t.w", 0), (200_000,), law, torch.float64)
        assert w.var().item() == pytest.approx(1.0, rel=0.02)
    assert w.abs().max().item() <= math.sqrt(3.0)
    with pytest.raises(ValueError, match="weight law"):
        chains.unit_variance_draws(seeding.generator("t.w", 0), (2,), "cauchy", torch.float64)


def test_given_input_accepts_both_shapes_and_names_the_argument():
    from sigprop.engine.inputs import given_input

    shared = torch.ones(4, 3)
    assert given_input(shared, "h0", 2, 4, 3, torch.float64, "cpu").dtype == torch.float64
    assert given_input(torch.ones(2, 4, 3), "h0", 2, 4, 3, torch.float32, "cpu").shape == (2, 4, 3)
    with pytest.raises(ValueError, match=r"h0_bn must be a tensor of shape \(2, 4, 3\)"):
        given_input(torch.ones(4, 4), "h0_bn", 2, 4, 3, torch.float32, "cpu")
    with pytest.raises(ValueError, match="got list"):
        given_input([1.0], "x", 2, 4, 3, torch.float32, "cpu")


def test_given_inputs_per_width_from_a_mapping_or_one_tensor():
    """One tensor serves every width; a mapping covers exactly the widths, each entry checked
    (and named) as ``given_input`` checks it, with n = d when no batch size is given."""
    from sigprop.engine.inputs import given_input, given_inputs

    per_width = {4: torch.randn(2, 4, 4), 8: torch.randn(8, 8)}
    got = given_inputs(per_width, "h0", [4, 8], 2, None, torch.float64, "cpu")
    for d, value in per_width.items():
        assert torch.equal(got[d], given_input(value, f"h0[{d}]", 2, d, d, torch.float64, "cpu"))
    shared = torch.randn(4, 3)
    assert torch.equal(given_inputs(shared, "h0", [4], 2, 3, torch.float64, "cpu")[4], shared)
    with pytest.raises(ValueError, match=r"h0 must map every width \[4, 8\]"):
        given_inputs({4: shared}, "h0", [4, 8], 2, 3, torch.float64, "cpu")
    with pytest.raises(ValueError, match=r"h0\[8\] must be a tensor of shape \(2, 8, 3\)"):
        given_inputs({4: shared, 8: shared}, "h0", [4, 8], 2, 3, torch.float64, "cpu")
    with pytest.raises(ValueError, match=r"h0 must be a tensor of shape \(2, 8, 8\)"):
        given_inputs(torch.randn(4, 4), "h0", [4, 8], 2, None, torch.float64, "cpu")
