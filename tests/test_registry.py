"""The item registry: every entry imports, resolves its config and names files that exist;
the import graph keeps families apart and has no cycles."""

from pathlib import Path

import pytest
import yaml

from sigprop.base.config import merge_configs
from sigprop.base.registry import (
    Figure,
    Registry,
    Simulation,
    Table,
    Theorem,
    dataset_names,
    import_function,
    qualified_name,
    resolve,
    simulation_setup,
)
from sigprop.datasets.data import DATASETS
from sigprop.papers import FAMILIES, load_registry
from sigprop.pipeline.fingerprint import module_imports

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "sigprop"
REGISTRY = load_registry()


def _config(*names):
    config = {}
    for name in names:
        config = merge_configs(config, yaml.safe_load((ROOT / "config" / name).read_text()))
    return config


CONFIGS = {"quick": _config("config.yaml"), "paper": _config("config.yaml", "paper.yaml")}
for _scale, _config_of_scale in CONFIGS.items():
    _config_of_scale["scale"] = _scale  # the workflow derives it (sigprop.pipeline.run_info)


def test_every_family_is_registered():
    assert list(REGISTRY.families) == list(FAMILIES)


@pytest.mark.parametrize("scale", CONFIGS)
def test_every_entry_resolves(scale):
    config = CONFIGS[scale]
    for family, item in REGISTRY.items():
        assert item.source, f"{family}.{item.name} has no source reference"
        if isinstance(item, Simulation):
            assert callable(item.run)
            simulation_setup(family, item, config)
            for name in dataset_names(item, config):
                assert name in DATASETS, f"{family}.{item.name} reads unknown dataset {name}"
        elif isinstance(item, Theorem):
            assert callable(item.measure) and callable(item.judge)
            settings = resolve(None, config, default=f"{family}/{item.name}")
            unknown = set(item.tolerances) - set(settings)
            assert not unknown, f"{family}.{item.name}: tolerances {unknown} not in its config"
        else:
            assert callable(item.judge)
            resolve(item.params, config)
            resolve(item.judge_args, config)
            for ref in item.reads.values():
                REGISTRY.read_of(family, ref)
            script = ROOT / "workflow" / "scripts" / item.script_path
            assert script.exists(), script  # its docstring, the caption: tests/test_layout.py


def test_every_simulation_is_read():
    read = {
        (REGISTRY.read_of(family, ref)[0], REGISTRY.read_of(family, ref)[1].name)
        for family, item in REGISTRY.items()
        if isinstance(item, Figure | Table)
        for ref in item.reads.values()
    }
    for family, item in REGISTRY.items("simulation"):
        assert (family, item.name) in read, f"{family}.{item.name} is simulated but read by none"


def test_names_that_share_a_file_are_refused():
    registry = Registry()
    judge = lambda table: []  # noqa: E731
    with pytest.raises(ValueError, match="same results file"):
        registry.add_family(
            "f",
            [
                Figure("x", source="s", judge=judge),
                Theorem("x", source="s", measure=judge, judge=judge),
            ],
        )
    with pytest.raises(ValueError, match="named twice"):
        registry.add_family("g", [Table("t", source="s", judge=judge)] * 2)


def test_resolve_names_the_missing_key():
    with pytest.raises(KeyError, match="a.b.c"):
        resolve({"x": "a/b/c"}, {"a": {"b": {}}})
    assert resolve("a/b", {"a": {"b": {"k": 1}}}) == {"k": 1}
    assert resolve({"k": "a/b/k"}, {"a": {"b": {"k": 1}}}) == {"k": 1}


def test_references_are_relative_to_the_item_unless_they_are_paths():
    """A bare key is the item's own section's, "." the section itself, a path starts at the
    root ("/key": a top-level key); a script without a folder is the family's."""
    registry = Registry()
    registry.add_family(
        "f",
        [
            Simulation("s", source="s", run=len, setup={"a": "a", "b": "g/x/b", "c": "/c"},
                       extra={"root": "data/root"}, datasets=("d",)),
            Figure("x", source="s", judge=len, params={"w": "w", "n": {"k": "k"}}, judge_args="."),
            Figure("y", source="s", judge=len, judge_args={"z": "f/x/z"}, script="kinds/l.py"),
        ],
    )  # fmt: skip
    sim = registry.get("f", "s", "simulation")
    assert sim.setup == {"a": "f/s/a", "b": "g/x/b", "c": "c"} and sim.datasets == ("f/s/d",)
    assert sim.extra == {"root": "data/root"}
    x, y = registry.get("f", "x", "figure"), registry.get("f", "y", "figure")
    assert x.params == {"w": "f/x/w", "n": {"k": "f/x/k"}} and x.judge_args == "f/x"
    assert (x.script_path, y.script_path, y.judge_args) == ("f/x.py", "kinds/l.py", {"z": "f/x/z"})
    assert resolve(x.judge_args, {"f": {"x": {"q": 1}}}) == {"q": 1}


