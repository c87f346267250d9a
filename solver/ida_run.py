"""An IDA* search as the API runs it: the driver with its checkpoint, trace and progress
listeners, or a race of two heuristics first (search.race), resumed where a checkpoint left it."""

from __future__ import annotations

import os
import platform
import time

from patterndb import Board, BoardError

from .heuristics import Heuristic
from .ida import Driver, Problem, ThreadBackend
from .ida.checkpoint import Checkpoint, Resumed, identity, saved_heuristic
from .ida.lookahead import search_on
from .ida.progress import Fanout
from .ida.race import Race, race
from .ida.state import Backend, Listener, SearchState
from .ida.threads import default_jobs
from .ida.trace import Trace
from .plan import Control, Plan, quiet
from .solution import SearchStopped


def run_idastar(
    problems: list[tuple[Heuristic, Problem]],
    plan: Plan,
    control: Control,
    start: float,
    canonical_board: Board,
) -> tuple[list[int], int, int, list[dict], Resumed | None, Heuristic, Race | None]:
    """Run the IDA* driver with the plan's heuristic, or with the winner of a race of two
    (search.race); (path, expanded, generated, iterations, where it resumed, the heuristic
    that searched, the race) or SearchStopped. A checkpoint is held by this search alone
    while it runs (Checkpoint.claimed)."""
    if control.checkpoint is None:
        return _run(problems, plan, control, start, canonical_board)
    holder = Checkpoint(control.checkpoint, {})
    holder.check_writable()
    with holder.claimed():
        return _run(problems, plan, control, start, canonical_board)


