"""The Python API the `solver` command is a thin layer over.

    from solver import solve
    solve("8 6 7 2 5 4 3 _ 1").length   # 31

Boards are mapped into the canonical frame (patterndb.frame), searched there,
and the moves are mapped back to the caller's tile numbers and directions.
A Plan (algorithm plus loaded heuristic) is made once per board shape and
goal and reused for every board of a batch.
"""
from __future__ import annotations

import dataclasses
import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence, Union

import numpy as np

from patterndb import Board, BoardError, Frame, TableError, make_goal, parse_board
from patterndb.board import check_solvable
from patterndb.catalog import build_exact_file, exact_path, pattern_expect
from patterndb.datadir import resolve_data_dir
from patterndb.machines import DEPTH_MAX, load_default, load_or_build
from patterndb.movefsm import MoveMachine
from patterndb.patterns import (group_label, is_zero_aware, named_partitions, parse_catalog,
                                parse_partition, pattern_tiles, race_spec)
from patterndb.attrs import check_attrs
from patterndb.store import read_attrs
from patterndb.symmetry import catalogue_sums

from . import heuristics
from .heuristics import Heuristic
from .heuristics.pdb import cached, cached_catalogue, catalogue
from .search import ALGORITHMS, BEST_FIRST_KEYS, Driver, Problem, StopFlag, ThreadBackend, best_first_kernel, table_walk
from .checkpoint import SAVE_INTERVAL, Checkpoint, Resumed, identity, saved_heuristic
from .progress import Fanout
from .search.parallel import SPLIT_NODES, Backend, Listener, default_jobs
from .search.race import Race, race
from .solution import NodeLimitReached, SearchStopped, Solution
from .trace import Trace

AUTO_BUILD_CELLS = 9  # exact tables this small are built on first use (about a second)
DEFAULT_MAX_NODES = 20_000_000

Log = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


@dataclass(frozen=True)
class Options:
    """What the caller asked for; None means 'the best available'."""

    algorithm: str | None = None
    heuristic: str | None = None
    weight: float = 2.0
    data_dir: Path | None = None
    max_nodes: int | None = None
    pattern: str | None = None
    pdb_files: tuple[Path, ...] = ()
    reflect: bool = True
    jobs: int | None = None  # IDA* worker threads for one board (None: every core)
    timeout: float | None = None  # seconds before IDA* stops with what it has proven
    prune: int | None = None  # IDA*'s move-pruning depth (2: only undo; None: the shape's default)


@dataclass
class Control:
    """How a long IDA* search is watched, stopped and resumed (all optional).

    stop: request() ends the search within milliseconds (SearchStopped; a request made
    before the search starts ends it at once), and is cleared when that search ends;
    listener: told of iterations and finished subtrees (progress);
    checkpoint: a file the search state is saved to (every checkpoint_every
    seconds as subtrees finish, after each iteration, on a stop, and with
    the solution) and resumed from when it exists (checked first: see
    solver.checkpoint; a save that fails is reported to log and the search
    goes on);
    backend: where the subtrees run (default: threads of this process);
    trace: a file that records who searched which subtrees when (solver.trace)."""

    stop: StopFlag = field(default_factory=StopFlag)
    listener: Listener | None = None
    checkpoint: Path | None = None
    checkpoint_every: float = SAVE_INTERVAL
    backend: Backend | None = None
    split_nodes: int = SPLIT_NODES  # iterations expected bigger than this are split into subtrees
    log: Log | None = None  # told where a resumed search starts, and of checkpoints that cannot be saved
    trace: Path | None = None  # a file to record every chunk of subtrees in (solver.trace)


@dataclass(frozen=True)
class Plan:
    frame: Frame
    algorithm: str
    heuristic: Heuristic
    options: Options
    machine: MoveMachine  # the move-pruning machine IDA* uses
    load_seconds: float = 0.0  # making it: reading (or building) its tables and machine
    rival: Heuristic | None = None  # "A|B": IDA* races heuristic (A) against this one per board (search.race)

    def problem(self, tiles: np.ndarray, heuristic: Heuristic | None = None) -> Problem:
        """What IDA* searches for a board in this plan's frame (its canonical tiles): with
        this plan's heuristic, or the one given (the rival of a race), and its machine."""
        h = self.heuristic if heuristic is None else heuristic
        return Problem(np.asarray(tiles, dtype=np.int64), self.frame.canonical_goal.tiles.astype(np.int64), h.H,
                       self.frame.shape.neighbours, self.machine)

    def populate(self) -> None:
        """Map all of its tables' pages now (Heuristic.populate), for a batch of boards: in
        bulk, a quarter of what the page faults of the searches would cost."""
        for h in (self.heuristic, self.rival):
            if h is not None:
                h.populate()


