"""The import graph: no circle among the modules of either package, patterndb never
imports solver, and the kernel registry (solver.search.aot) imports nothing above it.

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
                    base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
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
    assert {(m, t) for m in edges if m.startswith("patterndb") for t in edges[m] if t.startswith("solver")} == set()


def test_the_kernel_registry_reaches_only_kernels():
    """solver.search.aot, and everything it imports, stays below the driver and the heuristics'
    Python layer: it reaches none of them, nor the compile step."""
    reached = _reach(import_graph(), "solver.search.aot")
    above = {"solver.search.parallel", "solver.search.threads", "solver.search.state", "solver.search.table_walk", "solver.compile_kernels", "solver.api",
             "solver.heuristics.base", "solver.heuristics.pdb", "solver.heuristics", "solver.search"}
    assert reached & above == set()
