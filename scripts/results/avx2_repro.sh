#!/usr/bin/env bash
# Does an AVX-512 CPU reproduce, bit for bit, what the 2-core AVX2 EPYC computed? The Qwen 4k
# pool (seeds 42-61) and the confirmatory 4k run's first 180 prompts ran there
# (info.cpu_kernels `aten+widened_bf16; ATen AVX2`); the confirmatory run's other 656 on an
# AVX-512 Xeon (`avx512_bf16; ATen AVX512`). Whether the kernels explain part of the gap between
# the two is open until the EPYC's arithmetic can be run here. This reruns the first N prompts of
# one task of the confirmatory run that the EPYC predicted (niah_single_1 by default: all 76 ran
# there), the same command (5 variants, bfloat16, 1 thread), twice:
#   avx2     every library capped at AVX2: RIPPLEKV_CPU_ISA=avx2 (ripplekv's kernels: ATen's, with
#            bfloat16 prompt products widened to float32, as on a CPU without AVX-512),
#            ATEN_CPU_CAPABILITY=avx2 (ATen's vectorised kernels), ONEDNN_MAX_CPU_ISA=AVX2
#            (oneDNN's bfloat16 products), MKL_ENABLE_INSTRUCTIONS=AVX2 (MKL's float32 GEMM);
#   native   nothing capped (the control: what this CPU computes by itself);
# and compares each with the committed predictions and CAKE's per-layer budgets (kept-token
# logs, which follow the prompt's attention and so its arithmetic) with decode_agreement.py,
# then the two runs with each other.
#
# (r=8 rank's kept counts are the same for every prompt, so they always agree, and FullKV keeps
# everything: CAKE's are the measure.) The reference was made by an older binary on the EPYC; the kernels of
# models/ops it ran are those of today's (their last change predates it).
#
# Result (2026-12-06, Intel Xeon with AVX-512 BF16, N=2; results/qwen2.5-coder-1.5b-instruct/
# avx2_repro.md): no. Every prediction agrees (needle answers rarely move), but CAKE's budgets
# differ from the EPYC's in every prompt, by as much capped (3.50 tokens a layer at 1024) as
# uncapped (3.36), and the capped and uncapped runs differ from each other too: the caps change
# the arithmetic without reaching the EPYC's. So RIPPLEKV_CPU_ISA=avx2 runs ripplekv's side of an
# AVX2 CPU, not the bits of one.
#
#   scripts/results/avx2_repro.sh [N=2] [TASK=niah_single_1]      prints both comparisons
# MKL picks its code path by vendor too, so capping an Intel CPU at AVX2 need not run the kernels
# MKL ran on the AMD EPYC: where the capped run differs from the EPYC, that is what the check
# measured, not a failure of the script. Environment: BIN (default build/ripplekv), MODEL, OUT
# (default /tmp/ripplekv_avx2_repro; a rerun resumes; remove it before another N or TASK).
# Cost: on an AVX-512 Xeon about 3 minutes a prompt capped, 1 uncapped. Needs scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-2} TASK=${2:-niah_single_1}
BIN=${BIN:-build/ripplekv}
Q=results/qwen2.5-coder-1.5b-instruct
REF=$Q/ruler4k_confirm/runs
PLF=$Q/profiles/profile_multi_news_8x512_f32_layer_mean.json
METHODS="full,cake,ripple@profile=$PLF,ratio=8,normalize=rank"
MODEL=${MODEL:-$(scripts/get_model.sh qwen2.5-coder-1.5b-instruct | tail -1)}
OUT=${OUT:-/tmp/ripplekv_avx2_repro}
[ -f "$REF/data/4096/$TASK/validation.jsonl" ] || { echo "avx2_repro.sh: no $REF/data/4096/$TASK" >&2; exit 2; }
mkdir -p "$OUT/data/4096/$TASK"
head -n "$N" "$REF/data/4096/$TASK/validation.jsonl" > "$OUT/data/4096/$TASK/validation.jsonl"
run() {  # NAME [VAR=value...]: the confirmatory command on the first N prompts, in that environment
  local name=$1; shift
  env "$@" "$BIN" ruler --model "$MODEL" --dtype bfloat16 --threads 1 --lengths 4096 --samples "$N" \
    --seed 200 --data "$OUT/data" --tasks "$TASK" --budgets 256,1024 --methods "$METHODS" --out "$OUT/$name" \
    > "$OUT/log_$name.txt" 2>&1 || { echo "avx2_repro.sh: the $name run failed; see $OUT/log_$name.txt" >&2; exit 1; }
}
run avx2 RIPPLEKV_CPU_ISA=avx2 ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 & a=$!
run native & b=$!
rc=0; wait "$a" || rc=1; wait "$b" || rc=1
[ "$rc" -eq 0 ] || exit 1
kernels() { sed -n 's/.*"cpu_kernels": "\([^"]*\)".*/\1/p' "$1/full/config.json"; }
echo "# The first $N $TASK prompts of ruler4k_confirm rerun on $(lscpu | sed -n 's/^Model name: *//p'), $(date -u +%F)"
echo "(scripts/results/avx2_repro.sh $N $TASK; the EPYC side: $(kernels "$REF"))"
echo
for name in avx2 native; do
  echo "## $name ($(kernels "$OUT/$name")) against the EPYC"
  .venv/bin/python scripts/results/decode_agreement.py --labels "$name" EPYC "$OUT/$name" "$REF"
  echo
done
echo "## avx2 against native: what the caps change here"
.venv/bin/python scripts/results/decode_agreement.py --labels avx2 native "$OUT/avx2" "$OUT/native"