BoardLike = Union[Board, str, Sequence[int], np.ndarray]


def as_board(board: BoardLike, rows: int | None = None, cols: int | None = None) -> Board:
    """A Board from any notation parse_board reads, or from a sequence of tiles (0 = blank)."""
    if isinstance(board, Board):
        return board
    if isinstance(board, (list, tuple, np.ndarray)):
        tiles = list(np.asarray(board).ravel()) if isinstance(board, np.ndarray) else list(board)
        if not all(isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_)) for t in tiles):
            raise BoardError("a board given as a sequence must hold the tiles as integers (0 = blank)")
        board = " ".join(str(int(t)) for t in tiles)
    return parse_board(board, rows, cols)


def prepare(board: BoardLike, goal: BoardLike, rows: int | None = None, cols: int | None = None) -> tuple[Board, Frame]:
    """Parse, check solvability, and fix the canonical frame."""
    board = as_board(board, rows, cols)
    goal_board = make_goal(board.shape, goal if isinstance(goal, str) else as_board(goal, board.shape.rows,
                                                                                    board.shape.cols))
    check_solvable(board, goal_board)
    return board, Frame.for_goal(goal_board)


def _build_hint(frame: Frame, pattern: str) -> str:
    s = frame.shape
    size = f"--size {s.rows}" if s.rows == s.cols else f"--rows {s.rows} --cols {s.cols}"
    goal = "" if frame.key == Frame.for_goal(make_goal(s, "blank-last")).key else f" --goal '{frame.goal}'"
    return f"pdb build {size}{goal} --pattern {pattern}"


def exact_available(frame: Frame, data_dir: Path) -> bool:
    return exact_path(data_dir, frame).exists() or frame.shape.n <= AUTO_BUILD_CELLS


def exact_heuristic(frame: Frame, data_dir: Path, log: Log) -> Heuristic:
    """The exact table, built on first use for boards of up to 9 cells."""
    if not exact_path(data_dir, frame).exists() and frame.shape.n <= AUTO_BUILD_CELLS:
        log(f"building the exact {frame.shape} table in {data_dir} (first use) ...")
        build_exact_file(frame, data_dir)
    return heuristics.exact(frame, data_dir)


def _pdb_from_files(frame: Frame, files: tuple[Path, ...], reflect: bool) -> Heuristic:
    groups = []
    for f in files:
        attrs = read_attrs(f)
        if attrs.get("kind") != "pdb":
            raise TableError(f"{f} is not a pattern database (kind {attrs.get('kind')!r})")
        tiles = tuple(int(t) for t in attrs["tiles"])
        check_attrs(f, attrs, pattern_expect(frame, tiles))
        if set(pattern_tiles(tiles)) & {t for g in groups for t in pattern_tiles(g)}:
            raise BoardError(f"{f} overlaps another --pdb table: groups must be disjoint")
        groups.append(tiles)
    return heuristics.pdb(frame, tuple(groups), list(files), "/".join(group_label(g) for g in groups), reflect)


def _pdb_named(frame: Frame, pattern: str, data_dir: Path, reflect: bool) -> Heuristic:
    parts = parse_catalog(pattern, frame)
    if len(parts) > 1:
        sums = catalogue_sums(frame, parts, reflect)
        found = cached_catalogue(frame, sums, data_dir)
        if found is not None:
            return catalogue(frame, sums, *found, pattern)
    else:
        paths = cached(frame, parts[0], data_dir)
        if paths is not None:
            return heuristics.pdb(frame, parts[0], paths, pattern, reflect)
    raise TableError(f"pattern {pattern} is not built for {frame.shape} in {data_dir}: run '{_build_hint(frame, pattern)}'")


