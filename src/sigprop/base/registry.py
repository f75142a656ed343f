"""The paper item as the unit: every simulation, figure, table and theorem check, in one table.

Each paper family (``sigprop.papers.<family>``) declares its items in ``items.py`` as a list of
the four kinds below. The Snakemake rules (``workflow/rules/items.smk``), ``rule all``, the
ledger's expected claim ids, the report categories, the ``sigprop`` command line and the tests
are all derived from these tables; nothing lists an item a second time.

The data flow of one item, with its outputs:

- ``Simulation``: config slice -> ``run(**setup, device=...)`` ->
  ``results/<family>/<name>.safetensors`` (+ ``.json`` provenance sidecar).
- ``Figure``: simulations -> its script (``workflow/scripts/<family>/<script>``) ->
  ``figures/<family>/<name>.{pdf,png}`` and the plotted numbers ``results/<family>/<name>.csv``.
- ``Table``: simulations -> its script -> ``results/<family>/<name>.{csv,md}``.
- ``Theorem``: config slice less its tolerances -> ``measure(**setup, device=...)`` -> the
  measured table ``results/<family>/<name>.csv`` (+ ``.json`` sidecar).
- every figure, table and theorem item is then judged: ``judge(table, **arguments)`` ->
  ``results/claims/<family>/<name>.json`` (verdicts) and ``results/captions/<family>/<name>.rst``.

Measure and judge are separate jobs, so changing a tolerance reruns only the judge.

A simulation whose random streams are its own per value of a list argument (``bn_chain``: one
chain per width, streams ``<id>.gamma<g>.d<d>``) declares that argument ``split``
(``Split("widths", dim="width")``). Where config ``split_simulations`` names it, the workflow runs
one compute job per value (``Part``: ``results/<family>/parts/<item>-<key>-<value>.safetensors``,
the function called with ``[value]``) and a local merge job that concatenates the parts along
``dim`` (``sigprop.base.store.concat``) into the file the simulate rule would write: the same
tensors, bit for bit, with a sidecar that also lists the parts (``Registry.splits`` validates the
config).

Items name the functions of modules that import torch through ``lazy_modules``: loading the
registry (the Snakefile in every Snakemake process, ``sigprop list``) imports no torch, and a job
imports only the module of its own function (``import_function``).

Config references are relative to the item's own section by default: ``"window"`` is the key
``window`` of ``<family>/<item>``, ``"."`` that section itself. A path with a slash starts at the
config root, for another item's keys (``"orthogonality/gap_chain/widths"``) or a top-level section
(``"data/root"``); ``"/scale"`` is a top-level key. In a figure's or table's ``params`` and
``judge_args``, ``"@gaps"`` is the section of the item it reads as ``gaps`` (``reads``) and
``"@gaps/n_runs"`` a key of it.

Arguments are passed three ways. A tuple of references passes each under the name of its last
key: ``("widths", "@chain/n_runs", "/scale")`` is ``{"widths": "widths", "n_runs":
"@chain/n_runs", "scale": "/scale"}``, and a mapping inside it passes its references under its own
names: ``("widths", {"chain": "@gaps"})``. A mapping ``{"name": "ref"}`` passes each value under
its name (a value may itself be a mapping or a tuple: one argument holding a dict). A single
reference passes the dict found there as keyword arguments. ``Registry.add_family`` rewrites every
tuple as a mapping and every reference as a root path (``anchored``), so whatever reads a
registered item sees mappings and single references of root paths only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .config import ConfigError

__all__ = [
    "SPLIT_KEY",
    "LazyFunction",
    "import_function",
    "absolute",
    "anchored",
    "lazy_functions",
    "lazy_modules",
    "named",
    "qualified_name",
    "Figure",
    "Item",
    "Part",
    "Registry",
    "Simulation",
    "Split",
    "Table",
    "Theorem",
    "dataset_names",
    "dataset_simulation",
    "resolve",
    "simulation_setup",
    "theorem_setup",
    "training_simulation",
]

ConfigRefs = Mapping[str, Any] | tuple[str | Mapping[str, Any], ...] | str
"""``("key", ...)`` (each passed under its last key's name; a mapping inside renames),
``{"argument": "key"}`` (a key of the item's section, or a root path ``"family/item/key"``), or
one reference to a dict spread as keyword arguments (``"."``: the item's own section)."""


@dataclass(frozen=True)
class Split:
    """How a simulation runs as one compute job per value of a list argument (config
    ``split_simulations``). Declare it only where each value's numbers come from random streams
    of its own, so that a part's tensors equal that value's slice of the whole run, bit for bit.

    Attributes:
        key: the argument (a list in the setup) to split, e.g. ``"widths"``; a part runs with
            ``[value]``.
        dim: the result's dimension that holds it (``"width"``); the merge concatenates the
            parts along it in the order of the list. Seeds lists that differ between parts are
            concatenated too, so the function lists its streams ``key``-major.
        cost_power: a part's work grows as ``value ** cost_power`` beside a cost per part that
            every part shares (3: d x d products and eigendecompositions at d = N). A part is
            placed at ``max(1/n, v^p / sum of v^p)`` of the item's projected cost, an upper bound
            of its share under that model (``shares``).
    """

    key: str
    dim: str
    cost_power: float = 0.0

    def shares(self, values: list) -> list[float]:
        """Each value's share of the item's projected cost (their sum may exceed 1)."""
        weights = [float(v) ** self.cost_power for v in values]
        return [max(1 / len(values), w / sum(weights)) for w in weights]


@dataclass(frozen=True)
class Simulation:
    """A cached simulation: ``run(**setup, device=..., experiment_id=...)`` returns
    ``store.Labelled`` tensors.

    Attributes:
        name: the output stem, ``results/<family>/<name>.safetensors``.
        source: the seed items it serves, e.g. ``"DJB21 Eq. (1); Figs. 2a, 2b"``.
        run: the function; its keyword arguments are the config slice and ``experiment_id``,
            the id its random streams derive from (``base.seeding.derive_seed``):
            ``<family>.<name>`` unless ``constants`` gives another.
        setup: config references for its arguments; default: its own section ``<family>/<name>``.
        extra: more arguments from elsewhere in the config, added to the setup (e.g. the data
            directory ``data/root``).
        datasets: config references naming the datasets it reads (a ``sigprop.datasets.data`` name
            or a list of them, e.g. ``"dataset"``); the data rule prepares each before the
            simulation runs. Empty for synthetic inputs.
        nonfinite: value names that may hold NaN or inf by design (e.g. "never crossed"); the
            store refuses non-finite numbers anywhere else.
        mem_mb, runtime: cluster resources (MB, minutes) at paper scale.
        split: the list argument it may run as one job per value of (``Split``); None: one job.
        constants: fixed arguments, e.g. the networks a shared training function trains for
            this item, or the ``experiment_id`` of simulations that share their random streams.
    """

    name: str
    source: str
    run: Callable[..., Any]
    setup: ConfigRefs | None = None
    extra: ConfigRefs = field(default_factory=dict)
    datasets: tuple[str, ...] = ()
    nonfinite: tuple[str, ...] = ()
    mem_mb: int = 2000
    runtime: int = 30
    split: Split | None = None
    constants: Mapping[str, Any] = field(default_factory=dict)

    kind = "simulation"


@dataclass(frozen=True)
class _Drawn:
    """An item drawn by a short script from cached simulations, then judged from its CSV.

    Attributes:
        name: the seed's own number, e.g. ``fig2b`` (``figures/<family>/fig2b.pdf``).
        source: e.g. ``"DJB21 Fig. 2b; Thesis Fig. 2.2b"``.
        reads: script input name -> a simulation (its tensors) or a theorem item (its measured
            table) of the same family, or ``family/name``.
        params: the script's parameters (``params.<name>``), config references in any form of
            the module docstring; ``"@<read>"`` is the section of what it reads as ``<read>``.
        constants: fixed script parameters, e.g. the rows and the caption's first line of a script
            that several items share.
        judge: ``judge(table, **judge_args) -> list[Claim]`` on the plotted numbers.
        judge_args: config references of the judge's keyword arguments (as ``params``).
        script: ``workflow/scripts/<family>/<script>``, default ``<name>.py``; a path with a
            folder is from ``workflow/scripts/`` (``kinds/lines.py``: a figure kind any family
            draws). Its module docstring is the item's report caption
            (``sigprop.pipeline.jobs.script_description``).
        nonfinite: columns of the CSV that may hold NaN or inf by design (e.g. "not applicable
            to this row's kind"); the judge handles them explicitly. Anywhere else a non-finite
            number stops the judge before it can average around it.
    """

    name: str
    source: str
    judge: Callable[..., list]
    reads: Mapping[str, str] = field(default_factory=dict)
    params: ConfigRefs = field(default_factory=dict)
    constants: Mapping[str, Any] = field(default_factory=dict)
    judge_args: ConfigRefs = field(default_factory=dict)
    script: str | None = None
    nonfinite: tuple[str, ...] = ()

    @property
    def script_path(self) -> str:
        """The script's path under ``workflow/scripts/`` (of a registered item: ``anchored``)."""
        return self.script or f"{self.name}.py"


@dataclass(frozen=True)
class Figure(_Drawn):
    """A figure: ``figures/<family>/<name>.{pdf,png}`` and its plotted numbers (``.csv``)."""

    kind = "figure"


@dataclass(frozen=True)
class Table(_Drawn):
    """A generated table: ``results/<family>/<name>.csv`` and ``.md``."""

    kind = "table"


@dataclass(frozen=True)
class Theorem:
    """A theorem check without a figure: measure once (cached table), judge separately.

    Attributes:
        name: the config item and output stem.
        source: e.g. ``"Dan+20 Lemma 4, Eq. (31)-(32)"``.
        measure: ``measure(**setup, device=...) -> pandas.DataFrame``, one row per case.
        judge: ``judge(table, **settings) -> list[Claim]``; it receives the whole config slice.
        tolerances: keys of the slice that only the judge reads; the measurement ignores them,
            so changing one reruns only the judge.
        nonfinite: columns of the measured table that may hold NaN or inf by design; see
            ``Figure``. The measurement refuses them anywhere else.
        mem_mb, runtime: cluster resources (MB, minutes).
    """

    name: str
    source: str
    measure: Callable[..., Any]
    judge: Callable[..., list]
    tolerances: tuple[str, ...] = ()
    nonfinite: tuple[str, ...] = ()
    mem_mb: int = 2000
    runtime: int = 30

    kind = "theorem"


Item = Simulation | Figure | Table | Theorem


def dataset_simulation(name: str, source: str, run: Callable[..., Any], **fields) -> Simulation:
    """A simulation on the dataset named at its config key ``dataset``, given the data directory
    ``data/root`` as ``data_root``; ``fields``: the other fields of ``Simulation``."""
    return Simulation(
        name,
        source=source,
        run=run,
        extra={"data_root": "data/root"},
        datasets=("dataset",),
        **fields,
    )


def training_simulation(
    name: str, source: str, run: Callable[..., Any], nonfinite: tuple[str, ...]
) -> Simulation:
    """A simulation that trains networks (``sigprop.training.experiment``) on its dataset
    (``dataset_simulation``); ``nonfinite``: the curves, NaN once a run diverged. 4 GB and up to
    10 hours at paper scale."""
    return dataset_simulation(name, source, run, nonfinite=nonfinite, mem_mb=4000, runtime=600)


def qualified_name(function: Callable) -> str:
    """``module:qualname`` of an item's function, e.g. ``sigprop.papers.x.judges:fig2``."""
    return f"{function.__module__}:{function.__qualname__}"


class LazyFunction:
    """A function named by its module and qualified name, imported at its first call.

    It answers ``__module__`` and ``__qualname__`` as the function does, so ``qualified_name``
    and the code fingerprint (``sigprop.pipeline.fingerprint``) need no import.
    """

    def __init__(self, module: str, qualname: str):
        self.__module__, self.__qualname__ = module, qualname
        self.__name__ = qualname.rpartition(".")[2]

    def resolve(self) -> Callable:
        """The function itself (imports its module)."""
        return import_function(qualified_name(self))

    @property
    def __wrapped__(self) -> Callable:  # inspect.signature follows it (imports the module)
        return self.resolve()

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __eq__(self, other) -> bool:
        return isinstance(other, LazyFunction) and qualified_name(self) == qualified_name(other)

    def __hash__(self) -> int:
        return hash(qualified_name(self))

    def __repr__(self) -> str:
        return f"LazyFunction({qualified_name(self)!r})"


class _LazyNames:
    """Names taken without importing anything: attribute ``name`` is ``make(name)``."""

    def __init__(self, make: Callable[[str], Any], shown: str):
        self._make, self._shown = make, shown

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._make(name)

    def __repr__(self) -> str:
        return self._shown


def lazy_functions(module: str) -> Any:
    """``lazy_functions("pkg.mod").f`` is ``LazyFunction("pkg.mod", "f")``: the functions of a
    module that imports torch, named in an item table without importing it. Only functions:
    a constant an item table needs lives in a torch-free module (``<topic>_spec``)."""
    return _LazyNames(lambda name: LazyFunction(module, name), f"lazy_functions({module!r})")


def lazy_modules(package: str) -> Any:
    """``lazy_modules("pkg").mod.f`` is ``lazy_functions("pkg.mod").f``: a package's modules
    that import torch, each named once, where an item names its function
    (``run=lazy.chain_simulations.cosine_pair``)."""
    return _LazyNames(
        lambda name: lazy_functions(f"{package}.{name}"), f"lazy_modules({package!r})"
    )


def import_function(name: str) -> Callable:
    """The function a ``qualified_name`` names; imports only its module (a job that judges one
    item does not import every family, nor torch unless that module does)."""
    import importlib

    module, _, path = name.partition(":")
    found: Any = importlib.import_module(module)
    for part in path.split("."):
        found = getattr(found, part)
    return found


KINDS = {"simulation": Simulation, "figure": Figure, "table": Table, "theorem": Theorem}


def _lookup(config: Mapping, path: str) -> Any:
    node: Any = config
    walked = []
    for key in path.split("/"):
        walked.append(key)
        if not isinstance(node, Mapping) or key not in node:
            raise KeyError(f"config has no key {'.'.join(walked)} (needed by the item registry)")
        node = node[key]
    return node


def absolute(ref: str, scope: str, reads: Mapping[str, str] | None = None) -> str:
    """A config reference as a path from the config root; ``scope`` is the item's section
    (``family/item``): ``"key"`` -> ``scope/key``, ``"."`` -> ``scope``, ``"/key"`` -> ``key``,
    ``"@name/key"`` -> ``family/<read>/key`` for ``reads[name]`` (a ``reads`` reference, ``<read>``
    or ``family/<read>``); a path with a slash is one already."""
    if ref == ".":
        return scope
    if ref.startswith("/"):
        return ref[1:]
    if ref.startswith("@"):
        name, _, key = ref[1:].partition("/")
        if name not in (reads or {}):
            raise KeyError(f"{scope}: {ref} names no input of its reads {sorted(reads or {})}")
        read = reads[name] if "/" in reads[name] else f"{scope.split('/')[0]}/{reads[name]}"
        return f"{read}/{key}" if key else read
    return ref if "/" in ref else f"{scope}/{ref}"


def named(refs):
    """A tuple of references as a mapping, each under its last key's name (``"@chain/n_runs"``
    -> ``n_runs``, ``"@chain"`` -> ``chain``), a mapping inside it under its own names; the same
    within mappings. Other references as they are. A ValueError for a name given twice or a
    reference without a name (``"."``)."""
    if isinstance(refs, tuple):
        found: dict[str, Any] = {}
        for ref in refs:
            for name, value in (
                named(ref).items() if isinstance(ref, Mapping) else [(_name(ref), ref)]
            ):
                if name in found:
                    raise ValueError(f"argument {name!r} given twice in {refs}")
                found[name] = value
        return found
    if isinstance(refs, Mapping):
        return {name: named(ref) for name, ref in refs.items()}
    return refs


def _name(ref: str) -> str:
    """The argument a reference in a tuple passes: its last key (``"@read"``: ``read``)."""
    name = ref.rpartition("/")[2].removeprefix("@")
    if not name or name == ".":
        raise ValueError(f"config reference {ref!r} has no key name: pass it in a mapping")
    return name


def _absolute_refs(refs, scope: str, reads: Mapping[str, str] | None = None):
    """``absolute`` over a reference, or a (nested) mapping of them."""
    if refs is None or isinstance(refs, str):
        return refs if refs is None else absolute(refs, scope, reads)
    return {name: _absolute_refs(ref, scope, reads) for name, ref in refs.items()}


def anchored(family: str, item: Item) -> Item:
    """``item`` as registered: every tuple of config references a mapping (``named``), every
    reference a path from the config root (``absolute``), and its script's path from
    ``workflow/scripts/`` (``<family>/<script>`` unless it names a folder)."""
    scope = f"{family}/{item.name}"
    reads = getattr(item, "reads", None)
    changes: dict[str, Any] = {
        attr: _absolute_refs(named(getattr(item, attr)), scope, reads)
        for attr in ("setup", "extra", "params", "judge_args")
        if hasattr(item, attr)
    }
    if isinstance(item, Simulation):
        changes["datasets"] = tuple(absolute(ref, scope) for ref in item.datasets)
    if isinstance(item, _Drawn) and "/" not in item.script_path:
        changes["script"] = f"{family}/{item.script_path}"
    return dataclasses.replace(item, **changes)


def resolve(refs: ConfigRefs | None, config: Mapping, default: str | None = None) -> dict:
    """Config references -> keyword arguments (see the module docstring); a nested mapping of
    references gives a nested dict (e.g. one argument holding a batch's settings)."""
    if refs is None:
        refs = default
    if refs is None:
        return {}
    if isinstance(refs, str):
        found = _lookup(config, refs)
        if not isinstance(found, Mapping):
            raise TypeError(f"config path {refs} should hold a mapping of keyword arguments")
        return dict(found)
    return {
        name: resolve(path, config) if isinstance(path, Mapping) else _lookup(config, path)
        for name, path in refs.items()
    }


_TARGET = re.compile(
    r"^(?:\./)?(?:results/claims|results/captions|results|figures)/"
    r"(?P<family>[^/]+)/(?P<name>[^/.]+)\.[\w.]+$"
)
"""A file a rule writes: ``<folder>/<family>/<item>.<ext>``."""

PLACEMENT_KEYS = ("data_root",)
"""Setup keys that say where a simulation finds its inputs, not what it computes: a site's
data folder leaves every claim's scale as it was (``Registry.item_slice``)."""


def _without_placement(value):
    """``value`` with every ``PLACEMENT_KEYS`` entry dropped, at any depth."""
    if isinstance(value, Mapping):
        return {k: _without_placement(v) for k, v in value.items() if k not in PLACEMENT_KEYS}
    return value


def simulation_setup(family: str, item: Simulation, config: Mapping) -> dict:
    """A simulation's keyword arguments under ``config``: its setup, its extra references, the
    experiment id ``<family>.<name>`` and its constants (which may name another id)."""
    return {
        "experiment_id": f"{family}.{item.name}",
        **resolve(item.setup, config, default=f"{family}/{item.name}"),
        **resolve(item.extra, config),
        **item.constants,
    }


def theorem_setup(family: str, item: Theorem, config: Mapping) -> dict:
    """A theorem measurement's keyword arguments under ``config``: its config slice less the
    tolerances (which only its judge reads)."""
    found = resolve(None, config, default=f"{family}/{item.name}")
    return {k: v for k, v in found.items() if k not in item.tolerances}


SPLIT_KEY = "split_simulations"
"""The config key naming the simulations (``family.item``) that run one job per part."""

_LABEL = re.compile(r"^[A-Za-z0-9_+-]+$")
"""A part's value as it appears in file and job names (no dots: logs and benchmarks are named
``<rule>_<job>.<ext>``)."""


@dataclass(frozen=True)
class Part:
    """One compute job of a split simulation: ``run`` on one value of its ``split.key``.

    Attributes:
        family, item: the simulation it is part of.
        name: ``<item>-<key>-<value>``, e.g. ``bn_chain-widths-8``; its tensors are
            ``results/<family>/parts/<name>.safetensors``.
        value: the split argument's value (the part runs with ``[value]``).
        share: an upper bound of its fraction of the item's work (``Split.shares``).
    """

    family: str
    item: Simulation
    name: str
    value: Any
    share: float

    @property
    def path(self) -> str:
        return f"results/{self.family}/parts/{self.name}.safetensors"

    def setup(self, config: Mapping) -> dict:
        """The part's keyword arguments: the simulation's, its split argument ``[value]``."""
        return {
            **simulation_setup(self.family, self.item, config),
            self.item.split.key: [self.value],
        }


def _label(value: Any) -> str | None:
    """A split value in file names (a float's point as ``p``: 0.5 -> ``0p5``); None if it has
    no such name."""
    if isinstance(value, bool):
        return None
    text = f"{value:g}".replace(".", "p") if isinstance(value, float) else str(value)
    return text if _LABEL.match(text) else None


def split_parts(family: str, item: Simulation, config: Mapping) -> list[Part]:
    """The parts of a simulation that declares a ``split``, under ``config``.

    Raises:
        ConfigError: naming the split key, if its value is not a list of distinct values that
            name files (integers, words, floats), or the simulation declares no split.
    """
    where = f"{family}.{item.name}"
    if item.split is None:
        raise ConfigError(f"{SPLIT_KEY}: {where} declares no split (its parts may share streams)")
    key = item.split.key
    values = simulation_setup(family, item, config).get(key)
    path = f"{SPLIT_KEY}: {where} splits on its argument {key}"
    if not isinstance(values, list) or not values:
        raise ConfigError(f"{path}, which must be a non-empty list, got {values!r}")
    labels = [_label(v) for v in values]
    if None in labels:
        bad = values[labels.index(None)]
        raise ConfigError(f"{path}: its value {bad!r} cannot name a job's files")
    twice = sorted({x for x in labels if labels.count(x) > 1})
    if twice:
        raise ConfigError(f"{path} = {values}: values {twice} given twice (one job per value)")
    try:
        shares = item.split.shares(values)
    except (TypeError, ValueError):
        raise ConfigError(f"{path} = {values}: its cost model needs numbers") from None
    return [
        Part(family, item, f"{item.name}-{key}-{label}", value, share)
        for value, label, share in zip(values, labels, shares, strict=True)
    ]


def dataset_names(item: Simulation, config: Mapping) -> list[str]:
    """The datasets a simulation reads under ``config`` (its ``datasets`` references)."""
    names: list[str] = []
    for path in item.datasets:
        found = _lookup(config, path)
        names += [found] if isinstance(found, str) else list(found)
    return list(dict.fromkeys(names))


@dataclass
class Registry:
    """All items of all families: ``registry[family][name]`` per kind, with derived lists."""

    families: dict[str, dict[str, list[Item]]] = field(default_factory=dict)
    config_checks: dict[str, Callable[[Mapping], None]] = field(default_factory=dict)

    def add_family(
        self,
        family: str,
        items: list[Item],
        check_config: Callable[[Mapping], None] | None = None,
    ) -> None:
        """Register a family's items (``anchored``); names must be unique per kind and output
        path.

        ``check_config(config)`` checks the relations between the family's config keys that
        the schema cannot express (it raises ``sigprop.base.config.ConfigError`` naming the keys).
        """
        by_kind: dict[str, list[Item]] = {kind: [] for kind in KINDS}
        for item in items:
            by_kind[item.kind].append(anchored(family, item))
        for kind, listed in by_kind.items():
            names = [i.name for i in listed]
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:
                raise ValueError(f"{family}: {kind} items named twice: {twice}")
        csv_names = [i.name for k in ("figure", "table", "theorem") for i in by_kind[k]]
        clash = sorted({n for n in csv_names if csv_names.count(n) > 1})
        clash += sorted(
            {i.name for i in by_kind["theorem"]} & {i.name for i in by_kind["simulation"]}
        )
        if clash:
            raise ValueError(f"{family}: items {clash} would write the same results file")
        self.families[family] = by_kind
        if check_config is not None:
            self.config_checks[family] = check_config

    def check_config(self, config: Mapping) -> None:
        """Run every family's cross-key config check (before any job), and check
        ``split_simulations`` (``splits``)."""
        for check in self.config_checks.values():
            check(config)
        self.splits(config)

    def splits(self, config: Mapping) -> dict[tuple[str, str], list[Part]]:
        """(family, simulation) -> its parts, for each simulation that config
        ``split_simulations`` names (``family.item``).

        Raises:
            ConfigError: naming ``split_simulations``, for a name that is no simulation
                declaring a ``split`` (the message lists those that do), or a bad split value.
        """
        found = {}
        for name in config.get(SPLIT_KEY) or ():
            family, _, item_name = str(name).partition(".")
            items = self.families.get(family, {}).get("simulation", [])
            item = next((i for i in items if i.name == item_name and i.split), None)
            if item is None:
                able = [f"{f}.{i.name}" for f, i in self.items("simulation") if i.split]
                raise ConfigError(
                    f"{SPLIT_KEY}: {name} is no simulation that declares a split (one whose "
                    f"parts have random streams of their own); those that do: {able}"
                )
            found[family, item.name] = split_parts(family, item, config)
        return found

    def items(self, kind: str | None = None) -> Iterator[tuple[str, Item]]:
        """(family, item) pairs, in registry order, optionally of one kind."""
        for family, by_kind in self.families.items():
            for k, listed in by_kind.items():
                if kind is None or k == kind:
                    for item in listed:
                        yield family, item

    def get(self, family: str, name: str, kind: str) -> Item:
        """The item of that family, name and kind; a KeyError naming what exists."""
        for item in self.families.get(family, {}).get(kind, []):
            if item.name == name:
                return item
        known = [i.name for i in self.families.get(family, {}).get(kind, [])]
        raise KeyError(f"no {kind} item {family}.{name}; the {kind} items are {known}")

    def judged_item(self, family: str, name: str) -> Item:
        """The figure, table or theorem item of that name (names are unique across them)."""
        for kind in ("figure", "table", "theorem"):
            for item in self.families.get(family, {}).get(kind, []):
                if item.name == name:
                    return item
        raise KeyError(f"no figure, table or theorem item {family}.{name}")

    def judge_of(self, family: str, name: str) -> Callable[..., list]:
        """The judge function of a figure, table or theorem item."""
        return self.judged_item(family, name).judge

    def names(self, kind: str) -> list[str]:
        """Every name of that kind over all families (for wildcard constraints)."""
        return sorted({item.name for _, item in self.items(kind)})

    def judged(self) -> Iterator[tuple[str, Item]]:
        """Every item with claims: figures, tables and theorem checks."""
        for family, item in self.items():
            if item.kind != "simulation":
                yield family, item

    def selected(self, names: Iterable[str] = ()) -> list[tuple[str, Item]]:
        """The judged items named ``family.item`` (config ``items``), in registry order; no
        names: every judged item. A KeyError names those that are not judged items."""
        names = set(names)
        found = [(f, i) for f, i in self.judged() if not names or f"{f}.{i.name}" in names]
        unknown = names - {f"{f}.{i.name}" for f, i in found}
        if unknown:
            raise KeyError(f"no figure, table or theorem item {sorted(unknown)} (sigprop list)")
        return found

    def simulations_for(self, targets) -> list[tuple[str, Simulation]] | None:
        """The simulations that Snakemake ``targets`` (file paths) need, or None for all of
        them (no targets, a rule name such as ``all``, or a path that names no item): what the
        data preflight checks, so a partial run needs only its own datasets."""
        if not targets:
            return None
        found: dict[tuple[str, str], Simulation] = {}
        for target in targets:
            match = _TARGET.match(str(target))
            if not match or match["family"] not in self.families:
                return None
            family, name = match["family"], match["name"]
            items = [i for k, ls in self.families[family].items() for i in ls if i.name == name]
            if not items:
                return None
            for item in items:
                refs = [item.name] if item.kind == "simulation" else getattr(item, "reads", {})
                for ref in refs.values() if isinstance(refs, Mapping) else refs:
                    fam, read = self.read_of(family, ref)
                    if read.kind == "simulation":
                        found[fam, read.name] = read
        return [(fam, item) for (fam, _), item in found.items()]

    def read_of(self, family: str, ref: str) -> tuple[str, Simulation | Theorem]:
        """A ``reads`` reference (``name`` or ``family/name``) -> (family, item): a simulation
        (its tensors) or a theorem item (its cached measured table)."""
        fam, _, name = ref.rpartition("/")
        fam = fam or family
        try:
            return fam, self.get(fam, name, "simulation")
        except KeyError:
            return fam, self.get(fam, name, "theorem")

    def item_slice(self, family: str, item: Item, config: Mapping) -> dict:
        """Every config value an item's claims depend on: its own slice (a theorem's whole
        slice; a figure's or table's params, constants and judge arguments) and the setup of
        every simulation or theorem it reads. Equal slices mean equal claims.

        A param that reads the ``scale`` label itself (e.g. a table printing its scale) is not
        part of the slice: the label is derived from the slice (``run_info.item_scale``)."""
        config = {**config, "scale": "(derived from this slice)"}
        if item.kind == "simulation":
            return {"setup": _without_placement(simulation_setup(family, item, config))}
        if item.kind == "theorem":
            return {"slice": resolve(None, config, default=f"{family}/{item.name}")}
        found = {
            "params": resolve(item.params, config),
            "constants": dict(item.constants),
            "judge": resolve(item.judge_args, config),
        }
        for name, ref in sorted(item.reads.items()):
            fam, read = self.read_of(family, ref)
            found[f"reads/{name}"] = self.item_slice(fam, read, config)
        return found

    def read_path(self, family: str, ref: str) -> str:
        """The file a ``reads`` reference names: ``results/<family>/<name>.safetensors`` (a
        simulation) or ``.csv`` (a theorem's measured table)."""
        fam, item = self.read_of(family, ref)
        suffix = "safetensors" if item.kind == "simulation" else "csv"
        return f"results/{fam}/{item.name}.{suffix}"
