#!/usr/bin/env bash
# A/B of one 24-puzzle search on many cores: a base tree against this one, run in turn.
#
#   git worktree add /tmp/base 078b875          # or any copy of the base's patterndb/ solver/ scripts/ data/
#   scripts/scaling_ab.sh /tmp/base [PATTERN]   # tables built; `solver compile` run in both trees
#
# Each round runs scripts/bench_korf24.py $LINES for the base, then for this tree, with
# -j $MAX threads and then with --scheduler local:$MAX (Dask), untraced; a wrong length fails
# the bench loudly (exit 1). Then, if BIG is set, those lines once each with this tree at -j MAX
# and local:MAX. Environment: LINES (default "37 28"), MAX (every core), ROUNDS (2), BIG (none),
# BASE_AOT (the base's PATTERNDB_AOT: `solver compile` keeps one tree's kernels in a directory),
# AFTER (a command run after each step, e.g. to pack the results).
set -u
base=${1:?usage: scaling_ab.sh BASE_TREE [PATTERN]}
base=$(cd "$base" && pwd)
pat=${2:-z6-6-6-6}
lines=${LINES:-37 28}
max=${MAX:-$(nproc)}
after=${AFTER:-true}
cd "$(dirname "$0")/.."
here=$(pwd)

timed() {  # a command under /usr/bin/time where there is one
    if [ -x /usr/bin/time ]; then /usr/bin/time -f "   %e s wall, %U s user, %S s sys, %M KB peak" "$@"
    else time "$@"; fi
}
step() { echo; echo "== $* ($(date +%T), load $(cut -d' ' -f1-3 /proc/loadavg))"; }
run() {  # TREE ARGS...: the bench of that tree, its packages first on the path
    local tree=$1 aot=${PATTERNDB_AOT:-}; shift
    [ "$tree" = "$base" ] && aot=${BASE_AOT:-$aot}
    PATTERNDB_AOT=$aot PYTHONPATH="$tree${PYTHONPATH:+:$PYTHONPATH}" \
        timed python3 "$tree/scripts/bench_korf24.py" --pattern "$pat" "$@"
}

for r in $(seq "${ROUNDS:-2}"); do
    for how in "-j $max" "--scheduler local:$max"; do
        for tree in "$base" "$here"; do
            step "round $r, $([ "$tree" = "$here" ] && echo this || echo base) tree, $how: lines $lines"
            run "$tree" $lines $how
            eval "$after"
        done
    done
done
if [ -n "${BIG:-}" ]; then
    for how in "-j $max" "--scheduler local:$max"; do
        step "this tree, $how: lines $BIG"
        run "$here" $BIG $how
        eval "$after"
    done
fi
step "done"
