#!/usr/bin/env bash
# RippleKV measured on each prompt (`ripple_prompt`) with 1, 4 and 16 noise draws per layer, on
# SmolLM2-135M-Instruct's RULER 4k (issue 14): does a less noisy per-prompt measurement reach what
# one calibration profile gives? One prefill per prompt for FullKV, SnapKV, PyramidKV, CAKE, the
# static float32 profile at r = 8 min-max (SmolLM2's strongest setting on RULER) and
# `ripple_prompt` at the same mapping (r = 8 min-max); draw d of layer l uses the same noise at
# every D, so 4 draws extend 1 and 16 extend 4. 2 samples per task (22 prompts), budgets 256
# and 1024; seed 42 into ruler4k_prompt/ and seed 43 into ruler4k_prompt_seed43/. Then the table,
# the static profile minus each per-prompt variant (run_pair.py) and how alike the allocations are
# (allocation_agreement.py). Target `window` adds, on the seed-42 prompts, 4 draws over a longer
# replayed window (kl_positions=128, the question's last 128 tokens instead of 32); `pooled` pools
# the two sets (44 prompts) into ruler4k_prompt_pooled/. Target `8k` runs the seed-42 set's variants
# at 8k (2 samples per task, the same 22 tasks' seed) into ruler8k_prompt/. Rerun to resume.
#   scripts/results/smollm2_prompt.sh [42|43|window|pooled|8k ...]   (default: all but 8k)
# Environment: THREADS (default all cores), BIN (default build/ripplekv), OUT (default
# results/smollm2-135m-instruct), MODEL (default: scripts/get_model.sh's checkpoint), SHARD (i/n:
# only samples k with k % n == i, for runs side by side; the last shard to finish merges).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
OUT=${OUT:-results/smollm2-135m-instruct}
MODEL=${MODEL:-$(scripts/get_model.sh smollm2-135m-instruct | tail -1)}
scripts/get_ruler_data.sh > /dev/null   # RULER's word lists: `ruler` generates its prompts from them
threads=()
if [ -n "${THREADS:-}" ]; then threads=(--threads "$THREADS"); fi
source scripts/results/step.sh  # step NAME DONE_FILE COMMAND...

PLF=$OUT/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json  # smollm2_f32.sh's target `profile`
if [ ! -f "$PLF" ]; then
  echo "smollm2_prompt.sh: needs the profile $PLF: run scripts/results/smollm2_f32.sh profile first" >&2; exit 2
fi
STATIC="ripple@profile=$PLF,ratio=8"
PROMPT="ripple_prompt@ratio=8,ripple_prompt@ratio=8,draws=4,ripple_prompt@ratio=8,draws=16"
report() {  # report OUT SET...: the table of the sets' runs (pooled over several sets), then per budget
            # the static profile minus each per-prompt variant, 16 draws minus 1 (and window 128 minus
            # 32), and how alike the allocations are (one set)
  local out=$1 b s v static pairs=() runs=() pool=()
  shift
  local sets=("$@")
  joined() { local v=$1 s j=; for s in "${sets[@]}"; do j+="${j:+:}$s/runs/$v"; done; echo "$j"; }  # run_pair.py's pooling
  on_all() { local s; for s in "${sets[@]}"; do [ -e "$s/runs/$1" ] || return 1; done; }
  for v in "${sets[0]}"/runs/*; do  # the variants every set ran
    v=$(basename "$v")
    if on_all "$v/result.json"; then for s in "${sets[@]}"; do runs+=("$s/runs/$v"); done; fi
  done
  if [ ${#sets[@]} -gt 1 ]; then pool=(--pool); fi
  "$BIN" table "${pool[@]}" --runs "${runs[@]}" --out "$out/tables"
  for b in 256 1024; do
    static=ripple@profile=${PLF//\//_}_ratio=8_b$b
    pairs=()
    for v in "${sets[0]}"/runs/ripple_prompt@ratio=8*_b$b; do
      v=$(basename "$v")
      if on_all "$v"; then pairs+=("$(joined "$static")" "$(joined "$v")"); fi
    done
    v=ripple_prompt@ratio=8_draws=4_kl_positions=128_b$b  # the longer window minus the short one
    if on_all "$v"; then pairs+=("$(joined "$v")" "$(joined "ripple_prompt@ratio=8_draws=4_b$b")"); fi
    .venv/bin/python scripts/results/run_pair.py "${pairs[@]}" \
      "$(joined "ripple_prompt@ratio=8_draws=16_b$b")" "$(joined "ripple_prompt@ratio=8_b$b")"
    if [ ${#sets[@]} -eq 1 ]; then
      .venv/bin/python scripts/results/allocation_agreement.py --reference "${sets[0]}/runs/$static" \
        "${sets[0]}/runs/cake_b$b" "${sets[0]}"/runs/ripple_prompt@ratio=8*_b$b
    fi
  done
}
ruler() {  # ruler NAME LENGTH DIR LAST_VARIANT METHODS ARGS...: 2 samples per task at LENGTH, budgets 256
          # and 1024, into DIR/runs; done when LAST_VARIANT (a folder name without _b) has its result at 1024
  local name=$1 length=$2 dir=$3 last=$4 methods=$5
  shift 5
  step "$name" "$dir/runs/${last}_b1024/result.json" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
    "${threads[@]}" --lengths "$length" --samples 2 --budgets 256,1024 --methods "$methods" --out "$dir/runs" \
    ${SHARD:+--shard "$SHARD"} "$@"
}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(42 43 window pooled)
for target in "${targets[@]}"; do
  case $target in
    42) dir=$OUT/ruler4k_prompt name="ruler 4k" ;;
    43) dir=$OUT/ruler4k_prompt_seed43 name="ruler 4k seed 43" ;;
    window) dir=$OUT/ruler4k_prompt
      ruler "ruler 4k ripple_prompt window 128" 4096 "$dir" ripple_prompt@ratio=8_draws=4_kl_positions=128 \
        "ripple_prompt@ratio=8,draws=4,kl_positions=128"
      report "$dir" "$dir"
      continue ;;
    pooled) report "$OUT/ruler4k_prompt_pooled" "$OUT/ruler4k_prompt" "$OUT/ruler4k_prompt_seed43"; continue ;;
    8k) dir=$OUT/ruler8k_prompt
      ruler "ruler 8k ripple_prompt draws 1, 4, 16" 8192 "$dir" ripple_prompt@ratio=8_draws=16 \
        "full,snapkv,pyramidkv,cake,$STATIC,$PROMPT" --seed 42
      # With SHARD, only the shard that finishes last (and merges) has a full folder to report.
      if [ -f "$dir/runs/ripple_prompt@ratio=8_draws=16_b1024/result.json" ]; then report "$dir" "$dir"; fi
      continue ;;
    *) echo "smollm2_prompt.sh: unknown target $target (42, 43, window, pooled or 8k)" >&2; exit 2 ;;
  esac
  ruler "$name ripple_prompt draws 1, 4, 16" 4096 "$dir" ripple_prompt@ratio=8_draws=16 \
    "full,snapkv,pyramidkv,cake,$STATIC,$PROMPT" --seed "$target"
  report "$dir" "$dir"
done
