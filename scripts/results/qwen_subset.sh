#!/usr/bin/env bash
# Qwen2.5-Coder-1.5B-Instruct on the 2-core CPU, sized to fit (issue 14): a sensitivity
# profile on 8 multi_news texts x 512 tokens (bfloat16; SmolLM2's uses 8 x 1,024 in float32),
# then fidelity to the full cache on 8 other multi_news texts (1,024-token prompts, 32
# teacher-forced tokens) for full, snapkv, pyramidkv, h2o and ripple (r = 1.5 and 2) at
# budgets 128 and 256, one prefill per text for all of them; then the same profile with
# layer_mean noise and its ripple runs (the candidate default, issue 14), and the tables.
# Rerun to resume: a finished profile or fidelity run is kept.
#   scripts/results/qwen_subset.sh
# Environment: THREADS (default all cores), BIN (default build/ripplekv), OUT (default
# results/qwen2.5-coder-1.5b-instruct), MODEL (default: scripts/get_model.sh's checkpoint).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
OUT=${OUT:-results/qwen2.5-coder-1.5b-instruct}
MODEL=${MODEL:-$(scripts/get_model.sh qwen2.5-coder-1.5b-instruct | tail -1)}
TEXTS=../shared/data/longbench/raw/multi_news.jsonl
threads=()
if [ -n "${THREADS:-}" ]; then threads=(--threads "$THREADS"); fi
P=$OUT/profiles/profile_multi_news_8x512_bf16.json
mkdir -p "$OUT/profiles"
if [ ! -f "$P" ]; then
  start=$(date +%s)
  "$BIN" profile --model "$MODEL" --dtype bfloat16 "${threads[@]}" --calibration "$TEXTS" --samples 8 \
    --max-tokens 512 --out "$P"
  echo "qwen_subset.sh: profile took $(( $(date +%s) - start )) s" | tee -a "$OUT/wall_times.txt"
fi
if [ ! -f "$OUT/fidelity/fidelity.csv" ]; then
  start=$(date +%s)
  "$BIN" fidelity --model "$MODEL" --dtype bfloat16 "${threads[@]}" --texts "$TEXTS" --skip-texts 16 --max-texts 8 \
    --prompt-tokens 1024 --continuation 32 --budgets 128,256 \
    --methods "full,snapkv,pyramidkv,h2o,ripple@profile=$P,ratio=1.5,ripple@profile=$P,ratio=2" --out "$OUT/fidelity"
  echo "qwen_subset.sh: fidelity took $(( $(date +%s) - start )) s" | tee -a "$OUT/wall_times.txt"
fi
PL=$OUT/profiles/profile_multi_news_8x512_bf16_layer_mean.json
if [ ! -f "$PL" ]; then
  start=$(date +%s)
  "$BIN" profile --model "$MODEL" --dtype bfloat16 "${threads[@]}" --calibration "$TEXTS" --samples 8 \
    --max-tokens 512 --noise layer_mean --out "$PL"
  echo "qwen_subset.sh: layer_mean profile took $(( $(date +%s) - start )) s" | tee -a "$OUT/wall_times.txt"
fi
if [ ! -f "$OUT/fidelity_layer_mean/fidelity.csv" ]; then
  start=$(date +%s)
  "$BIN" fidelity --model "$MODEL" --dtype bfloat16 "${threads[@]}" --texts "$TEXTS" --skip-texts 16 --max-texts 8 \
    --prompt-tokens 1024 --continuation 32 --budgets 128,256 \
    --methods "ripple@profile=$PL,ratio=1.5,ripple@profile=$PL,ratio=2" --out "$OUT/fidelity_layer_mean"
  echo "qwen_subset.sh: layer_mean fidelity took $(( $(date +%s) - start )) s" | tee -a "$OUT/wall_times.txt"
fi
"$BIN" table --runs "$OUT/fidelity" "$OUT/fidelity_layer_mean" --out "$OUT/tables"
