#!/usr/bin/env bash
# One 24-puzzle search on many cores (issue 26): the -j sweep, where a thread's speed goes at
# high thread counts, and Dask against threads, in one run for a machine lent for minutes.
#
#   scripts/scaling_sweep.sh RESULTS_DIR [PATTERN]        # tables built, kernels compiled
#
# Steps, most telling first (a run cut short keeps what it finished):
#   1. scripts/bench_korf24.py $LINES at -j 1 and -j $MAX (traced: RESULTS_DIR/jJ/lineN.jsonl);
#   2. $PLINE at -j 1 in 1, MAX/2 and MAX independent processes at once: if MAX processes run as
#      slowly per process as MAX threads, the loss is the machine's (shared caches, memory, SMT),
#      not the search's (nothing is shared between processes but the tables' page cache);
#   3. -j $MAX with the tables read into memory instead of memory-mapped;
#   4. --scheduler local:$MAX (Dask), traced;
#   5. -j MAX/2; then $BIG (if set: bigger boards) at -j MAX; then -j MAX/4 and -j 2; traced.
# Each step prints the bench's table and `time`'s wall, CPU and peak memory; a wrong length
# fails the bench loudly (exit 1) and the sweep goes on to the next step.
# Environment: LINES (default "37 28"), PLINE (25), MAX (every core), BIG (none), AFTER (a command run after
# each step, e.g. to pack the results).
set -u
res=${1:?usage: scaling_sweep.sh RESULTS_DIR [PATTERN]}
pat=${2:-z6-6-6-6}
lines=${LINES:-37 28}
pline=${PLINE:-25}
max=${MAX:-$(nproc)}
after=${AFTER:-true}
mkdir -p "$res"
cd "$(dirname "$0")/.."

timed() {  # a command under /usr/bin/time where there is one
    if [ -x /usr/bin/time ]; then /usr/bin/time -f "   %e s wall, %U s user, %S s sys, %M KB peak" "$@"
    else time "$@"; fi
}
bench=(python3 scripts/bench_korf24.py --pattern "$pat")
step() { echo; echo "== $* ($(date +%T), load $(cut -d' ' -f1-3 /proc/loadavg))"; }

sweep() {
    for j in "$@"; do
        step "-j $j: lines $lines"
        timed "${bench[@]}" $lines -j "$j" --trace-dir "$res/j$j"
        eval "$after"
    done
}

sweep 1 "$max"

for n in $(printf "%s\n" 1 $((max / 2)) "$max" | sort -nu); do
    step "$n processes at once, each line $pline -j 1"
    for i in $(seq "$n"); do "${bench[@]}" "$pline" -j 1 >"$res/procs$n-$i.txt" 2>&1 & done
    wait
    grep -h "^ *$pline " "$res"/procs"$n"-*.txt | tr -d , | awk '{print; s += $6; g += $5} END {
        printf "   %d processes: mean %.2f s, %.2f M generated/s per process\n", NR, s / NR, g / s / 1e6}'
    eval "$after"
done

step "-j $max, tables read into memory (not mapped): lines $lines"
timed python3 - $lines -j "$max" --pattern "$pat" <<'EOF'
import runpy, sys
import patterndb.catalog as catalog
catalog.map_tables = lambda paths, expects: None  # map_checked then reads the tables
sys.argv = ["bench_korf24.py", *sys.argv[1:]]
runpy.run_path("scripts/bench_korf24.py", run_name="__main__")
EOF
eval "$after"

step "--scheduler local:$max: lines $lines"
timed "${bench[@]}" $lines --scheduler "local:$max" --trace-dir "$res/local$max"
eval "$after"

[ "$max" -gt 2 ] && sweep $((max / 2))
if [ -n "${BIG:-}" ]; then
    step "-j $max: lines $BIG"
    timed "${bench[@]}" $BIG -j "$max" --trace-dir "$res/big$max"
    eval "$after"
fi
rest=()
for j in $((max / 4)) 2; do [ "$j" -gt 1 ] && [ "$j" -lt $((max / 2)) ] && rest+=("$j"); done
[ ${#rest[@]} -gt 0 ] && sweep "${rest[@]}"
step "done"
