#!/usr/bin/env bash
# Create .venv (if missing), install the project with its test extras, and compile the
# IDA* kernels ahead of time (solver compile: ~10 s, so that solve starts without numba).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,cluster]'
if ! .venv/bin/solver compile --check >/dev/null 2>&1; then
    .venv/bin/solver compile || echo "warning: solver compile failed; solve will use numba's JIT kernels (slower start)" >&2
fi
