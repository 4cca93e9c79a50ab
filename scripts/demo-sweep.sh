#!/usr/bin/env bash
# The demo sweep (configs/sweeps/demo.ini) end to end on stories260K: set up and build, run
# the grid (3 methods x 2 budgets, RippleKV at 3 ratios; fidelity + MiniLongBench runs),
# then the tables (Markdown, CSV, LaTeX) and the plots. Rerunning skips what is complete.
# Everything lands in out/sweeps/demo/ (override with OUT=...); extra arguments go to
# `ripplekv sweep` (e.g. --shard 0/2).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
OUT=${OUT:-out/sweeps/demo}
BIN=${RIPPLEKV_BUILD_DIR:-build}/ripplekv
PY=${PY:-.venv/bin/python}
"$BIN" sweep --config configs/sweeps/demo.ini --out "$OUT" "$@"
"$BIN" table --runs "$OUT" --out "$OUT/tables"
"$PY" scripts/plot_results.py --summary "$OUT/tables/summary.json" --out "$OUT/plots"
