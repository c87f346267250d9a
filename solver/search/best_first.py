"""One best-first search for BFS, greedy, A* and weighted A*.

They differ only in the ordering key wg * g + wh * h:
BFS (uniform cost) wg=1, wh=0; greedy wg=0, wh=1; A* 1, 1; weighted A* 1, w.
Ties go to the larger g. Nodes are stored in growable arrays; a typed dict
maps a packed board to its node. A node whose g improves is reopened, so A*
stays optimal with admissible but inconsistent heuristics.
"""

from __future__ import annotations

import heapq

import numpy as np

from patterndb.jit import defer, njit, types

from .heuristic import h_full, scratch_size

FOUND, EXHAUSTED, LIMIT, STOPPED = 0, 1, 2, 3
STOP_EVERY = 1024  # expansions between two looks at the stop flag


def _typed_dict():
    from numba.typed import Dict

    return Dict


_KEY = defer(lambda: types.UniTuple(types.int64, 5))
Dict = defer(_typed_dict)


@njit(cache=True, inline="always")
def _key(board):
    """The board packed into five int64 (6 bits a cell, ten cells a word: up to 7x7)."""
    w = np.zeros(5, dtype=np.int64)
    for c in range(board.size):
        w[c // 10] |= np.int64(board[c]) << np.int64(6 * (c % 10))
    return (w[0], w[1], w[2], w[3], w[4])


@njit(cache=True, nogil=True)  # (it runs beside IDA*'s threads in solver.bounded.anytime)
def best_first_kernel(board0, goal, H, nbrs, wg, wh, max_nodes, stop):
    """Returns (status, path of blank cells, expanded, generated); stop[0] != 0 stops it (STOPPED)."""
    n = board0.size
    cap = 1024
    boards = np.empty((cap, n), dtype=np.int8)
    parent = np.empty(cap, dtype=np.int64)
    gs = np.empty(cap, dtype=np.int64)
    closed = np.zeros(cap, dtype=np.bool_)
    index = Dict.empty(key_type=_KEY, value_type=types.int64)
    greg = np.zeros(scratch_size(H), dtype=np.int64)
    gref = np.zeros(scratch_size(H), dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    board = board0.copy()
    for c in range(n):
        pos[board[c]] = c
    boards[0] = board
    parent[0] = -1
    gs[0] = 0
    count = 1
    index[_key(board)] = 0
    h0 = h_full(board, pos, H, greg, gref) if wh != 0.0 else 0
    heap = [(wh * h0, 0, np.int64(0))]
    expanded = 0
    generated = 0
    while heap:
        _, _, node = heapq.heappop(heap)
        if closed[node]:
            continue
        board[:] = boards[node]
        if np.array_equal(board, goal):
            # Follow the parents to the start, not gs[node] steps: a node whose g fell after
            # its children were stored keeps them a step further than its new g says.
            steps = 0
            i = node
            while parent[i] >= 0:
                steps += 1
                i = parent[i]
            path = np.empty(steps + 1, dtype=np.int64)
            i = node
            for j in range(steps, -1, -1):
                for c in range(n):
                    if boards[i, c] == 0:
                        path[j] = c
                i = parent[i]
            return FOUND, path, expanded, generated
        closed[node] = True
        expanded += 1
        if expanded % STOP_EVERY == 0 and stop[0] != 0:
            return STOPPED, np.zeros(1, dtype=np.int64), expanded, generated
        if max_nodes > 0 and count >= max_nodes:
            return LIMIT, np.zeros(1, dtype=np.int64), expanded, generated
        for c in range(n):
            pos[board[c]] = c
        b = pos[0]
        g = gs[node] + 1
        for d in range(4):
            c = nbrs[b, d]
            if c < 0:
                continue
            t = board[c]
            board[b] = t
            board[c] = 0
            generated += 1
            key = _key(board)
            child = np.int64(-1)
            if key in index:
                child = index[key]
            if child < 0 or g < gs[child]:
                if child < 0:
                    if count == cap:
                        cap *= 2
                        boards2 = np.empty((cap, n), dtype=np.int8)
                        boards2[:count] = boards[:count]
                        boards = boards2
                        parent = np.concatenate((parent, np.empty(cap - count, dtype=np.int64)))
                        gs = np.concatenate((gs, np.empty(cap - count, dtype=np.int64)))
                        closed = np.concatenate((closed, np.zeros(cap - count, dtype=np.bool_)))
                    child = count
                    count += 1
                    index[key] = child
                    boards[child] = board
                closed[child] = False
                parent[child] = node
                gs[child] = g
                if wh != 0.0:
                    pos[t] = b
                    pos[0] = c
                    h = h_full(board, pos, H, greg, gref)
                    pos[t] = c
                    pos[0] = b
                else:
                    h = 0
                heapq.heappush(heap, (wg * g + wh * h, -g, child))
            board[c] = t
            board[b] = 0
    return EXHAUSTED, np.zeros(1, dtype=np.int64), expanded, generated
