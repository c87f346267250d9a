#!/usr/bin/env bash
# Make a fresh many-core machine ready for scripts/scaling_sweep.sh and scripts/scaling_ab.sh:
# build the tables and compile the search kernels, side by side.
#
#   scripts/scaling_setup.sh [BASE_TREE]      # then: scripts/scaling_sweep.sh RESULTS z6-6-6-6
#
# Needs numpy, numba, h5py and click (and distributed for local:N); the project need not be
# installed: this tree's packages are put on the path. Tables go to $PATTERNDB_DATA (default:
# data/), this tree's kernels to $PATTERNDB_AOT (default: its own __pycache__), BASE_TREE's (a
# copy of another commit's patterndb/ solver/ scripts/ data/, for scaling_ab.sh) to $BASE_AOT
# (default /tmp/aot_base). The pattern is $PATTERN (default z6-6-6-6). On the 16-core Xeon of
# docs/benchmarks.md it took about 100 s: the four tables in 15-23 s each beside the compiles.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
base=${1:-}
run() { python3 -c "import sys; from $1 import main; sys.argv[0] = '$2'; main()" "${@:3}"; }

PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" run solver.cli solver compile >&2 &
pids=($!)
if [ -n "$base" ]; then
    (cd "$base" && PATTERNDB_AOT=${BASE_AOT:-/tmp/aot_base} PYTHONPATH="$(pwd)${PYTHONPATH:+:$PYTHONPATH}" \
        run solver.cli solver compile >&2) &
    pids+=($!)
fi
PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" run patterndb.cli pdb build --size 5 --goal blank-first \
    --pattern "${PATTERN:-z6-6-6-6}"
for p in "${pids[@]}"; do wait "$p"; done
