"""Jobs that only draw or judge do not import torch (issue 13: start-up is most of their time).

Static: the module-level imports of each judge's module and each figure or table script, followed
through sigprop (imports inside functions and under ``TYPE_CHECKING`` are lazy and not
followed). The jobs listed below still import torch; the list may only shrink.
"""

import ast
import subprocess
import sys
from pathlib import Path

from sigprop.papers import load_registry
from sigprop.pipeline.fingerprint import imported_names, module_file

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"torch", "torchvision"}

STILL_IMPORT_TORCH = {
    # figure scripts that reuse a simulation module's helpers (lyapunov, the isometry examples);
    # every judge is torch-free. The Thm. 1 and W2-depth scripts import torch only inside the
    # table functions that compute alpha_hat with ``gaussianity`` (not at start-up).
    "draw:isometry.fig4_1",
}


def _module_level_imports(path: Path, package: str) -> set[str]:
    """Absolute module names imported at module level (not in functions, not TYPE_CHECKING)."""
    names: set[str] = set()

    def visit(body):
        for node in body:
            names.update(imported_names(node, package))
            if isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                    visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)

    visit(ast.parse(path.read_text()).body)
    return names


def _imports_torch(modules: set[str]) -> bool:
    seen, todo = set(), list(modules)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        if module.split(".")[0] in HEAVY:
            return True
        path = module_file(module)
        if path is not None:
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            todo.extend(_module_level_imports(path, package))
            todo.append(package)  # a package's __init__ runs first
    return False


def _heavy_jobs() -> set[str]:
    heavy = set()
    for family, item in load_registry().judged():
        if _imports_torch({item.judge.__module__}):
            heavy.add(f"judge:{family}.{item.name}")
        if item.kind != "theorem":
            script = ROOT / "workflow" / "scripts" / item.script_path
            if _imports_torch(_module_level_imports(script, "")):
                heavy.add(f"draw:{family}.{item.name}")
    return heavy


def test_draw_and_judge_jobs_do_not_import_torch():
    heavy = _heavy_jobs()
    assert heavy <= STILL_IMPORT_TORCH, sorted(heavy - STILL_IMPORT_TORCH)
    assert len(heavy) == len(STILL_IMPORT_TORCH), (
        f"no longer import torch, remove from STILL_IMPORT_TORCH: {STILL_IMPORT_TORCH - heavy}"
    )


def _loaded_after(imports: str) -> set[str]:
    """The top-level packages a fresh interpreter holds after ``imports``."""
    code = (
        f"import sys\n{imports}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return set(out.stdout.split())


def test_the_job_glue_loads_without_torch_or_seaborn():
    """What every draw and judge job imports (the glue, the store, claims, plotting): seaborn
    costs half a second through scipy.stats; the figure style is its theme as an rc file."""
    loaded = _loaded_after(
        "import sigprop.pipeline.jobs, sigprop.base.store, sigprop.verdicts.claims, "
        "sigprop.verdicts.plotting, "
        "sigprop.base.registry, sigprop.pipeline.job_benchmarks, sigprop.engine.stats"
    )
    assert not loaded & {"torch", "torchvision", "seaborn"}, loaded


def test_datasets_load_torchvision_only_when_read():
    """torchvision (a second of start-up through its models) is imported by the jobs that read
    a dataset, not by every job whose module imports sigprop.datasets.data."""
    assert "torchvision" not in _loaded_after(
        "import sigprop.datasets.data, sigprop.papers.gradients.bn_mlp"
    )


def test_the_snakefile_process_imports_no_torch():
    """Every Snakemake process (the main one, each cluster job's) loads the registry, the
    preflight and the shipped config's checks: none of it imports torch or torchvision (about 5 s
    of start-up each); item tables name torch modules' functions lazily (``lazy_modules``)."""
    code = (
        "import sys, yaml\n"
        "from sigprop.datasets.data import preflight\n"
        "from sigprop.papers import load_registry\n"
        "from sigprop.verdicts import claims\n"
        "from sigprop.pipeline import fingerprint, job_benchmarks, job_resources\n"
        "from sigprop.pipeline import jobs, run_info\n"
        f"config = yaml.safe_load(open({str(ROOT / 'config' / 'config.yaml')!r}))\n"
        "load_registry().check_config(config)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'torchvision')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout[:500]
