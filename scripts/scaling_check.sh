#!/usr/bin/env bash
# One 24-puzzle search on many cores, in one short run (sized for a machine lent for minutes):
# -j MAX against -j 1, and --scheduler local:MAX (Dask) against -j MAX, on the same boards.
#
#   scripts/scaling_check.sh RESULTS_DIR [PATTERN]
#
# First compiles the search kernels and builds PATTERN's tables (default z6-6-6-6, 5x5,
# blank-first goal) side by side where they are missing (about 2 minutes on 16 cores; SETUP=0
# skips it). Then runs scripts/bench_korf24.py on $LINES (default "37 28" of $FILE, default
# data/korf24_50.txt) ROUNDS times (default 3) at -j MAX (default: every core) and with
# local:MAX, in turn, with -j 1 once after the first round; the first round and -j 1 are traced
# (RESULTS_DIR/<how>/lineN.jsonl, for scripts/simulate_scaling.py). Then, if BIG is set and the
# run is still under BIG_BEFORE seconds (default 300), those lines once at -j MAX. Each step
# prints the bench's table and `time`'s wall, CPU and peak memory; a wrong length fails the
# bench loudly. The end prints the speed-ups from the medians of the boards' summed search
# seconds. local:MAX needs Dask (pip install -e '.[cluster]'); LOCAL=0 leaves it out.
case "${1:-}" in -h|--help|"") sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; [ -n "${1:-}" ]; exit $?;; esac
set -u
mkdir -p "$1"
res=$(cd "$1" && pwd)
pat=${2:-z6-6-6-6}
lines=${LINES:-37 28}
file=$(realpath "${FILE:-$(dirname "$0")/../data/korf24_50.txt}")
shape=$(awk '!/^#/ && NF {print NF; exit}' "$file")
max=${MAX:-$(nproc)}
cd "$(dirname "$0")/.."
timed() {  # a command under /usr/bin/time where there is one
    if [ -x /usr/bin/time ]; then /usr/bin/time -f "   %e s wall, %U s user, %S s sys, %M KB peak" "$@"
    else time "$@"; fi
}
step() { echo; echo "== $* ($(date +%T), ${SECONDS} s in, load $(cut -d' ' -f1-3 /proc/loadavg))"; }
bench() {  # NAME ARGS...: one bench run, its output kept as RESULTS_DIR/NAME.txt
    local name=$1; shift
    timed "$PY" scripts/bench_korf24.py --file "$file" --pattern "$pat" "$@" 2>&1 | tee "$res/$name.txt"
}

PY=${PYTHON:-python3}
solver() { "$PY" -c "import sys; sys.argv[0] = 'solver'; from solver.cli import main; main()" "$@"; }
pdb() { "$PY" -c "import sys; sys.argv[0] = 'pdb'; from patterndb.cli import main; main()" "$@"; }

if [ "${SETUP:-1}" != 0 ]; then
    step "setup: solver compile beside pdb build --pattern $pat"
    solver compile --check >/dev/null 2>&1 || solver compile >&2 &
    compiling=$!
    case "$shape" in
        25) pdb build --size 5 --goal blank-first --pattern "$pat" >&2 ;;
        *) pdb build --size 4 --goal blank-first --pattern "$pat" >&2 ;;
    esac
    wait "$compiling"
fi


for r in $(seq "${ROUNDS:-3}"); do
    trace=()
    [ "$r" = 1 ] && trace=(--trace-dir "$res/j$max")
    step "round $r, -j $max: lines $lines"
    bench "j$max-$r" $lines -j "$max" "${trace[@]}"
    [ "$r" = 1 ] && trace=(--trace-dir "$res/local$max")
    if [ "${LOCAL:-1}" != 0 ]; then
        step "round $r, local:$max: lines $lines"
        bench "local$max-$r" $lines --scheduler "local:$max" "${trace[@]}"
    fi
    if [ "$r" = 1 ]; then
        step "-j 1: lines $lines"
        bench j1 $lines -j 1 --trace-dir "$res/j1"
    fi
done
if [ -n "${BIG:-}" ] && [ "$SECONDS" -lt "${BIG_BEFORE:-300}" ]; then
    step "-j $max: lines $BIG"
    bench "big$max" $BIG -j "$max"
fi
step "summary"
"$PY" - "$res" "$max" $lines <<'EOF'
import glob, statistics, sys
res, top, lines = sys.argv[1], sys.argv[2], set(sys.argv[3:])

def seconds(path):
    """The boards' summed search seconds in one bench output (rows: line, length, ..., s, M/s)."""
    total = 0.0
    for row in open(path):
        f = row.replace(",", "").split()
        if len(f) >= 6 and f[0] in lines and f[1].isdigit():
            total += float(f[-2])
    return total

runs = {how: [seconds(p) for p in sorted(glob.glob(f"{res}/{how}-*.txt"))]
        for how in (f"j{top}", f"local{top}")}
j1 = seconds(f"{res}/j1.txt") if glob.glob(f"{res}/j1.txt") else None
for how, s in runs.items():
    print(f"{how}: " + ", ".join(f"{x:.2f}" for x in s) + (f"  median {statistics.median(s):.2f} s" if s else ""))
if j1:
    print(f"j1: {j1:.2f} s")
jm = runs[f"j{top}"]
lm = runs[f"local{top}"]
if j1 and jm:
    print(f"-j {top} speed-up over -j 1 (median): {j1 / statistics.median(jm):.2f}x")
if jm and lm:
    print(f"local:{top} / -j {top} (medians): {statistics.median(lm) / statistics.median(jm):.2f}")
    print("per round: " + ", ".join(f"{l / j:.2f}" for j, l in zip(jm, lm)))
EOF