def strongest_pdb(frame: Frame, data_dir: Path, reflect: bool) -> Heuristic | None:
    """The first fully cached named partition (they are listed strongest first), zero-aware
    before plain."""
    for name, part in named_partitions(frame.shape.rows, frame.shape.cols).items():
        for spec in (name,) if any(map(is_zero_aware, part)) else (f"z{name}", name):
            if cached(frame, parse_partition(spec, frame), data_dir) is not None:
                return _pdb_named(frame, spec, data_dir, reflect)
    return None


def cached_race(frame: Frame, data_dir: Path, reflect: bool) -> tuple[Heuristic, Heuristic] | None:
    """The board's "best" race (patterns.RACES) when both its sides are built, else None."""
    spec = race_spec("best", frame)
    if "|" not in spec:
        return None
    try:
        return _race_sides(frame, spec.split("|"), data_dir, reflect)
    except TableError:
        return None


def _race_sides(frame: Frame, specs: list[str], data_dir: Path, reflect: bool) -> tuple[Heuristic, Heuristic]:
    """A race's two heuristics, loaded from their specs (cheaper per node first)."""
    return tuple(_pdb_named(frame, spec, data_dir, reflect) for spec in specs)


def choose_heuristic(opts: Options, frame: Frame, data_dir: Path, log: Log) -> Heuristic:
    """The requested heuristic, or the strongest one available."""
    name = opts.heuristic
    if opts.pdb_files or opts.pattern:
        if name not in (None, "pdb"):
            raise BoardError(f"--pattern/--pdb choose pattern databases: they do not go with --heuristic {name}")
        if opts.pdb_files:
            return _pdb_from_files(frame, opts.pdb_files, opts.reflect)
        return _pdb_named(frame, opts.pattern, data_dir, opts.reflect)
    goal = frame.canonical_goal
    if name == "exact" or (name is None and exact_available(frame, data_dir)):
        return exact_heuristic(frame, data_dir, log)
    if name in heuristics.CLASSIC:
        return heuristics.CLASSIC[name](goal)
    if name not in (None, "pdb"):
        raise BoardError(f"unknown heuristic {name!r}: choose from {', '.join([*heuristics.CLASSIC, 'exact', 'pdb'])}")
    h = strongest_pdb(frame, data_dir, opts.reflect)
    # The hint names the strongest plain partition: quicker to build, smaller, faster per node.
    named = [k for k, part in named_partitions(frame.shape.rows, frame.shape.cols).items()
             if not any(map(is_zero_aware, part))]
    if h is None and name == "pdb":
        hint = f": run '{_build_hint(frame, named[0])}'" if named else ""
        raise TableError(f"no pattern databases cached for {frame.shape} in {data_dir}{hint}")
    if h is None:
        if named:
            log(f"no pattern databases cached for {frame.shape}; '{_build_hint(frame, named[0])}' would make this much faster")
        return heuristics.linear_conflict(goal)
    return h


def _race_pair(opts: Options, frame: Frame, data_dir: Path, algorithm: str) -> tuple[Heuristic, Heuristic]:
    """The two heuristics of a race spec "A|B": A cheaper per node, B stronger (search.race)."""
    specs = [p.strip() for p in race_spec(opts.pattern, frame).split("|")]
    if len(specs) != 2 or not all(specs):
        raise BoardError(f"a race is two patterns joined by '|' (cheaper per node first), not {opts.pattern!r}")
    if algorithm != "idastar":
        raise BoardError(f"a race of two heuristics ({opts.pattern}) is for idastar, not {algorithm}")
    if opts.heuristic not in (None, "pdb") or opts.pdb_files:
        raise BoardError(f"--pattern {opts.pattern} chooses the heuristics: it does not go with --heuristic or --pdb")
    return _race_sides(frame, specs, data_dir, opts.reflect)


