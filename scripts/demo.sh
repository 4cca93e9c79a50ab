#!/usr/bin/env bash
# The main job: set up and build, fetch SmolLM2-135M-Instruct (scripts/get_model.sh), then the
# whole RippleKV pipeline on it:
#   1. profile the per-layer KL sensitivity to value-cache noise on calibration text
#      (LongBench multi_news records 0-7), in float32,
#   2. map it to per-layer budgets for several ratios r,
#   3. compare full, SnapKV, PyramidKV, StreamingLLM, H2O, CAKE, SqueezeAttention and RippleKV
#      (r = 2, 4) at matched budgets: fidelity (KL to the full cache) on held-out multi_news
#      records, in bfloat16 with the float32 profile,
#   4. a small task score: MiniLongBench qasper + samsum with every method at budget 128,
#   5. tables and plots.
# Everything lands in out/demo/ (override with OUT=...). Rerunning skips finished LongBench runs.
set -euo pipefail
cd "$(dirname "$0")/.."
START=$SECONDS
scripts/setup.sh
MODEL=$(scripts/get_model.sh smollm2-135m-instruct | tail -n 1)
DATA=${RIPPLEKV_SHARED_DATA:-$(cd .. && pwd)/shared/data}
OUT=${OUT:-out/demo}
BIN=${RIPPLEKV_BUILD_DIR:-build}/ripplekv
PY=${PY:-.venv/bin/python}
CALIB=$DATA/longbench/raw/multi_news.jsonl
mkdir -p "$OUT"
step() { echo "== $1 ($((SECONDS - START)) s since start)"; }

step "1. sensitivity profile (SmolLM2-135M-Instruct, 30 layers; 8 multi_news texts x 512 tokens, float32)"
if [ ! -f "$OUT/profile.json" ]; then
  "$BIN" profile --model "$MODEL" --calibration "$CALIB" --samples 8 --max-tokens 512 --eps 0.1 \
    --kl-positions 32 --out "$OUT/profile.json"
fi

step "2. budgets for budget 128 (32 kept per layer at least) and r = 1, 1.5, 2, 4, 8"
"$BIN" allocate --profile "$OUT/profile.json" --budget 128 --ratio 1,1.5,2,4,8 --layers-min 32 --prompt-len 1024 \
  --out "$OUT/allocations.json"

step "3. fidelity at matched budgets (KL to the full cache over 32 continuation tokens, bfloat16)"
# Held-out texts: the profile was calibrated on records 0-7.
"$BIN" fidelity --model "$MODEL" --dtype bfloat16 --texts "$CALIB" --skip-texts 8 \
  --methods "full,snapkv,pyramidkv,streamingllm,h2o,cake,squeeze,ripple@ratio=2,ripple@ratio=4" \
  --profile "$OUT/profile.json" --budgets 64,256 --prompt-tokens 1024 --continuation 32 --max-texts 4 \
  --out "$OUT/fidelity"

step "4. MiniLongBench qasper + samsum, every method at budget 128 (bfloat16)"
"$BIN" sweep --config configs/sweeps/smollm2_demo.ini --set "model=$MODEL" \
  --set "method.ripple.profile=$OUT/profile.json" --out "$OUT/longbench"
"$BIN" table --runs "$OUT/longbench" --out "$OUT/longbench/tables"

step "5. plots"
"$PY" scripts/plot_profile.py --profile "$OUT/profile.json" --allocations "$OUT/allocations.json" \
  --out "$OUT/profile.png" --title "SmolLM2-135M-Instruct: RippleKV layer sensitivity and budgets"
step "done: $OUT/profile.png, $OUT/fidelity/fidelity.md, $OUT/longbench/tables/"
cat "$OUT/fidelity/fidelity.md"
