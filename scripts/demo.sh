#!/usr/bin/env bash
# The main job on a built-in default: set up, build the tables it needs, solve real boards.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
echo "== pdb build --size 3   (exact 8-puzzle table)"
pdb build --size 3
for board in 8672543_1 "1 4 0 5 8 2 3 6 7" 863.54217; do
  echo "== solver solve '$board'"
  solver solve "$board"
done
echo "== solver distance 8672543_1"
solver distance 8672543_1
board=$(solver scramble --size 4 --moves 60 --seed 7)
echo "== solver solve '$board'   (15-puzzle, IDA*)"
solver solve "$board"
