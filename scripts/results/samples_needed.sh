#!/usr/bin/env bash
# How many samples per task Qwen2.5-Coder-1.5B's headline comparisons need for a clear verdict
# (samples_needed.py, 80% power, with a 200-trial simulation check): RippleKV r=2 and r=8 rank
# with the float32 profile against CAKE and SnapKV at 256 and 1024, on each pooled RULER length
# (the 6-task pools of ruler_pooled.sh; 11 tasks at 4k and 8k) and on LongBench at 4k and 32k.
# Writes results/qwen2.5-coder-1.5b-instruct/samples_needed.md (about a minute).
#   scripts/results/samples_needed.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/results/qwen_sets.sh  # Q, Q4, Q4_MORE, Q8, Q16, Q32
out=$Q/samples_needed.md
pairs=()
for b in 256 1024; do
  for r in 'ratio=2' 'ratio=8_normalize=rank'; do
    for base in cake snapkv; do pairs+=("ripple@*_f32_layer_mean.json_${r}_b$b" "${base}_b$b"); done
  done
done
section() {  # section TITLE SET...: the pairs pooled over the sample sets
  local title=$1 set_args=() s
  shift
  for s in "$@"; do set_args+=(--set "$s"); done
  printf '## %s\n\n' "$title"
  .venv/bin/python scripts/results/samples_needed.py --simulate 200 "${set_args[@]}" "${pairs[@]}"
  printf '\n'
}
{
  printf '# Samples per task for a clear verdict (Qwen2.5-Coder-1.5B, float32 profile)\n\n'
  printf 'Made by `scripts/results/samples_needed.sh`; see `scripts/results/samples_needed.py` for the method.\n\n'
  section "RULER 4k (11 tasks)" "${Q4[@]}"
  section "RULER 4k with the six-method sets of seeds 44 on (11 tasks)" "${Q4[@]}" "${Q4_MORE[@]}"
  section "RULER 8k (11 tasks)" "${Q8[@]}"
  section "RULER 16k (6 tasks)" "${Q16[@]}"
  section "RULER 32k (6 tasks)" "${Q32[@]}"
  section "LongBench at 4k (13 tasks)" "$Q/longbench"
  section "LongBench at 32k (13 tasks)" "$Q/longbench32k"
} > "$out"
echo "wrote $out"
