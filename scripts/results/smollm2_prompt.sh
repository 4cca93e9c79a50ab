#!/usr/bin/env bash
# RippleKV measured on each prompt (`ripple_prompt`) with 1, 4 and 16 noise draws per layer, on
# SmolLM2-135M-Instruct's RULER 4k (issue 14): does a less noisy per-prompt measurement reach what
# one calibration profile gives? One prefill per prompt for FullKV, SnapKV, PyramidKV, CAKE, the
# static float32 profile at r = 8 min-max (SmolLM2's strongest setting on RULER) and
# `ripple_prompt` at the same mapping (r = 8 min-max); draw d of layer l uses the same noise at
# every D, so 4 draws extend 1 and 16 extend 4. 2 samples per task (22 prompts, seed 42),
# budgets 256 and 1024, into ruler4k_prompt/. Rerun to resume.
#   scripts/results/smollm2_prompt.sh
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
RUNS=$OUT/ruler4k_prompt/runs
step "ruler 4k ripple_prompt draws 1, 4, 16" "$RUNS/ripple_prompt@ratio=8_draws=16_b1024/result.json" \
  "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 2 --budgets 256,1024 \
  --methods "full,snapkv,pyramidkv,cake,ripple@profile=$PLF,ratio=8,ripple_prompt@ratio=8,ripple_prompt@ratio=8,draws=4,ripple_prompt@ratio=8,draws=16" \
  --out "$RUNS"
"$BIN" table --runs "$RUNS" --out "$OUT/ruler4k_prompt/tables"