def make_plan(frame: Frame, opts: Options, log: Log = _quiet) -> Plan:
    started = time.perf_counter()
    ddir = resolve_data_dir(opts.data_dir)
    algorithm = opts.algorithm
    if algorithm is None:
        wants_exact = opts.heuristic in (None, "exact") and not opts.pattern and not opts.pdb_files
        algorithm = "table" if wants_exact and exact_available(frame, ddir) else "idastar"
    if algorithm not in ALGORITHMS:
        raise BoardError(f"unknown algorithm {algorithm!r}: choose from {', '.join(ALGORITHMS)}")
    rival = None
    if algorithm in ("bfs", "iddfs"):
        if opts.heuristic is not None or opts.pattern or opts.pdb_files:
            raise BoardError(f"{algorithm} is blind: it takes no heuristic")
        h = heuristics.blind(frame.canonical_goal)
    elif algorithm == "table":
        if opts.heuristic not in (None, "exact") or opts.pattern or opts.pdb_files:
            raise BoardError("the table walk uses the exact table: it takes no other heuristic")
        h = exact_heuristic(frame, ddir, log)
    elif opts.pattern and "|" in race_spec(opts.pattern, frame):
        if algorithm == "idastar" or "|" in opts.pattern:
            h, rival = _race_pair(opts, frame, ddir, algorithm)
        else:  # a race's name for another algorithm: its first side
            h = _pdb_named(frame, race_spec(opts.pattern, frame).split("|")[0], ddir, opts.reflect)
    elif (algorithm == "idastar" and not opts.pattern and not opts.pdb_files and opts.heuristic in (None, "pdb")
          and (pair := cached_race(frame, ddir, opts.reflect)) is not None):  # the default where it is built
        h, rival = pair
    else:
        h = choose_heuristic(opts, frame, ddir, log)
    if algorithm == "wastar" and not opts.weight >= 1.0:
        raise BoardError(f"the weight of h in wastar must be at least 1, got {opts.weight}")
    for value, what, low in ((opts.max_nodes, "the node limit", 1), (opts.jobs, "the number of threads", 1)):
        if value is not None and not (isinstance(value, (int, np.integer)) and value >= low):
            raise BoardError(f"{what} must be a whole number of at least {low}, got {value!r}")
    if opts.timeout is not None and not opts.timeout > 0:
        raise BoardError(f"the timeout must be more than 0 seconds, got {opts.timeout!r}")
    if opts.prune is not None and not 2 <= opts.prune <= DEPTH_MAX:
        raise BoardError(f"the move-pruning depth must be from 2 to {DEPTH_MAX}, got {opts.prune}")
    if algorithm != "idastar":
        machine = load_or_build(frame.shape, 2, ddir, log)
    elif opts.prune is None:
        machine = load_default(frame.shape, ddir, log)
    else:
        machine = load_or_build(frame.shape, opts.prune, ddir, log)
    return Plan(frame, algorithm, h, opts, machine, time.perf_counter() - started, rival)


def run(board: Board, plan: Plan, control: Control | None = None) -> Solution:
    """Search with a prepared plan (thread-safe: kernels release the GIL).

    Raises SearchStopped when IDA* is stopped (node limit, time-out,
    control.stop) before a solution is proven."""
    start = time.perf_counter()
    frame, algorithm, h, opts = plan.frame, plan.algorithm, plan.heuristic, plan.options
    canon = frame.to_canonical(board)
    tiles = canon.tiles.astype(np.int64)
    iterations: list[dict] = []
    resumed = raced = None
    if algorithm == "table":
        path, generated = table_walk(canon, h.H[4])
        expanded = len(path) - 1
        optimal, proof = True, "exact distance table"
    elif algorithm in ("idastar", "iddfs"):
        problems = [(x, plan.problem(tiles, x)) for x in (h, plan.rival) if x is not None]
        path, expanded, generated, iterations, resumed, h, raced = _idastar(
            problems, plan, control or Control(), start, canon)
        optimal = h.admissible
        proof = "IDDFS" if algorithm == "iddfs" else f"IDA* with admissible {h.name}"
    else:
        wg, wh = BEST_FIRST_KEYS.get(algorithm, (1.0, float(opts.weight)))
        limit = DEFAULT_MAX_NODES if opts.max_nodes is None else opts.max_nodes
        status, path, expanded, generated = best_first_kernel(tiles, frame.canonical_goal.tiles.astype(np.int64), h.H,
                                                                 board.shape.neighbours, wg, wh, limit)
        _check_status(status, algorithm, expanded)
        if algorithm == "bfs":
            optimal, proof = True, "breadth-first search"
        elif algorithm == "greedy":
            optimal, proof = False, "greedy best-first search gives no guarantee"
        elif wh == 1.0 and h.admissible:
            optimal, proof = True, f"A* with admissible {h.name}"
        else:
            optimal, proof = False, f"weighted A* (w={opts.weight}) is only within a factor {opts.weight} of optimal"
    heuristic = "none" if algorithm in ("bfs", "iddfs") else h.name
    sol = _solution(board, canon, frame, [int(c) for c in path], optimal, proof, algorithm, heuristic,
                    expanded, generated, time.perf_counter() - start)
    sol.iterations = iterations
    sol.resumed_from = None if resumed is None else resumed.to_dict()
    sol.race = None if raced is None else raced.to_dict()
    return sol


