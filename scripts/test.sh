#!/usr/bin/env bash
# Set up and run the default (fast) test suite; pass -m slow for the big-table checks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/python -m pytest -q "$@"
