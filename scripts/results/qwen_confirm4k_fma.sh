#!/usr/bin/env bash
# How far the confirmatory run's paired gap moves when only the arithmetic changes (exploratory,
# not part of its plan). The confirmatory run (qwen_confirm4k.sh) ran 656 of its 836 prompts with
# the avx512_bf16 kernels and the first 180 with aten+widened_bf16 (another CPU). This reruns its
# niah_multikey_3 prompts (the task of its largest gap at 1024: r=8 rank 55.26, CAKE 76.32, all
# with avx512_bf16) for CAKE and r=8 rank at 1024, the same command but for
# RIPPLEKV_CPU_ISA=avx512: ripplekv's float32-FMA kernels instead of bfloat16 dot products (the
# same prompts: seed 200, 76 samples, 4k; 1 thread per shard, two shards side by side). It needs
# an AVX-512 CPU: without one RIPPLEKV_CPU_ISA=avx512 gives ATen's kernels, not the FMA ones.
#
#   scripts/results/qwen_confirm4k_fma.sh     run (resume) both shards
# Then, per task, r=8 rank minus CAKE in each arithmetic and how many predictions agree
# (ruler4k_confirm_fma/comparison.md holds both, with the full commands):
#   .venv/bin/python scripts/results/run_pair.py --columns niah_multikey_3 \
#     ruler4k_confirm_fma/runs/<ripple>_b1024 ruler4k_confirm_fma/runs/cake_b1024 \
#     ruler4k_confirm/runs/<ripple>_b1024 ruler4k_confirm/runs/cake_b1024
#   .venv/bin/python scripts/results/decode_agreement.py --labels fma bf16dot ruler4k_confirm_fma/runs ruler4k_confirm/runs
# (folders under results/qwen2.5-coder-1.5b-instruct/). Needs scripts/setup.sh first. Environment:
# BIN (default build/ripplekv), MODEL, LOGS (default /tmp/ripplekv_confirm4k_fma). Each shard's
# wall time is appended to <folder>/wall_times.txt; the script exits 1 if a shard failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qw avx512f /proc/cpuinfo || { echo "qwen_confirm4k_fma.sh: needs an AVX-512 CPU (see its header)" >&2; exit 2; }
BIN=${BIN:-build/ripplekv}
Q=results/qwen2.5-coder-1.5b-instruct
DIR=$Q/ruler4k_confirm_fma
PLF=$Q/profiles/profile_multi_news_8x512_f32_layer_mean.json
METHODS="cake,ripple@profile=$PLF,ratio=8,normalize=rank"
MODEL=${MODEL:-$(scripts/get_model.sh qwen2.5-coder-1.5b-instruct | tail -1)}
scripts/get_ruler_data.sh > /dev/null
LOGS=${LOGS:-/tmp/ripplekv_confirm4k_fma}
mkdir -p "$DIR" "$LOGS"
shard() {
  local start rc=0
  start=$(date +%s)
  RIPPLEKV_CPU_ISA=avx512 "$BIN" ruler --model "$MODEL" --dtype bfloat16 --threads 1 --lengths 4096 \
    --samples 76 --seed 200 --tasks niah_multikey_3 --budgets 1024 --methods "$METHODS" \
    --shard "$1/2" --out "$DIR/runs" > "$LOGS/log_shard$1.txt" 2>&1 || rc=$?
  echo "shard $1/2: $(date -u +%FT%TZ) ran $(( $(date +%s) - start )) s, exit $rc," \
    "$(lscpu | sed -n 's/^Model name: *//p')" >> "$DIR/wall_times.txt"
  return "$rc"
}
shard 0 & p0=$!
shard 1 & p1=$!
status=0
wait "$p0" || status=1
wait "$p1" || status=1
[ "$status" -eq 0 ] || echo "qwen_confirm4k_fma.sh: a shard failed; see $LOGS/log_shard*.txt, then rerun to resume" >&2
exit "$status"
