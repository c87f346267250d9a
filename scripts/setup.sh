#!/usr/bin/env bash
# Create .venv (if missing), install the project with its test extras, and compile the
# IDA* kernels ahead of time (solver compile: about a minute on 2 cores, once per checkout, so
# that solve starts without importing numba).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
echo "installing the project and its test extras into .venv..." >&2
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,cluster,plot]'
if ! .venv/bin/solver compile --check >/dev/null 2>&1; then
    .venv/bin/solver compile || echo "warning: the compiled kernels could not be built (the line above says why); solve still works, through numba's JIT kernels: same answers, about 0.4 s more per command" >&2
fi
