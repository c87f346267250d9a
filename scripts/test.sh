#!/usr/bin/env bash
# Set up, lint (ruff: any finding fails the run) and run the default (fast) test suite on two
# workers, a test file each at a time; pass -m slow for the big-table checks, -n 0 for one process.
# Installs Debian's chromium for the page's browser tests where it is missing and this runs as root.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The page's browser tests drive Debian's Chromium: installed here when missing and we may
# (root with apt-get); otherwise those tests say what to install (PATTERNDB_NO_BROWSER=1 skips them).
if ! command -v chromium >/dev/null 2>&1 && [ -z "${PATTERNDB_CHROMIUM:-}" ] && [ "${PATTERNDB_NO_BROWSER:-}" != 1 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's chromium for the page's browser tests (once)..." >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null; } \
            || echo "warning: chromium could not be installed: the browser tests will fail (PATTERNDB_NO_BROWSER=1 skips them)" >&2
    else
        echo "note: the page's browser tests need Chromium: sudo apt-get install chromium (PATTERNDB_NO_BROWSER=1 skips them)" >&2
    fi
fi
echo "linting (ruff check, ruff format --check)..." >&2
.venv/bin/ruff check --quiet . || { echo "error: ruff found the problems above (ruff check --fix may mend them)" >&2; exit 1; }
.venv/bin/ruff format --check --quiet . || { echo "error: the files above are not formatted (ruff format)" >&2; exit 1; }
exec .venv/bin/python -m pytest -q -n 2 --dist loadfile "$@"