def test_a_tuple_names_each_reference_by_its_key_and_at_names_a_read():
    """A tuple passes each reference under its last key (a mapping inside it: under its own
    names); "@in" is the section of what the item reads as ``in``, "@in/key" a key of it."""
    registry = Registry()
    registry.add_family(
        "f",
        [
            Simulation("s", source="s", run=len, setup=("a", "g/x/b", {"c": "/c"},
                                                         {"batch": ("g/d/n", "data/root")})),
            Figure("x", source="s", judge=len, reads={"in": "s", "other": "g/t"},
                   params=("w", "@in", {"setup": "@other"}), judge_args=("@in/n_runs", "/scale")),
        ],
    )  # fmt: skip
    sim, x = registry.get("f", "s", "simulation"), registry.get("f", "x", "figure")
    assert sim.setup == {
        "a": "f/s/a",
        "b": "g/x/b",
        "c": "c",
        "batch": {"n": "g/d/n", "root": "data/root"},
    }
    assert x.params == {"w": "f/x/w", "in": "f/s", "setup": "g/t"}
    assert list(x.params) == ["w", "in", "setup"]  # in the tuple's order
    assert x.judge_args == {"n_runs": "f/s/n_runs", "scale": "scale"}
    config = {"f": {"s": {"n_runs": 3}, "x": {"w": 2}}, "g": {"t": {"k": 1}}, "scale": "quick"}
    assert resolve(x.params, config) == {"w": 2, "in": {"n_runs": 3}, "setup": {"k": 1}}
    for params, error, match in [
        (("w", {"w": "v"}), ValueError, "'w' given twice"),
        ((".",), ValueError, "no key name"),
        (("@out",), KeyError, "@out names no input"),
    ]:
        figure = Figure("y", source="s", judge=len, reads={"in": "s"}, params=params)
        with pytest.raises(error, match=match):
            Registry().add_family("h", [figure])


def test_a_selection_names_judged_items_only():
    assert REGISTRY.selected() == list(REGISTRY.judged())
    assert REGISTRY.selected(["rank_collapse.fig2"]) == [
        ("rank_collapse", REGISTRY.get("rank_collapse", "fig2", "figure"))
    ]
    with pytest.raises(KeyError, match="depth_rank"):
        REGISTRY.selected(["rank_collapse.depth_rank"])  # a simulation: no claims of its own


def _graph() -> dict[str, set[str]]:
    graph = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        name = name.removesuffix(".__init__")
        graph[name] = set(module_imports(name)) - {"sigprop"}
    return graph


def test_families_import_only_the_core_and_themselves():
    for module, imported in _graph().items():
        parts = module.split(".")
        if len(parts) > 2 and parts[1] == "papers":
            family = parts[2]
            for other in imported:
                op = other.split(".")
                if op[1] == "papers":
                    assert len(op) > 2 and op[2] == family, f"{module} imports {other}"
        elif module not in ("sigprop.cli", "sigprop.papers"):
            papers = [m for m in imported if m.split(".")[1] == "papers"]
            assert not papers, f"core module {module} imports {papers} (an upward import)"


def test_import_graph_has_no_cycles():
    graph = _graph()
    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                raise AssertionError(" -> ".join([*trail, node, nxt]))
            if nxt not in state:
                visit(nxt, [*trail, node])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [])


def test_every_function_is_importable_by_its_name():
    """Jobs import an item's function by ``module:qualname`` (not the whole registry); a
    lazily named one (``LazyFunction``) resolves to a function of that name, defined in that
    module or imported there (``training_simulations.network_training``: the training layer's
    one function, the family's module naming it)."""
    from sigprop.base.registry import LazyFunction

    for _, item in load_registry().items():
        for function in (getattr(item, k, None) for k in ("run", "measure", "judge")):
            if isinstance(function, LazyFunction):
                found = function.resolve()
                assert callable(found) and found.__qualname__ == function.__qualname__
            elif function is not None:
                assert import_function(qualified_name(function)) is function, function


