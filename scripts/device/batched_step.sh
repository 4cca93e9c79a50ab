#!/usr/bin/env bash
# Why the batched-variant decode step was slow on CUDA (843-1,185 ms for one row on the first H200
# run, against HF's 53-59 ms and ripplekv's own 53-78 ms single-sequence step; see README,
# Benchmarks), and whether ripplekv's default now avoids it. The cause (confirmed by this script
# on 2026-12-04, results/gpu_h200/second_run_2026-12-04/): on Hopper, ATen's
# scaled_dot_product_attention tries cuDNN attention first for bfloat16, and cuDNN builds one
# graph per exact K/V shape; variant caches give every layer its own length, growing by one each
# step, so each layer of each step builds a graph (24-37 ms a call). ripplekv now keeps cuDNN
# attention to the causal prefill (models/ops/cudnn_attention.h); --cudnn-attention-everywhere
# restores ATen's own choice. Runs (SmolLM2 shape, 512 tokens, V = 1 and 16, op profiles):
#   1. bfloat16, ripplekv's default;  2. bfloat16, cuDNN attention everywhere (the first run's
#   setting);  3. as 2 with TORCH_CUDNN_SDPA_CACHE_DEBUG=1 (meant to print the graph cache's hits
#   and misses; with torch 2.11 on the H200 it printed nothing);
#   4. float32 (no cuDNN attention either way);  then the Qwen2.5-1.5B shape at 2,048 tokens
#   (prefill, single-sequence decode, batched step) with 1 and 2.
# On the H200 (SmolLM2 shape, one row): 1 took 14.5 ms a step, 2 took 1,572 ms. About 3 minutes.
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
bench() {  # bench LABEL SHAPE LENGTH DTYPE [ripplekv_bench option ...] [-- VAR=VALUE ...]
  local label=$1 shape=$2 length=$3 dtype=$4
  shift 4
  local opts=() envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  envs=("$@")
  echo "## $label" | tee -a "$log"
  env "${envs[@]}" "$KIT/ripplekv_bench" --shape "$shape" --device "$DEVICE" --lengths "$length" --dtypes "$dtype" \
    --variants 1,16 --budgets "" --prefill-repeats 1 --decode-steps 8 --op-profile "${opts[@]}" >> "$log" 2>&1 || status=1
  grep -E "^RESULT impl=ripplekv(-batch)? " "$log" | tail -n 3 | sed 's/^/  /'
}
bench "smollm2 bfloat16, ripplekv's default" smollm2 512 bfloat16
bench "smollm2 bfloat16, cuDNN attention everywhere" smollm2 512 bfloat16 --cudnn-attention-everywhere
bench "smollm2 bfloat16, cuDNN attention everywhere, TORCH_CUDNN_SDPA_CACHE_DEBUG=1" smollm2 512 bfloat16 \
  --cudnn-attention-everywhere -- TORCH_CUDNN_SDPA_CACHE_DEBUG=1
bench "smollm2 float32" smollm2 512 float32
bench "qwen2.5-1.5b bfloat16, ripplekv's default" qwen2.5-1.5b 2048 bfloat16
bench "qwen2.5-1.5b bfloat16, cuDNN attention everywhere" qwen2.5-1.5b 2048 bfloat16 --cudnn-attention-everywhere
exit $status
