#!/usr/bin/env bash
# Issue 14, item 1: the per-layer sensitivity profile of a real model and its stability.
#
#   scripts/results/profile_stability.sh [MODEL_NAME] [OUT_DIR]
#
# Runs `ripplekv profile` once per calibration text (samples=1, --skip i), so that any set of
# texts can be re-aggregated afterwards without re-measuring: the first N texts vs the next N
# (disjoint sets), growing subsets (how many samples the ranking needs), and per-text rank
# agreement. Then the first N texts again with another seed and with eps 0.05 and 0.2.
# Each finished profile is a file; a re-run skips it (resumable; kill -9 loses at most the
# text in progress). Then scripts/results/profile_stability.py prints the tables and plots.
#
# Env: N (texts per set, default 16), MAX_TOKENS (1024), THREADS (0 = all cores),
#      DTYPE (float32), CAL (calibration file; default LongBench multi_news), BIN (default build/ripplekv).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NAME=${1:-smollm2-135m-instruct}
OUT=${2:-$ROOT/results/$NAME/profiles}
N=${N:-16}
MAX_TOKENS=${MAX_TOKENS:-1024}
THREADS=${THREADS:-0}
DTYPE=${DTYPE:-float32}
CAL=${CAL:-$ROOT/../shared/data/longbench/raw/multi_news.jsonl}
BIN=${BIN:-$ROOT/build/ripplekv}
[ -x "$BIN" ] || { echo "error: $BIN is missing; build first (scripts/test.sh builds it)" >&2; exit 1; }
[ -f "$CAL" ] || { echo "error: calibration file $CAL not found; set CAL=..." >&2; exit 1; }
MODEL=$("$ROOT/scripts/get_model.sh" "$NAME" | tail -1)
mkdir -p "$OUT/per_text"

one() {  # one(file, skip, extra options...)
  local f=$1 skip=$2; shift 2
  [ -s "$f" ] && return 0
  echo "[profile_stability] $(date +%T) $(basename "$f")" >&2
  "$BIN" profile --model "$MODEL" --dtype "$DTYPE" --threads "$THREADS" --calibration "$CAL" \
    --samples 1 --skip "$skip" --max-tokens "$MAX_TOKENS" --out "$f.tmp.json" "$@" > /dev/null
  mv "$f.tmp.csv" "${f%.json}.csv"
  mv "$f.tmp.json" "$f"   # last: a present .json means a finished profile
}

# Pass 1: 2N texts at the defaults (eps 0.1, seed 0): two disjoint sets of N.
for ((i = 0; i < 2 * N; ++i)); do one "$OUT/per_text/eps0.1_seed0_text$i.json" "$i"; done
# Pass 2: the first N texts with another noise seed, and at eps 0.05 and 0.2.
for ((i = 0; i < N; ++i)); do one "$OUT/per_text/eps0.1_seed1_text$i.json" "$i" --seed 1; done
for eps in 0.05 0.2; do
  for ((i = 0; i < N; ++i)); do one "$OUT/per_text/eps${eps}_seed0_text$i.json" "$i" --eps "$eps"; done
done
"$ROOT/.venv/bin/python" "$ROOT/scripts/results/profile_stability.py" "$OUT" --n "$N"