def test_every_simulation_takes_the_experiment_id_it_is_given():
    """The workflow gives each simulation its random streams' id (``simulation_setup``:
    ``<family>.<item>`` or its ``constants``); no function keeps a default of its own that could
    drift from the item's name."""
    import inspect

    from sigprop.base.registry import simulation_setup

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for family, item in load_registry().items("simulation"):
        parameters = inspect.signature(item.run.resolve()).parameters
        parameter = parameters.get("experiment_id")
        given = simulation_setup(family, item, config)["experiment_id"]
        if parameter is None:  # a wrapper passing its ``**setup`` on to the function that draws
            kinds = {p.kind for p in parameters.values()}
            assert inspect.Parameter.VAR_KEYWORD in kinds, f"{family}/{item.name}: no experiment_id"
        else:
            assert parameter.default is inspect.Parameter.empty, f"{family}/{item.name}"
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, f"{family}/{item.name}"
        assert given == item.constants.get("experiment_id", f"{family}.{item.name}")


SHARED_FUNCTIONS = {"sigprop.training.experiment:network_training"}
"""Library functions that many items call with settings of their own: their defaults are the
library's (an MLP, no pre-training), not a copy of one item's config."""


def test_no_function_keeps_a_default_the_config_supplies():
    """A value the config gives an item lives in the config alone: its simulation or
    measurement takes it as a required argument, so no second copy can drift from config.yaml
    (a copy drifts: a test leaning on it runs sizes no config names)."""
    import inspect

    from sigprop.base.registry import qualified_name, simulation_setup, theorem_setup

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    copies = []
    for family, item in load_registry().items():
        if item.kind == "simulation":
            function = item.run.resolve()
            given = set(simulation_setup(family, item, config)) - set(item.constants)
        elif item.kind == "theorem":
            function = getattr(item.measure, "resolve", lambda f=item.measure: f)()
            given = set(theorem_setup(family, item, config))
        else:
            continue
        if qualified_name(function) in SHARED_FUNCTIONS:
            continue
        parameters = inspect.signature(function).parameters
        copies += [
            f"{family}/{item.name}: {name}"
            for name in sorted(given & set(parameters))
            if parameters[name].default is not inspect.Parameter.empty
        ]
    assert not copies, copies


def test_the_simulations_a_partial_run_needs():
    """The data preflight checks only what the requested targets read: a figure's or judge's
    file -> the simulations it reads; a theorem -> none; no targets, a rule name or a path that
    names no item -> all (None)."""
    from sigprop.papers import load_registry

    registry = load_registry()
    needed = registry.simulations_for(
        ["results/claims/rank_collapse/fig1.json", "figures/orthogonality/fig2b.pdf",
         "results/claims/rank_collapse/lemma4.json", "results/gradients/shaped_mnist.safetensors"]
    )  # fmt: skip
    assert sorted((f, i.name) for f, i in needed) == [
        ("gradients", "shaped_mnist"), ("orthogonality", "gap_chain"),
        ("rank_collapse", "depth_training"),
    ]  # fmt: skip
    assert registry.simulations_for(["results/claims/rank_collapse/lemma4.json"]) == []
    for everything in ([], ["all"], ["results/claims.csv"], ["figures/nofamily/x.pdf"]):
        assert registry.simulations_for(everything) is None


def test_every_network_training_may_leave_diverged_curves():
    """A run that diverges leaves NaN curves (``training.experiment_spec.CURVES``), which the
    step-size search skips: every simulation trained by ``training.experiment.network_training``
    (a ``training_simulations`` module of Dan+20's and DJB21's families) declares them, so its
    store accepts them instead of refusing a finished paper-scale training."""
    from sigprop.training.experiment_spec import CURVES

    trained = [
        item
        for family, item in load_registry().items("simulation")
        if family in ("rank_collapse", "orthogonality")
        and item.run.__module__.endswith(".training_simulations")
    ]
    assert len(trained) >= 8
    for item in trained:
        assert set(CURVES) <= set(item.nonfinite), item.name
