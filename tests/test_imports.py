"""The import graph: no circle among the modules of either package, patterndb never
imports solver, every folder imports only from its layer or those below (docs/design.md), and
the kernel registry (solver.search.aot) imports nothing above it.

Every import statement counts, those inside functions too (a deferred import is still a
dependency). As import-linter's grimp does, `from pkg import name` is an edge to the
module pkg.name when there is one, else to pkg; a package's __init__ is its own node."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("patterndb", "solver")


def _modules() -> dict[str, tuple[Path, bool]]:
    mods = {}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            mods[".".join(parts[:-1] if is_pkg else parts)] = (p, is_pkg)
    return mods


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, (path, is_pkg) in mods.items():
        here = m.split(".") if is_pkg else m.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(
                        here[: len(here) - node.level + 1] + ([node.module] if node.module else [])
                    )
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names
                ]
            else:
                continue
            edges[m] |= {t for t in targets if t in mods and t != m}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _reach(edges: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for w in edges[todo.pop()] - seen:
            seen.add(w)
            todo.append(w)
    return seen


def test_no_module_imports_itself_through_others():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_patterndb_never_imports_solver():
    edges = import_graph()
    assert {
        (m, t)
        for m in edges
        if m.startswith("patterndb")
        for t in edges[m]
        if t.startswith("solver")
    } == set()


def test_the_kernel_registry_reaches_only_kernels():
    """solver.search.aot, and everything it imports, stays below the driver and the heuristics'
    Python layer: it reaches none of them, nor the compile step."""
    reached = _reach(import_graph(), "solver.search.aot")
    assert {m for m in reached if m.startswith(("solver.ida", "solver.heuristics"))} == set()
    assert reached & {"solver.compile_kernels", "solver.api", "solver.plan", "solver"} == set()


# The folders' layers, lowest first: a module imports only from its own layer or those below.
LAYERS = [
    ("patterndb", "patterndb.errors", "patterndb.jit", "patterndb.lazy", "patterndb.bits"),
    ("patterndb.puzzle",),  # shapes, boards, the frame, ranking, symmetries, patterns
    ("patterndb.build",),  # the BFS builders, move-pruning machines, proofs
    ("patterndb.files",),  # HDF5 files, checks, the catalogue, the data directory
    ("patterndb.cli",),  # the `pdb` command
    ("solver.search",),  # numba kernels and their registry
    ("solver.heuristics",),  # heuristics behind one interface
    ("solver.ida",),  # the IDA* driver: threads, checkpoints, traces, races
    ("solver",),  # the API: plans, the heuristic chosen, runs, batches, solutions
    ("solver.cluster", "solver.bounded"),  # Dask; solutions with a proven bound
    ("solver.web", "solver.cli"),  # the page, the `solver` command
]


def layer_of(module: str) -> int:
    """The layer of the longest prefix naming module's folder (a package's top-level modules
    are the package's own layer)."""
    best = (-1, -1)
    for i, names in enumerate(LAYERS):
        for name in names:
            top = name in ("patterndb", "solver")
            if module == name or (
                module.startswith(name + ".") and (not top or module.count(".") == 1)
            ):
                best = max(best, (len(name), i))
    assert best[1] >= 0, f"{module} is in no layer"
    return best[1]


def test_every_module_imports_only_its_own_layer_or_those_below():
    edges = import_graph()
    upward = {(m, t) for m in edges for t in edges[m] if layer_of(t) > layer_of(m)}
    assert upward == set()


def test_the_layer_check_sees_an_upward_import():
    assert layer_of("solver.search.beam") < layer_of("solver.ida.parallel")
    assert layer_of("solver.api") < layer_of("solver.cli.solve")
    assert layer_of("patterndb.build.exact") < layer_of("patterndb.files.catalog")
    assert layer_of("patterndb.files.catalog") < layer_of("solver.search")
