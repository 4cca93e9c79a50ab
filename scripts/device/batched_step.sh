#!/usr/bin/env bash
# Why the batched-variant decode step is slow on CUDA (843-1,185 ms for one row on the first H200
# run, against HF's 53-59 ms and ripplekv's own 53-78 ms single-sequence step; see README,
# Benchmarks). The suspect, from reading the code: on CUDA, decode attention is ATen's
# scaled_dot_product_attention, which on Hopper with cuDNN >= 9.15 tries cuDNN attention first for
# bfloat16 and keeps one compiled graph per exact K/V shape. Variant caches give every layer its
# own length, growing by one each step, so each layer of each step would build a new graph.
# Four runs of the SmolLM2 shape (512 tokens, V = 1 and 16, op profile), about 2 minutes there:
#   1. as is;  2. TORCH_CUDNN_SDPA_DEPRIORITIZED=1 (cuDNN attention tried last);
#   3. TORCH_CUDNN_SDPA_CACHE_DEBUG=1 (the graph cache's hits and misses);  4. float32 (no cuDNN
#   attention). If 2 and 4 are fast and 3 shows a miss per layer, the suspect is the cause.
# On the device tool (carry device_kit, made by scripts/device/make_kit.sh here):
#   run: scripts/device/batched_step.sh      # writes $OUT/batched_step.txt
# DEVICE=cpu PY=.venv/bin/python scripts/device/batched_step.sh tries it here.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ripplekv_batched_step}
source scripts/device/kit_env.sh batched_step.sh ripplekv_bench
log=$OUT/batched_step.txt
: > "$log"
status=0
bench() {  # bench LABEL DTYPE [VAR=VALUE ...]
  local label=$1 dtype=$2
  shift 2
  echo "## $label" | tee -a "$log"
  env "$@" "$KIT/ripplekv_bench" --shape smollm2 --device "$DEVICE" --lengths 512 --dtypes "$dtype" \
    --variants 1,16 --budgets "" --prefill-repeats 1 --decode-steps 8 --op-profile >> "$log" 2>&1 || status=1
  grep -E "^RESULT impl=ripplekv(-batch)? .*(decode_ms|step_ms)" "$log" | tail -n 3 | sed 's/^/  /'
}
bench "bfloat16, as is" bfloat16
bench "bfloat16, TORCH_CUDNN_SDPA_DEPRIORITIZED=1" bfloat16 TORCH_CUDNN_SDPA_DEPRIORITIZED=1
bench "bfloat16, TORCH_CUDNN_SDPA_CACHE_DEBUG=1" bfloat16 TORCH_CUDNN_SDPA_CACHE_DEBUG=1
bench "float32" float32
exit $status