def _idastar(problems: list[tuple[Heuristic, Problem]], plan: Plan, control: Control, start: float,
             canonical_board: Board) -> tuple[list[int], int, int, list[dict], Resumed | None, Heuristic, Race | None]:
    """Run the IDA* driver with the plan's heuristic, or with the winner of a race of two
    (search.race); (path, expanded, generated, iterations, where it resumed, the heuristic
    that searched, the race) or SearchStopped."""
    opts = plan.options
    resume, path, ckpt, resumed, raced = None, None, None, None, None
    listener = control.listener
    log = control.log or _quiet
    deadline = None if opts.timeout is None else time.monotonic() + opts.timeout
    backend = control.backend or ThreadBackend(opts.jobs or default_jobs())
    h, problem = problems[0]
    racing = len(problems) > 1
    if racing and control.backend is not None:
        if opts.pattern and "|" in opts.pattern:
            raise BoardError(f"a race of two heuristics ({opts.pattern}) runs on this machine's threads: "
                             "give --pattern one of them to search on a cluster")
        racing = False  # a race's name (best) on a cluster: its first side, as the workers' plans have it
    if racing:
        names = [hh.name for hh, _ in problems]
        saved = saved_heuristic(control.checkpoint) if control.checkpoint is not None else None
        if saved in names:  # resumed: the heuristic that won the race before
            h, problem = problems[names.index(saved)]
            racing = False
    if control.checkpoint is not None and racing:
        Checkpoint(control.checkpoint, {}).check_writable()
    out = None
    try:
        if racing:
            raced = race(*(Driver(p, backend, control.stop, listener, opts.max_nodes or 0, deadline, control.split_nodes)
                           for _, p in problems), tuple(names), control.stop, deadline=deadline)
            h, problem = problems[raced.winner]
            out, resume = raced.outcome, raced.state
            log(f"raced {names[0]} against {names[1]}: {h.name} searches on ({raced.summary()})")
        if control.checkpoint is not None:
            ident = identity(str(canonical_board), str(plan.frame.canonical_goal), plan.algorithm, h.name, h.tables,
                             plan.machine.depth)
            ckpt = Checkpoint(control.checkpoint, ident, control.checkpoint_every, log)
            if not racing:
                resume, path = ckpt.load(problem)
                if path is None:
                    ckpt.check_writable()
                if resume is not None:
                    resumed = ckpt.resumed(resume, path)
                    log(str(resumed))
            elif out is None:
                ckpt.save(resume)  # the winner's finished iterations, before it goes on
            listener = Fanout(listener, ckpt)
        if path is None and out is None:
            trace = None
            if control.trace is not None:
                trace = Trace(control.trace, _trace_header(problem, plan, h, backend, str(canonical_board), control), log)
                listener = Fanout(listener, trace)
            try:
                out = Driver(problem, backend, control.stop, listener, opts.max_nodes or 0, deadline,
                             control.split_nodes, None if trace is None else trace.chunk).run(resume)
            finally:
                if trace is not None:
                    trace.close()
    finally:
        control.stop.clear()  # the Control can watch the next solve
    lost_e, lost_g = (raced.lost_expanded, raced.lost_generated) if raced is not None else (0, 0)
    if out is not None:
        state, path = out.state, out.path
        if ckpt is not None:
            ckpt.save(state, path or None)
        if out.status != "found":
            raise SearchStopped(out.status, plan.algorithm, out.lower_bound,
                                state.total_expanded + state.unfinished_expanded + lost_e,
                                state.total_generated + state.unfinished_generated + lost_g,
                                time.perf_counter() - start, [it.to_dict() for it in state.iterations],
                                None if resumed is None else resumed.to_dict())
    else:
        state = resume
    return (path, state.total_expanded + lost_e, state.total_generated + lost_g,
            [it.to_dict() for it in state.iterations], resumed, h, raced)


