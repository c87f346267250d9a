"""The search tree cut into subtrees, so that one IDA* iteration can be shared out.

The frontier is every path of the blank that the move-pruning machine allows
(patterndb.build.movefsm) to a fixed depth,
in the order a depth-first search meets them, cut where there are enough of
them. It depends only on the board and the target count, never on the
thread count, so a checkpoint written with -j 2 resumes with -j 1 or on a
cluster.

Within one iteration, subtree i is searched by walking its path from the
root (checking each node on it against the bound exactly as the DFS kernels
would) and then running the DFS kernel below it. The nodes above the
frontier are shared by many subtrees; each is counted by the first subtree
whose path reaches it (first[i], the depth where path i leaves path i - 1),
so the expanded and generated counts over all subtrees equal those of one
serial IDA* pass, and searching subtrees 0, 1, 2, ... in order is the
serial search.
"""

from __future__ import annotations

import numpy as np

from patterndb.jit import njit

from .heuristic import COLS, KIND, PDB, PDB_MAX, REFLECT, h_full, has_zero_aware, scratch_size
from .idastar import dfs_generic
from .idastar_max import dfs_max
from .idastar_pdb import dfs_pdb, dfs_pdb_ahead, dfs_pdb_ahead_zero, dfs_pdb_zero
from .moves import (
    EXHAUSTED,
    FOUND,
    LIMIT,
    MAX_DEPTH,
    NO_BOUND,
    STOPPED,
    meter_spent,
    next_bound,
    settle,
    slide,
    solution_parity,
)

# Columns of the per-subtree result rows.
STATUS, EXPANDED, GENERATED, NEXT_F, GOAL_DEPTH = range(5)
SKIPPED = np.int64(4)  # status of a subtree whose path is pruned above the frontier


@njit(cache=True)
def frontier(fsm, nbrs, state0, blank, target):
    """(paths[m, d + 1], first[m]): the blank paths from the root that the
    move-pruning machine fsm (in state0 at the root) allows, to the smallest
    depth d with at least target of them, in depth-first order. A path the
    machine ends early (every move from it would repeat a shorter sequence)
    keeps its place, padded with -1, so that its nodes are counted too."""
    paths = np.full((1, 1), blank, dtype=np.int64)
    states = np.full(1, state0, dtype=np.int64)
    while paths.shape[0] < target and paths.shape[1] < 64:
        m, w = paths.shape
        count = 0
        grown = 0
        for i in range(m):
            kids = 0
            if paths[i, w - 1] >= 0:
                for d in range(4):
                    if fsm[states[i], d] >= 0:
                        kids += 1
            count += max(kids, 1)
            grown += kids
        if grown == 0:  # a tiny board whose every path ends within the machine's depth
            break
        nxt = np.full((count, w + 1), -1, dtype=np.int64)
        nxt_states = np.full(count, -1, dtype=np.int64)
        k = 0
        for i in range(m):
            kids = 0
            if paths[i, w - 1] >= 0:
                for d in range(4):
                    s = fsm[states[i], d]
                    if s >= 0:
                        nxt[k, :w] = paths[i]
                        nxt[k, w] = nbrs[paths[i, w - 1], d]
                        nxt_states[k] = s
                        k += 1
                        kids += 1
            if kids == 0:
                nxt[k, :w] = paths[i]
                k += 1
        paths = nxt
        states = nxt_states
    m, w = paths.shape
    first = np.zeros(m, dtype=np.int64)
    for i in range(1, m):
        j = 0
        while paths[i, j] == paths[i - 1, j]:
            j += 1
        first[i] = j
    return paths, first


@njit(cache=True)
def root_bound(board, goal, H):
    """(first bound, parity of every solution's length) of a search from board: its heuristic
    value, raised to the parity. One kernel call where the driver made four, each with its
    arguments checked (kernels that answer in a microsecond cost tens in Python)."""
    pos = np.empty(board.size, dtype=np.int64)
    for c in range(board.size):
        pos[board[c]] = c
    G = scratch_size(H)
    h0 = h_full(board, pos, H, np.zeros(G, dtype=np.int64), np.zeros(G, dtype=np.int64))
    parity = solution_parity(pos[0], goal, H[COLS])
    return next_bound(h0, parity), parity


@njit(cache=True, inline="always")
def _node_f(board, pos, H, depth, bound, greg, gref):
    """f of a node as the DFS kernels compute it when they generate it (for
    a partition's PDBs the mirrored sum only when the regular one does not prune)."""
    if H[KIND] != PDB:  # (a catalogue: the whole maximum, as its kernel takes for the next bound)
        return depth + h_full(board, pos, H, greg, gref)
    h_full(board, pos, H, greg, gref)
    f = depth + greg.sum()
    if f <= bound and H[REFLECT]:
        f = max(f, depth + gref.sum())
    return f


