#!/usr/bin/env bash
# The main job on a built-in default: set up, build the tables it needs, solve real boards.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
echo "== pdb build --size 3   (exact 8-puzzle table, 181,440 states)"
pdb build --size 3
for board in 8672543_1 "1 4 0 5 8 2 3 6 7"; do
  echo "== solver solve '$board'"
  solver solve "$board"
done
echo "== solver distance 863.54217"
solver distance 863.54217
echo "== pdb build --size 4 --pattern 5-5-5   (15-puzzle additive pattern databases)"
pdb build --size 4 --pattern 5-5-5
echo "== solver solve: Korf's instance 1 (blank-first goal, optimal length 57)"
solver solve "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3" --goal blank-first
echo "== solver solve --file: Korf's first 10 instances, both cores"
head -12 data/korf100.txt > "${TMPDIR:-/tmp}/korf10.txt"
solver solve --file "${TMPDIR:-/tmp}/korf10.txt" --goal blank-first
echo "For the fastest 15-puzzle tables (about 4 minutes, 922 MB on disk): pdb build --size 4 --pattern best (Korf's 100: half the nodes of 7-8); for the 24-puzzle: pdb build --size 5 --goal blank-first --pattern z6-6-6-6 (about 3 minutes on 2 cores; --pattern best, about 13 minutes and 2.5 GB, adds the catalogue that the hard boards need). README: a five-minute tour."
