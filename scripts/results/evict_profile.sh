#!/usr/bin/env bash
# An eviction profile of a real model (exploratory; scripts/results/evict_profile.py says what and
# why): for each layer, `ripplekv fidelity` with SnapKV compressing that layer alone to about
# TARGET of its PROMPT prompt tokens, all variants of a text sharing one prefill; then the per-layer
# KLs become a profile JSON that the `ripple` allocator takes (profile=...).
#
#   scripts/results/evict_profile.sh MODEL_NAME LIKE_PROFILE OUT_DIR [TARGET] [PROMPT] [TEXTS]
#       TARGET 128, PROMPT 1024, TEXTS 8 (the first TEXTS multi_news texts of at least PROMPT + 32
#       tokens: `ripplekv fidelity` passes over shorter ones, so they can differ from a noise
#       profile's first TEXTS, which are cut to their length instead)
#   e.g. scripts/results/evict_profile.sh qwen2.5-coder-1.5b-instruct \
#          results/qwen2.5-coder-1.5b-instruct/profiles/profile_multi_news_8x512_f32_layer_mean.json \
#          results/qwen2.5-coder-1.5b-instruct/evict_profile
# LIKE_PROFILE and OUT_DIR are relative to the repository root (where the script runs, so that the
# recorded paths are too). Writes OUT_DIR/alloc/layerNN.txt, OUT_DIR/fidelity/ and
# OUT_DIR/profile_evict_b<b>.json, and prints the eviction and noise layer orders.
# Env: THREADS (default 0 = all cores), DTYPE (default bfloat16, the runs' dtype), BIN (default
# build/ripplekv).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ $# -ge 3 ] || { echo "usage: $0 MODEL_NAME LIKE_PROFILE OUT_DIR [TARGET] [PROMPT] [TEXTS]" >&2; exit 2; }
NAME=$1 LIKE=$2 OUT=$3 TARGET=${4:-128} PROMPT=${5:-1024} TEXTS=${6:-8}
BIN=${BIN:-$ROOT/build/ripplekv}
PY=$ROOT/.venv/bin/python
CAL=../shared/data/longbench/raw/multi_news.jsonl
[ -x "$BIN" ] || { echo "error: $BIN is missing; build first (scripts/test.sh builds it)" >&2; exit 1; }
[ -f "$LIKE" ] || { echo "error: $LIKE (LIKE_PROFILE) not found: give a profile of the same model" >&2; exit 1; }
MODEL=$("$ROOT/scripts/get_model.sh" "$NAME" | tail -1)
LAYERS=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["num_hidden_layers"])' "$MODEL/config.json")
read -r B BUDGET < <("$PY" "$ROOT/scripts/results/evict_profile.py" allocations --layers "$LAYERS" \
  --prompt-tokens "$PROMPT" --target "$TARGET" --dir "$OUT/alloc")
methods=()
for ((l = 0; l < LAYERS; l++)); do methods+=("snapkv:profile@file=$OUT/alloc/$(printf 'layer%02d' "$l").txt"); done
echo "$NAME: $LAYERS layers, each compressed alone to $B of $PROMPT tokens (budget $BUDGET), $TEXTS texts" >&2
"$BIN" fidelity --model "$MODEL" --dtype "${DTYPE:-bfloat16}" --threads "${THREADS:-0}" --texts "$CAL" \
  --max-texts "$TEXTS" --skip-texts 0 --prompt-tokens "$PROMPT" --continuation 32 --budgets "$BUDGET" \
  --methods "$(IFS=,; echo "${methods[*]}")" --out "$OUT/fidelity" >&2
"$PY" "$ROOT/scripts/results/evict_profile.py" profile --fidelity "$OUT/fidelity" --like "$LIKE" \
  --layer-budget "$B" --out "$OUT/profile_evict_b$B.json"