def _trace_header(problem: Problem, plan: Plan, h: Heuristic, backend: Backend, board: str, control: Control) -> dict:
    """What a trace says about its search (h: its heuristic) and the machine it ran on."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"board": board, "goal": str(plan.frame.canonical_goal), "heuristic": h.name,
            "jobs": backend.jobs, "backend": type(backend).__name__, "frontier": len(problem.frontier()[0]),
            "split_nodes": control.split_nodes, "prune": plan.machine.depth, "cpus": os.cpu_count(),
            "load_average": None if load is None else [round(x, 2) for x in load],
            "machine": platform.node(), "processor": platform.processor() or platform.machine()}


def solve(
    board: BoardLike,
    goal: BoardLike = "blank-last",
    algorithm: str | None = None,
    heuristic: str | None = None,
    weight: float = 2.0,
    data_dir: str | Path | None = None,
    max_nodes: int | None = None,
    rows: int | None = None,
    cols: int | None = None,
    pattern: str | None = None,
    pdb_files: tuple[Path, ...] = (),
    reflect: bool = True,
    log: Log = _quiet,
    jobs: int | None = None,
    timeout: float | None = None,
    checkpoint: str | Path | None = None,
    control: Control | None = None,
    prune: int | None = None,
) -> Solution:
    """Solve a board. By default: walk the exact table when one exists (or is
    small enough to build), else IDA* with the strongest cached heuristic
    (pattern databases, else linear conflict). Raises BoardError for bad
    input, TableError for missing/damaged tables, RuntimeError when a node
    limit stops the search, SearchStopped (a RuntimeError saying what was
    proven) when IDA* is stopped by its node limit, timeout or control.stop.
    jobs: IDA* threads for this board (default: every core); checkpoint: a
    file to save the IDA* search to and resume it from (see Control); prune:
    IDA*'s move-pruning depth (2 prunes only the undo of the last move)."""
    start = time.perf_counter()
    board, frame = prepare(board, goal, rows, cols)
    opts = Options(algorithm, heuristic, weight, Path(data_dir) if data_dir else None, max_nodes,
                   pattern, tuple(Path(p) for p in pdb_files), reflect, jobs, timeout, prune)
    if checkpoint is not None:
        control = dataclasses.replace(control or Control(), checkpoint=Path(checkpoint))
    sol = run(board, make_plan(frame, opts, log), control)
    sol.seconds = time.perf_counter() - start
    return sol


def _check_status(status: int, algorithm: str, expanded: int) -> None:
    """Best-first kernel status to an exception (IDA* raises SearchStopped instead)."""
    if status == 2:
        raise NodeLimitReached(f"{algorithm} stopped at its node limit after {expanded:,} expansions: "
                               "try idastar or raise --max-nodes")
    if status == 1:
        raise RuntimeError(f"{algorithm} exhausted the search space without reaching the goal")


def _solution(board: Board, canon: Board, frame: Frame, path: list[int], optimal: bool, proof: str, algorithm: str,
              heuristic: str, expanded: int, generated: int, seconds: float) -> Solution:
    """Turn a canonical blank-cell path from canon (board in the canonical frame) into the
    caller's tiles and directions, checking each step."""
    dirs = board.shape.directions(path)  # raises unless each step is a move
    tiles = []
    cur = canon.tiles.tolist()  # a plain list: a Board per move cost 1 ms a solve
    for a, b in zip(path, path[1:]):
        tiles.append(cur[b])
        cur[a], cur[b] = cur[b], 0
    if cur != frame.canonical_goal.tiles.tolist():
        raise AssertionError("internal error: the solution does not reach the goal")
    return Solution(
        board=board, goal=frame.goal, moves=frame.tiles_from_canonical(tiles),
        directions=frame.directions_from_canonical(dirs), optimal=optimal, proof=proof,
        algorithm=algorithm, heuristic=heuristic, nodes_expanded=int(expanded),
        nodes_generated=int(generated), seconds=seconds,
    )


def distance(board: BoardLike, goal: BoardLike = "blank-last", data_dir: str | Path | None = None,
             rows: int | None = None, cols: int | None = None, log: Log = _quiet) -> int:
    """Exact distance by table lookup (the table is built on first use for <= 9 cells)."""
    board, frame = prepare(board, goal, rows, cols)
    h = exact_heuristic(frame, resolve_data_dir(data_dir), log)
    return h(frame.to_canonical(board))
