#!/usr/bin/env bash
# The main job on the embedded default (stories260K from ../shared/data): set up and build,
# then the whole RippleKV pipeline:
#   1. profile the model's per-layer KL sensitivity on a calibration set (LongBench multi_news),
#   2. map it to per-layer budgets for several ratios r,
#   3. compare RippleKV (ripple allocator + SnapKV selection) with FullKV, SnapKV, PyramidKV,
#      StreamingLLM and H2O at matched budgets (`ripplekv fidelity`), printing one table,
#   4. draw the profile and budgets (out/demo/profile.png).
# Everything lands in out/demo/ (override with OUT=...).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
DATA=${RIPPLEKV_SHARED_DATA:-$(cd .. && pwd)/shared/data}
OUT=${OUT:-out/demo}
BIN=${RIPPLEKV_BUILD_DIR:-build}/ripplekv
PY=${PY:-.venv/bin/python}
MODEL=$DATA/stories260K/stories260K.bin
CALIB=$DATA/longbench/raw/multi_news.jsonl
mkdir -p "$OUT"

echo "== 1. sensitivity profile (stories260K, 5 layers; 16 multi_news samples x 400 tokens)"
"$BIN" profile --model "$MODEL" --calibration "$CALIB" --samples 16 --max-tokens 400 --eps 0.1 \
  --kl-positions 32 --draws 2 --out "$OUT/profile.json"

echo "== 2. budgets for budget 64 (window 8 kept per layer)"
"$BIN" allocate --profile "$OUT/profile.json" --budget 64 --ratio 1,2,4,8,16 --layers-min 8 --prompt-len 400 \
  --out "$OUT/allocations.json"

echo "== 3. fidelity at matched budgets (KL to the full cache over 64 continuation tokens)"
W=window=8
# Evaluated on multi_news records the profile was not calibrated on (--skip-texts 16).
"$BIN" fidelity --model "$MODEL" --texts "$CALIB" --skip-texts 16 \
  --methods "full,snapkv@$W,pyramidkv@$W,streamingllm,h2o@$W,ripple@$W,ratio=2,ripple@$W,ratio=4,ripple@$W,ratio=8" \
  --profile "$OUT/profile.json" --budgets 32,64,128 --prompt-tokens 400 --continuation 64 --max-texts 8 \
  --out "$OUT" "$@"

echo "== 4. plot"
"$PY" scripts/plot_profile.py --profile "$OUT/profile.json" --allocations "$OUT/allocations.json" \
  --out "$OUT/profile.png" --title "stories260K: RippleKV layer sensitivity and budgets"