def _run(
    problems: list[tuple[Heuristic, Problem]],
    plan: Plan,
    control: Control,
    start: float,
    canonical_board: Board,
) -> tuple[list[int], int, int, list[dict], Resumed | None, Heuristic, Race | None]:
    opts = plan.options
    resume, path, ckpt, resumed, raced = None, None, None, None, None
    listener = control.listener
    log = control.log or quiet
    deadline = None if opts.timeout is None else time.monotonic() + opts.timeout
    backend = control.backend or ThreadBackend(opts.jobs or default_jobs())
    chosen = 0  # the heuristic searching without a race
    h, problem = problems[chosen]
    racing = len(problems) > 1
    if racing and control.backend is not None:
        if opts.pattern and "|" in opts.pattern:
            raise BoardError(
                f"a race of two heuristics ({opts.pattern}) runs on this machine's threads: "
                "give --pattern one of them to search on a cluster"
            )
        racing = False  # a race's name (best) on a cluster: its first side, as the workers' plans have it
    if racing:
        names = [hh.name for hh, _ in problems]
        saved = saved_heuristic(control.checkpoint) if control.checkpoint is not None else None
        if saved in names:  # resumed: the heuristic that won the race before
            chosen = names.index(saved)
            h, problem = problems[chosen]
            racing = False
    out = None
    # The time-out stops the kernels themselves when it comes (they read the stop flag every
    # few thousand nodes): the driver looks at the clock only between kernel calls, and a
    # thread of a batch runs whole iterations in one call (--timeout 0.5 stopped at 1.3 s).
    with control.stop.searching(opts.timeout):
        if racing:
            names = tuple(hh.name for hh, _ in problems)
            legs = [
                Driver(
                    p,
                    backend,
                    control.stop,
                    listener,
                    opts.max_nodes or 0,
                    deadline,
                    control.split_nodes,
                )
                for _, p in problems
            ]
            # Both sides' tables mapped in and their pages read once before either leg runs, so
            # that neither leg's CPU pays for first reads: a catalogue whose tables had just
            # been read from disk took twice its CPU for the deciding bound and lost the race.
            for hh, _ in problems:
                hh.populate(settle=True)
            raced = race(*legs, names, control.stop, deadline=deadline)
            h, problem = problems[raced.winner]
            out, resume = raced.outcome, raced.state
            log(f"raced {names[0]} against {names[1]}: {h.name} searches on ({raced.summary()})")
        ckpt = trace = None

        def follow(i: int, state: SearchState | None) -> Listener | None:
            """The listeners of the search with problems[i]'s heuristic from state (None: from
            its checkpoint or its start): its checkpoint (saved at once where state is given)
            and trace, in place of any earlier one's."""
            nonlocal ckpt, trace, resume, path, resumed
            hh, pp = problems[i]
            if control.checkpoint is not None:
                ident = identity(
                    str(canonical_board),
                    str(plan.frame.canonical_goal),
                    plan.algorithm,
                    hh.name,
                    hh.tables,
                    plan.machine.depth,
                )
                ckpt = Checkpoint(control.checkpoint, ident, control.checkpoint_every, log)
                if state is not None:
                    ckpt.save(state)  # the winner's finished iterations, before it goes on
                else:
                    resume, path = ckpt.load(pp)
                    if path is None:
                        ckpt.check_writable()
                    if resume is not None:
                        resumed = ckpt.resumed(resume, path)
                        log(str(resumed))
            if control.trace is not None and path is None and out is None:
                if trace is not None:
                    trace.close()
                trace = Trace(
                    control.trace,
                    _trace_header(pp, plan, hh, backend, str(canonical_board), control),
                    log,
                )
            return listener if ckpt is None and trace is None else Fanout(listener, ckpt, trace)

        try:
            if racing and out is None:

                def attach(i: int, state: SearchState) -> None:
                    nonlocal h, problem
                    h, problem = problems[i]
                    legs[i].listener = follow(i, state)
                    legs[i].record = None if trace is None else trace.chunk

                out = search_on(raced, legs, names, control.stop, attach, deadline, log)
                h, problem = problems[raced.winner]
            elif not racing:
                followed = follow(chosen, None)
                if path is None:
                    out = Driver(
                        problem,
                        backend,
                        control.stop,
                        followed,
                        opts.max_nodes or 0,
                        deadline,
                        control.split_nodes,
                        None if trace is None else trace.chunk,
                    ).run(resume)
            elif control.checkpoint is not None:
                follow(raced.winner, raced.state)  # the race ended the search: its winner's state
        finally:
            if trace is not None:
                trace.close()
    lost_e, lost_g = (raced.lost_expanded, raced.lost_generated) if raced is not None else (0, 0)
    if out is not None:
        state, path = out.state, out.path
        if ckpt is not None:
            ckpt.save(state, path or None)
        if out.status != "found":
            raise SearchStopped(
                out.status,
                plan.algorithm,
                out.lower_bound,
                state.total_expanded + state.unfinished_expanded + lost_e,
                state.total_generated + state.unfinished_generated + lost_g,
                time.perf_counter() - start,
                [it.to_dict() for it in state.iterations],
                None if resumed is None else resumed.to_dict(),
                h.name,
                None if raced is None else raced.to_dict(),
            )
    else:
        state = resume
    return (
        path,
        state.total_expanded + lost_e,
        state.total_generated + lost_g,
        [it.to_dict() for it in state.iterations],
        resumed,
        h,
        raced,
    )


def _trace_header(
    problem: Problem, plan: Plan, h: Heuristic, backend: Backend, board: str, control: Control
) -> dict:
    """What a trace says about its search (h: its heuristic) and the machine it ran on."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "board": board,
        "goal": str(plan.frame.canonical_goal),
        "heuristic": h.name,
        "jobs": backend.jobs,
        "backend": type(backend).__name__,
        "frontier": len(problem.frontier()[0]),
        "split_nodes": control.split_nodes,
        "prune": plan.machine.depth,
        "cpus": os.cpu_count(),
        "load_average": None if load is None else [round(x, 2) for x in load],
        "machine": platform.node(),
        "processor": platform.processor() or platform.machine(),
    }
