#!/usr/bin/env bash
# The GPU checks (issue 11's `--device cuda`, and the on-the-fly float32 profile of a CUDA run),
# for a session lent a GPU machine: built here, run there from device_kit/ (make_kit.sh) in
# about 5 minutes, no build and no network needed there. Writes $OUT/summary.txt (a PASS or FAIL
# line per check) and $OUT/bench.txt (scripts/bench.sh's table), and exits 1 if a check fails.
#   1. stories260K greedy on the device, float32: the 256 ids of the llama2.c reference.
#   2. fidelity on stories260K in float32, CPU against the device, every method (RippleKV with a
#      profile measured on the fly): KL means within 1e-4 + 2% and the same kept fractions. The
#      methods that select with SnapKV's scores run with pooling=avg here: with max pooling (the
#      default, as in the reference code) the scores hold exact ties, which at::topk breaks one
#      way on the CPU and another on CUDA (the references' torch.topk presumably too); on the H200
#      that moved SnapKV's KL by 0.5-42% per text, where avg and no pooling agreed within 8.1e-6
#      (results/gpu_h200/second_run_2026-12-04/).
#   3. the same run in bfloat16 on both: the on-the-fly profile is measured in float32 (a float32
#      copy loaded on the run's device) and equals the CPU's within 2% per layer, same order.
#   4. DEVICE=cuda scripts/bench.sh against HF transformers: MFU, % of HBM bandwidth, decode
#      ms/token, the batched step for V = 1, 16 (SHAPES, LENGTHS, DTYPES narrow it).
# On the device tool (carry device_kit):
#   scripts/device/make_kit.sh    # here, after a build
#   run: scripts/device/check.sh  # there; OUT is the tool's folder
# NO_BENCH=1 stops after checks 1-3.
# DEVICE=cpu runs the same flow on the CPU (a trial of the kit; the comparisons are then trivial).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ripplekv_device_check}
source scripts/device/kit_env.sh check.sh ripplekv ripplekv_bench
R=$KIT/ripplekv
S=$KIT/stories260K
summary=$OUT/summary.txt
{
  echo "# device check: kit of $(cat "$KIT/commit.txt" 2>/dev/null), device $DEVICE, $(date -u +%FT%TZ)"
  "$PY" -c 'import torch; print("# torch", torch.__version__, "cuda", torch.version.cuda,
    torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")'
} > "$summary"
status=0
check() { "$PY" scripts/device/compare.py "$@" | tee -a "$summary" || status=1; }
fidelity() {  # fidelity DEVICE DTYPE NAME
  "$R" fidelity --model "$S/stories260K.bin" --tokenizer "$S/tok512.model" --texts "$KIT/texts.txt" \
    --texts-format blocks --prompt-tokens 256 --continuation 64 --max-texts 6 --budgets 32,64 \
    --methods "snapkv@pooling=avg,pyramidkv@pooling=avg,streamingllm,h2o,cake,squeeze@pooling=avg,ripple@ratio=2,pooling=avg,profile_cache=$OUT/$3_profile" \
    --calibration "$KIT/texts.txt" --device "$1" --dtype "$2" --out "$OUT/$3" > "$OUT/$3.log" 2>&1 ||
    { echo "FAIL fidelity $3: exit $? (see $3.log)" | tee -a "$summary"; status=1; }
}

"$R" generate --model "$S/stories260K.bin" --tokenizer "$S/tok512.model" --max-new-tokens 256 --show-ids \
  --device "$DEVICE" > "$OUT/greedy.txt" 2>&1
check greedy "$OUT/greedy.txt" "$S/greedy_reference.json"
fidelity cpu float32 fid_cpu_f32
fidelity "$DEVICE" float32 fid_dev_f32
check fidelity "$OUT/fid_cpu_f32/fidelity.csv" "$OUT/fid_dev_f32/fidelity.csv"
fidelity cpu bfloat16 fid_cpu_bf16
fidelity "$DEVICE" bfloat16 fid_dev_bf16
check profiles "$OUT/fid_cpu_bf16_profile" "$OUT/fid_dev_bf16_profile"
[ "${NO_BENCH:-0}" = 1 ] && { cat "$summary"; exit $status; }   # checks 1-3 only
SHAPES=${SHAPES:-smollm2,qwen2.5-1.5b,tinyllama} LENGTHS=${LENGTHS:-2048,8192} DTYPES=${DTYPES:-bfloat16} \
  VARIANTS=${VARIANTS:-1,16} DEVICE=$DEVICE BENCH=$KIT/ripplekv_bench PY=$PY scripts/bench.sh > "$OUT/bench.txt" 2>&1 ||
  { echo "FAIL bench: exit $? (see bench.txt)" | tee -a "$summary"; status=1; }
tail -n 40 "$OUT/bench.txt"
cat "$summary"
exit $status
