"""Plain, slow reference implementations the fast kernels are tested against.

Nothing here imports the kernels it checks: states are tuples, searches are
dict-based, ranks come from itertools' lexicographic order.
"""

from __future__ import annotations

from collections import deque
from itertools import combinations, permutations


def neighbours(rows: int, cols: int, cell: int) -> list[int]:
    r, c = divmod(cell, cols)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < rows and 0 <= c + dc < cols:
            out.append((r + dr) * cols + c + dc)
    return out


def region(rows: int, cols: int, seed: int, free: set[int]) -> set[int]:
    """Cells reachable from seed through free cells (breadth-first)."""
    seen = {seed}
    todo = deque([seed])
    while todo:
        for c in neighbours(rows, cols, todo.popleft()):
            if c in free and c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def successors(state: tuple, rows: int, cols: int):
    b = state.index(0)
    for c in neighbours(rows, cols, b):
        s = list(state)
        s[b], s[c] = s[c], 0
        yield tuple(s)


def bfs_distances(goal: tuple, rows: int, cols: int) -> dict[tuple, int]:
    """Distance of every reachable board (cell -> tile tuples) to goal."""
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        for t in successors(s, rows, cols):
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    return dist


def lex_rank(perm: tuple) -> int:
    """Rank of a permutation in lexicographic order, by counting."""
    n = len(perm)
    r = 0
    rest = sorted(perm)
    fact = 1
    for i in range(2, n):
        fact *= i
    for i, p in enumerate(perm):
        r += rest.index(p) * fact
        rest.remove(p)
        if n - 1 - i > 0:
            fact //= n - 1 - i
    return r


def all_perm_ranks(n: int) -> dict[tuple, int]:
    return {p: i for i, p in enumerate(permutations(range(n)))}


