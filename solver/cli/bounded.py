"""`solver solve --within R` and `--anytime`: a solution with a proven bound (solver.bounded.anytime),
its progress on stderr, and the answer with its lower bound and gap."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import click

from patterndb import Board
from patterndb.cli.common import UserError

from ..bounded.anytime import Bounded, solve_bounded
from ..plan import Control, Plan
from ..solution import ClusterError, SearchStopped
from .common import EXIT_CLUSTER, EXIT_STOPPED, connect_cluster, err, process_seconds
from .signals import stop_on_signals


def verdict(result: Bounded) -> str:
    sol = result.solution
    if result.optimal:
        return f"optimal ({sol.proof})"
    return (
        f"within {100 * result.gap:.1f}% of optimal: no solution is shorter than {result.lower_bound} "
        f"(lower bound proven by IDA* with admissible {result.heuristic})"
    )


def progress(quiet: bool, prefix: str = "", moves: bool = True) -> Callable[[dict], None]:
    """What a bounded search prints on stderr as it goes: each better solution (its moves too
    where `moves`) or higher bound, once there is a solution."""

    def update(event: dict) -> None:
        if quiet or event["length"] is None:
            return
        length, bound = event["length"], event["lower_bound"]
        gap = 0.0 if length == bound else length / bound - 1 if bound else float("inf")
        line = (
            f"{prefix}{event['seconds']:7.2f}s  length {event['length']}  no solution shorter than "
            f"{event['lower_bound']}  gap {100 * gap:.1f}%"
        )
        if moves and "moves" in event:
            line += "  tiles: " + " ".join(map(str, event["moves"]))
        err(line)

    return update


def solve_within(
    board: Board,
    plan: Plan,
    *,
    within: float | None,
    as_json: bool,
    quiet: bool,
    scheduler: str | None,
    cluster_timeout: float,
    timings: dict | None = None,
) -> None:
    """Search, print what was found and proven, and exit: 0 when the asked bound (or, for
    --anytime, the optimum) is proven; else the stopped search's status, the best solution
    found and its bound printed all the same. With a scheduler, the IDA* that proves the
    bound runs its big iterations on that Dask cluster (the upper-bound searches here); a
    cluster that fails is exit 5, as for the optimal search. timings: what --json adds about
    the tables' and kernels' loading (load_seconds, kernels, kernel_seconds)."""
    extra = {"within": within, **(timings or {})}
    control = Control()
    try:
        with (
            stop_on_signals(control.stop.request),
            connect_cluster(scheduler, cluster_timeout) as cluster,
        ):
            if cluster is not None:
                control.backend = cluster.backend(plan)
            result = solve_bounded(board, plan, within, control, progress(quiet))
    except ClusterError as e:
        raise UserError(str(e), EXIT_CLUSTER) from None
    except SearchStopped as e:  # (stopped before any solution)
        if as_json:
            # (no solution: no gap; ended as the search was stopped)
            answer = e.to_dict() | {"ended": e.reason, "gap": None} | extra
            click.echo(
                json.dumps(
                    answer
                    | {"board": str(board), "goal": str(plan.frame.goal)}
                    | {"process_seconds": process_seconds()}
                )
            )
        err(str(e))
        sys.exit(EXIT_STOPPED.get(e.reason, 4))
    sol = result.solution
    if as_json:
        click.echo(json.dumps(result.to_dict() | extra | {"process_seconds": process_seconds()}))
    else:
        click.echo(f"length: {sol.length}  {verdict(result)}")
        click.echo("tiles:  " + " ".join(str(t) for t in sol.moves))
        click.echo("blank:  " + sol.directions)
        click.echo(
            f"lower bound: {result.lower_bound}  gap: {100 * result.gap:.1f}%  ({result.reason}, "
            f"{sol.seconds:.3f}s)"
        )
    if result.reason not in ("optimal", "within"):
        err(f"stopped ({result.reason}) with the best solution found and the bound proven so far")
        sys.exit(EXIT_STOPPED.get(result.reason, 4))
