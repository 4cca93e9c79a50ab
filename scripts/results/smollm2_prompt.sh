#!/usr/bin/env bash
# RippleKV measured on each prompt (`ripple_prompt`) with 1, 4 and 16 noise draws per layer, on
# SmolLM2-135M-Instruct's RULER 4k (issue 14): does a less noisy per-prompt measurement reach what
# one calibration profile gives? One prefill per prompt for FullKV, SnapKV, PyramidKV, CAKE, the
# static float32 profile at r = 8 min-max (SmolLM2's strongest setting on RULER) and
# `ripple_prompt` at the same mapping (r = 8 min-max); draw d of layer l uses the same noise at
# every D, so 4 draws extend 1 and 16 extend 4. 2 samples per task (22 prompts), budgets 256
# and 1024; seed 42 into ruler4k_prompt/ and seed 43 into ruler4k_prompt_seed43/. Then the table,
# the static profile minus each per-prompt variant (run_pair.py) and how alike the allocations are
# (allocation_agreement.py). Rerun to resume.
#   scripts/results/smollm2_prompt.sh [42|43 ...]   (default: both)
# Environment: THREADS (default all cores), BIN (default build/ripplekv), OUT (default
# results/smollm2-135m-instruct), MODEL (default: scripts/get_model.sh's checkpoint).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
OUT=${OUT:-results/smollm2-135m-instruct}
MODEL=${MODEL:-$(scripts/get_model.sh smollm2-135m-instruct | tail -1)}
threads=()
if [ -n "${THREADS:-}" ]; then threads=(--threads "$THREADS"); fi
source scripts/results/step.sh  # step NAME DONE_FILE COMMAND...

PLF=$OUT/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json  # smollm2_f32.sh's target `profile`
if [ ! -f "$PLF" ]; then
  echo "smollm2_prompt.sh: needs the profile $PLF: run scripts/results/smollm2_f32.sh profile first" >&2; exit 2
fi
STATIC="ripple@profile=$PLF,ratio=8"
PROMPT="ripple_prompt@ratio=8,ripple_prompt@ratio=8,draws=4,ripple_prompt@ratio=8,draws=16"
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(42 43)
for seed in "${seeds[@]}"; do
  case $seed in
    42) dir=$OUT/ruler4k_prompt name="ruler 4k" ;;
    43) dir=$OUT/ruler4k_prompt_seed43 name="ruler 4k seed 43" ;;
    *) echo "smollm2_prompt.sh: unknown sample set $seed (42 or 43)" >&2; exit 2 ;;
  esac
  RUNS=$dir/runs
  step "$name ripple_prompt draws 1, 4, 16" \
    "$RUNS/ripple_prompt@ratio=8_draws=16_b1024/result.json" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
    "${threads[@]}" --lengths 4096 --samples 2 --seed "$seed" --budgets 256,1024 \
    --methods "full,snapkv,pyramidkv,cake,$STATIC,$PROMPT" --out "$RUNS"
  "$BIN" table --runs "$RUNS" --out "$dir/tables"
  for b in 256 1024; do
    static=$RUNS/ripple@profile=${PLF//\//_}_ratio=8_b$b
    pairs=()
    for d in "" _draws=4 _draws=16; do pairs+=("$static" "$RUNS/ripple_prompt@ratio=8${d}_b$b"); done
    .venv/bin/python scripts/results/run_pair.py "${pairs[@]}" \
      "$RUNS/ripple_prompt@ratio=8_draws=16_b$b" "$RUNS/ripple_prompt@ratio=8_b$b"
    .venv/bin/python scripts/results/allocation_agreement.py --reference "$static" \
      "$RUNS/cake_b$b" "$RUNS"/ripple_prompt@ratio=8*_b$b
  done
done