def manhattan(state: tuple, goal: tuple, cols: int) -> int:
    h = 0
    for c, t in enumerate(state):
        if t:
            g = goal.index(t)
            h += abs(c // cols - g // cols) + abs(c % cols - g % cols)
    return h


def transpose(state: tuple, cols: int) -> tuple:
    """The state mirrored about the main diagonal of a square board whose goal holds tile t
    in cell t: the tile in cell (r, c) goes to (c, r) and is renamed the tile whose goal
    cell that is."""

    def t(cell):
        return cell % cols * cols + cell // cols

    out = [0] * len(state)
    for cell, tile in enumerate(state):
        out[t(cell)] = t(tile)
    return tuple(out)


def misplaced(state: tuple, goal: tuple) -> int:
    return sum(1 for s, g in zip(state, goal) if s and s != g)


def replay(state: tuple, tiles: list[int], rows: int, cols: int) -> tuple:
    """Apply 'slide tile t into the blank' moves, checking adjacency."""
    s = list(state)
    for t in tiles:
        b, c = s.index(0), s.index(t)
        assert c in neighbours(rows, cols, b), f"tile {t} is not next to the blank"
        s[b], s[c] = t, 0
    return tuple(s)


def pattern_table(
    rows: int, cols: int, goal_cells: tuple, goal_blank: int, per_blank: bool = False
) -> dict:
    """Korf-Felner pattern database by 0-1 BFS over (pattern tile cells, blank cell):
    moving a pattern tile costs 1, moving any other tile costs 0. Returns
    placement -> fewest pattern moves, minimised over blank cells; with per_blank,
    (placement, blank cell) -> fewest pattern moves (what a zero-aware table holds)."""
    start = (tuple(goal_cells), goal_blank)
    dist = {start: 0}
    dq = deque([start])
    while dq:
        state = dq.popleft()
        cells, blank = state
        d = dist[state]
        for c in neighbours(rows, cols, blank):
            if c in cells:
                i = cells.index(c)
                nxt = (cells[:i] + (blank,) + cells[i + 1 :], c)
                cost = 1
            else:
                nxt = (cells, c)
                cost = 0
            if nxt not in dist or dist[nxt] > d + cost:
                dist[nxt] = d + cost
                if cost:
                    dq.append(nxt)
                else:
                    dq.appendleft(nxt)
    if per_blank:
        return dist
    best: dict[tuple, int] = {}
    for (cells, _), d in dist.items():
        if cells not in best or d < best[cells]:
            best[cells] = d
    return best


def blank_free_table(rows: int, cols: int, goal_cells: tuple) -> dict:
    """The pattern tiles alone, the blank anywhere: BFS over their cells, a tile moving
    at cost 1 to a neighbouring cell no other pattern tile holds. placement -> distance."""
    start = tuple(goal_cells)
    dist = {start: 0}
    todo = deque([start])
    while todo:
        cells = todo.popleft()
        for i, c in enumerate(cells):
            for b in neighbours(rows, cols, c):
                if b not in cells:
                    nxt = cells[:i] + (b,) + cells[i + 1 :]
                    if nxt not in dist:
                        dist[nxt] = dist[cells] + 1
                        todo.append(nxt)
    return dist


def redundant_paths(rows: int, cols: int, depth: int) -> set[tuple[int, ...]]:
    """Every blank path (as cells) of up to `depth` moves whose effect on the board an
    earlier path from the same cell has, earlier meaning fewer moves, or as many and
    an earlier direction string (U < D < L < R). Every path is tried, none pruned."""
    out = set()
    for start in range(rows * cols):
        seen = set()
        level = [((start,), tuple(range(rows * cols)))]
        for _ in range(depth + 1):
            nxt = []
            for path, board in level:  # in length-then-direction order
                if board in seen:
                    out.add(path)
                seen.add(board)
                b = path[-1]
                for c in neighbours(rows, cols, b):
                    t = list(board)
                    t[b], t[c] = t[c], t[b]
                    nxt.append((path + (c,), tuple(t)))
            level = nxt
    return out


def allowed(path: tuple[int, ...], redundant: set | None) -> bool:
    """Does the last move of path keep it free of redundant sub-paths (None: is it not an undo)?"""
    if redundant is None:
        return len(path) < 3 or path[-1] != path[-3]
    return not any(path[i:] in redundant for i in range(len(path) - 1))


def blank_paths(
    rows: int, cols: int, blank: int, depth: int, redundant: set | None = None
) -> list[list[int]]:
    """Every path of the blank of `depth` moves without an immediate undo (or, given redundant,
    without a redundant sub-path), in depth-first order."""
    paths = [(blank,)]
    for _ in range(depth):
        paths = [
            p + (c,)
            for p in paths
            for c in neighbours(rows, cols, p[-1])
            if allowed(p + (c,), redundant)
        ]
    return [list(p) for p in paths]


def idastar(
    state: tuple, goal: tuple, rows: int, cols: int, h, redundant: set | None = None, tiebreak=None
) -> tuple[int, list[tuple[int, int, int]]]:
    """Recursive IDA* (no immediate undo; given redundant, no path with a redundant
    sub-path): (solution length, [(bound, expanded, generated)] per iteration).

    Counts as the kernels do: a node is expanded when it is within the bound
    and not the goal (the root included), generated when its parent makes it;
    the last iteration stops at the first goal in depth-first order. Bounds
    step to the smallest f over the last one, raised to the solution parity.
    Children are visited in the neighbours' order as they are made; given
    tiebreak (a function of a state), a node makes all its children first and
    visits those within the bound by (f, tiebreak(child)), ties in the
    neighbours' order (the look-ahead PDB kernel's order)."""
    blank, gblank = state.index(0), goal.index(0)
    parity = (abs(blank // cols - gblank // cols) + abs(blank % cols - gblank % cols)) & 1
    iterations = []

    def dfs(s, g, path, bound, counts):
        counts[0] += 1
        b = s.index(0)
        nxt = None
        later = []  # (f, tiebreak, order made, cell, child): visited after all are made

        def visit(c, t):
            if t == goal:
                return g + 1, None
            return dfs(t, g + 1, path + (c,), bound, counts)

        for c in neighbours(rows, cols, b):
            if not allowed(path + (c,), redundant):
                continue
            t = list(s)
            t[b], t[c] = t[c], 0
            t = tuple(t)
            counts[1] += 1
            f = g + 1 + h(t)
            if f > bound:
                nxt = f if nxt is None else min(nxt, f)
                continue
            if tiebreak is not None:
                later.append((f, tiebreak(t), len(later), c, t))
                continue
            found, sub = visit(c, t)
            if found is not None:
                return found, None
            if sub is not None:
                nxt = sub if nxt is None else min(nxt, sub)
        for _, _, _, c, t in sorted(later):
            found, sub = visit(c, t)
            if found is not None:
                return found, None
            if sub is not None:
                nxt = sub if nxt is None else min(nxt, sub)
        return None, nxt

    if state == goal:
        return 0, []
    f = h(state)
    while True:
        bound = f + ((f & 1) ^ parity)
        counts = [0, 0]
        found, f = dfs(state, 0, (blank,), bound, counts)
        iterations.append((bound, counts[0], counts[1]))
        if found is not None:
            return found, iterations


def line_conflicts(state: tuple, goal: tuple, rows: int, cols: int) -> int:
    """2 x, over every row and column, the tiles at home in it (their goal is in that line) that
    must leave it so that the others can pass: those at home there less the most of them that
    stand in their goal order (by trying every subset)."""
    total = 0
    for along_rows in (True, False):
        for line in range(rows if along_rows else cols):
            cells = (
                [line * cols + j for j in range(cols)]
                if along_rows
                else [i * cols + line for i in range(rows)]
            )
            home = []
            for c in cells:
                t = state[c]
                g = goal.index(t) if t else -1
                if t and (g // cols if along_rows else g % cols) == line:
                    home.append(g % cols if along_rows else g // cols)
            in_order = max(
                k
                for k in range(len(home) + 1)
                if any(list(sub) == sorted(sub) for sub in combinations(home, k))
            )
            total += 2 * (len(home) - in_order)
    return total


def beam(
    state: tuple, goal: tuple, rows: int, cols: int, h, width: int, below: int = 10**4, rank=None
) -> tuple[list[int] | None, int]:
    """Beam search as solver.search.beam states it: (the solution's blank cells or None, states
    generated). Depth by depth, every kept state's children in the neighbours' order (never
    the move undoing the last one), the goal returned as soon as it is made; children with
    depth + h below `below` sorted by rank(child, its h) (default h; stably), the first `width`
    of them kept, a state kept once only over the whole search."""
    blank = state.index(0)
    if state == goal:
        return [blank], 0
    level = [(state, [blank])]
    kept = {state}
    generated = 0
    for depth in range(1, below):
        children = []
        for s, path in level:
            b = path[-1]
            for c in neighbours(rows, cols, b):
                if len(path) >= 2 and c == path[-2]:
                    continue
                t = list(s)
                t[b], t[c] = t[c], 0
                t = tuple(t)
                generated += 1
                if t == goal:
                    return path + [c], generated
                ht = h(t)
                if depth + ht < below:
                    children.append((ht if rank is None else rank(t, ht), t, path + [c]))
        if not children:
            return None, generated
        children.sort(key=lambda child: child[0])
        level = []
        for _, t, path in children:
            if len(level) == width:
                break
            if t not in kept:
                kept.add(t)
                level.append((t, path))
    return None, generated


def nibble_decode(
    packed, entries: int, rows: int, cols: int, goal_cells: tuple[int, ...]
) -> list[int]:
    """h of every entry of a 4-bit table, by the rule its attributes state: the group's
    Manhattan distance + 2 x the entry's nibble (low nibble first)."""
    n = rows * cols
    out = []
    for r, placement in enumerate(permutations(range(n), len(goal_cells))):  # rank order
        if r == entries:
            break
        md = sum(
            abs(p // cols - g // cols) + abs(p % cols - g % cols)
            for p, g in zip(placement, goal_cells)
        )
        out.append(md + 2 * ((int(packed[r // 2]) >> (4 * (r % 2))) & 15))
    return out


def zero_aware_values(data, layout: dict, rows: int, cols: int, md, keys) -> dict:
    """h of entries of a zero-aware table (patterndb.build.zeroaware's layout, decoded from its
    description; layout: its attributes), per key (cells, blank): the group's i-th tile on
    cells[i], the blank on cell blank."""
    n = rows * cols
    fc, nb = layout["flag_code"], layout["region_bytes"]
    dense = layout["prefix_at"] < 0
    # (bytes; the rest is padding)
    codes_end = layout["regions_at"] if dense else layout["prefix_at"]
    code = [(int(data[x // 2]) >> (4 * (x % 2))) & 15 for x in range(2 * codes_end)]
    flagged_before = [0]  # (the prefix is a shortcut to this count)
    for c in code:
        flagged_before.append(flagged_before[-1] + (c >= fc))
    out = {}
    for cells, blank in keys:
        r, used = 0, []
        for i, p in enumerate(cells):
            r = r * (n - i) + p - sum(u < p for u in used)
            used.append(p)
        m = int(sum(md[i, c] for i, c in enumerate(cells)))
        if code[r] < fc:
            out[cells, blank] = m + 2 * code[r]
            continue
        at = layout["regions_at"] + nb * (r if dense else flagged_before[r])
        w = int.from_bytes(bytes(data[at : at + nb]), "little")
        j = sum(
            1
            for c in range(min(region(rows, cols, blank, set(range(n)) - set(used))))
            if c not in used
        )
        out[cells, blank] = m + 2 * (code[r] - fc + ((w >> j) & 1))
    return out
