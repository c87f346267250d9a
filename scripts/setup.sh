#!/usr/bin/env bash
# Create .venv (if missing), install the project with its test, cluster, plot and web extras
# (and Playwright, which the page's browser tests drive Chromium with), and compile the
# IDA* kernels ahead of time (solver compile: 1.5-3 minutes on 2 cores, once per checkout, so
# that solve starts without importing numba).
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
echo "installing the project and its test extras into .venv..." >&2
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,cluster,plot,web,browser]'
# An editable install leaves the project's bytecode to its first run, which writes it only where
# Python may (not under PYTHONDONTWRITEBYTECODE, nor in a read-only checkout): every command would
# then compile about 60 modules from source, 0.06-0.07 s of each command's start-up.
.venv/bin/python -m compileall -q patterndb solver >/dev/null
# numba compiles the kernels the commands run through its JIT on their first use, and caches them:
# the warm-ups below do it now, on the second core while the ahead-of-time compile (one core) runs,
# not in the middle of a user's first command.
#   The classic algorithms (A*, greedy, weighted A*, BFS) share one best-first kernel: about 10 s
# once, then under a second. The bounded search's own kernels (`--within`, `--anytime`: the beams,
# the windows), about 20 s once, which a user's first bounded solve would otherwise spend before
# its first solution; with the run before it (weighted A*, linear conflict) they are all that a
# 35-puzzle's bounded search on `strong` compiled (no new file in numba's cache after it): the
# arguments' types do not change with the board's size. And two tables' builds, plain and zero-aware
# (the BFS kernels, the packing, the checks), about 20 s once, into a folder removed after them.
warm() {
    .venv/bin/solver solve "1 2 3 4 5 6 7 _ 8" --algorithm astar --heuristic manhattan >/dev/null 2>&1 || true
    .venv/bin/solver solve "1 2 3 4 5 6 7 _ 8" --within 1.5 --timeout 60 --heuristic manhattan >/dev/null 2>&1 || true
    local tables
    tables=$(mktemp -d)
    .venv/bin/pdb build --size 3 --pattern 4-4 --data-dir "$tables" --quiet >/dev/null 2>&1 || true
    .venv/bin/pdb build --size 3 --pattern z4-4 --data-dir "$tables" --quiet >/dev/null 2>&1 || true  # (zero-aware)
    rm -rf "$tables"
}
echo "warming numba's cache for the classic algorithms, the bounded search and table builds (once per checkout)..." >&2
warm &
warming=$!
trap 'pkill -P "$warming" 2>/dev/null; kill "$warming" 2>/dev/null' EXIT  # (a background job ignores Ctrl-C)
if ! .venv/bin/solver compile --check >/dev/null 2>&1; then
    .venv/bin/solver compile || echo "warning: the compiled kernels could not be built (the line above says why); solve still works, through numba's JIT kernels: same answers, about 0.4 s more per command" >&2
fi
wait "$warming" || true
trap - EXIT