@njit(cache=True, nogil=True)
def search_subtrees(
    board0,
    goal,
    H,
    nbrs,
    fsm,
    state0,
    paths,
    first,
    indices,
    bound,
    budget,
    stop,
    results,
    solution,
):
    """Search the subtrees paths[indices] in order at this bound.

    results[k] gets (status, expanded, generated, next f, goal depth) of
    subtree indices[k]. Stops at the first FOUND (solution[0..depth] is the
    blank's path), LIMIT (budget > 0 expansions in this call, or the shared
    meter's limit: moves.METER) or STOPPED;
    rows after it are left untouched. Returns the number of rows written.
    """
    n = board0.size
    w = paths.shape[1]
    zero = has_zero_aware(H)
    board = np.empty(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    G = scratch_size(H)
    greg = np.zeros(G, dtype=np.int64)
    gref = np.zeros(G, dtype=np.int64)
    cells = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    spent = 0
    for k in range(indices.size):
        i = indices[k]
        left = budget - spent
        if stop[0] != 0 or (budget > 0 and left <= 0) or meter_spent(stop, 0):
            results[k, STATUS] = STOPPED if stop[0] != 0 else LIMIT
            results[k, NEXT_F] = NO_BOUND
            return k + 1
        board[:] = board0
        for c in range(n):
            pos[board[c]] = c
        expanded = 0
        generated = 0
        status = EXHAUSTED
        nxt = NO_BOUND
        goal_depth = -1
        cells[0] = paths[i, 0]
        state = state0
        top = w - 1  # the subtree's root: the path's end
        while paths[i, top] < 0:
            top -= 1
        for j in range(top + 1):  # walk the path, counting the nodes seen first here
            if j > 0:
                c = paths[i, j]
                d = 0
                while nbrs[cells[j - 1], d] != c:
                    d += 1
                state = fsm[state, d]
                slide(board, pos, board[c], c, cells[j - 1])
                cells[j] = c
                f = _node_f(board, pos, H, j, bound, greg, gref)
                if j >= first[i]:
                    generated += 1
                if f > bound:
                    nxt = f
                    status = SKIPPED
                    break
                if j >= first[i] and f == j and np.array_equal(board, goal):
                    status = FOUND
                    goal_depth = j
                    break
            if j >= first[i]:
                # (a deep piece's path would pass the threads' shared limit)
                if meter_spent(stop, expanded):
                    status = LIMIT
                    break
                expanded += 1
        settle(stop, expanded, 0)
        if status == EXHAUSTED:
            left = max(1, left - expanded) if budget > 0 else 0
            if H[KIND] == PDB_MAX:
                status, goal_depth, e, g, nxt = dfs_max(
                    board, pos, goal, H, nbrs, fsm, cells, state, top, bound, left, stop
                )
            # (prefetching pays on 4x4 boards, not on 5x5: see idastar_pdb)
            elif H[KIND] == PDB and n <= 16 and zero:
                status, goal_depth, e, g, nxt = dfs_pdb_ahead_zero(
                    board, pos, goal, H, nbrs, fsm, cells, state, top, bound, left, stop
                )
            elif H[KIND] == PDB and n <= 16:
                status, goal_depth, e, g, nxt = dfs_pdb_ahead(
                    board, pos, goal, H, nbrs, fsm, cells, state, top, bound, left, stop
                )
            elif H[KIND] == PDB and zero:
                status, goal_depth, e, g, nxt = dfs_pdb_zero(
                    board, pos, goal, H, nbrs, fsm, cells, state, top, bound, left, stop
                )
            elif H[KIND] == PDB:
                status, goal_depth, e, g, nxt = dfs_pdb(
                    board, pos, goal, H, nbrs, fsm, cells, state, top, bound, left, stop
                )
            else:
                status, goal_depth, e, g, nxt = dfs_generic(
                    board, pos, goal, H, nbrs, fsm, cells, state, top, bound, left, stop
                )
            expanded += e
            generated += g
        spent += expanded
        results[k, STATUS] = status
        results[k, EXPANDED] = expanded
        results[k, GENERATED] = generated
        results[k, NEXT_F] = nxt
        results[k, GOAL_DEPTH] = goal_depth
        if status == FOUND:
            solution[: goal_depth + 1] = cells[: goal_depth + 1]
            stop[0] = 2  # the other workers stop too
            return k + 1
        if status == LIMIT or status == STOPPED:
            return k + 1
    return indices.size


@njit(cache=True, nogil=True)
def search_root(
    board0,
    goal,
    H,
    nbrs,
    fsm,
    state0,
    paths,
    first,
    bound,
    parity,
    small,
    budget,
    stop,
    rows,
    solution,
):
    """IDA* iterations from the root (paths, first: the root as subtree 0), one after the other
    in one call while they stay small: a kernel call from the driver costs about 0.1 ms of
    Python around it, as much as a 15-puzzle's early iterations (Korf's 100 took 4.6 calls a
    board).

    rows[k] = (bound, then search_subtrees's result row) of the k-th iteration. The next
    bound is searched only after an exhausted iteration of fewer than `small` expansions,
    while the budget (> 0: expansions over all the iterations) lasts, no stop is asked for and
    rows has room. Returns the number of rows written.
    """
    index = np.zeros(1, dtype=np.int64)
    result = np.zeros((1, 5), dtype=np.int64)
    spent = 0
    for k in range(rows.shape[0]):
        search_subtrees(
            board0,
            goal,
            H,
            nbrs,
            fsm,
            state0,
            paths,
            first,
            index,
            bound,
            budget - spent if budget > 0 else 0,
            stop,
            result,
            solution,
        )
        rows[k, 0] = bound
        rows[k, 1:] = result[0]
        spent += result[0, EXPANDED]
        if (
            result[0, STATUS] != EXHAUSTED
            or result[0, EXPANDED] >= small
            or result[0, NEXT_F] == NO_BOUND
            or (budget > 0 and spent >= budget)
            or stop[0] != 0
        ):
            return k + 1
        bound = next_bound(result[0, NEXT_F], parity)
    return rows.shape[0]
