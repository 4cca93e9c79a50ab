#!/usr/bin/env bash
# RULER on a real model on the lent GPU machine: rebuilds the model there from its GGUF (carried
# in parts, device_gguf/part*, one per call: make_kit.sh with REAL_MODEL), checks the weights'
# digest against the ones made here, then runs `ripplekv ruler --device cuda` for each job of
# PLAN until BUDGET_S seconds have passed since the start, and packs the run folders.
#   here:  REAL_MODEL=smollm2-135m-instruct scripts/device/make_kit.sh
#   there: call 1 carries device_kit and device_gguf/part00 (e.g. with check.sh), the next
#          calls one part each; the last runs this script (carry device_kit and its part): the
#          parts of the earlier calls stay on the warm machine (ignored paths are kept).
#          Without all parts it stops at once, listing the parts it found. What travels is
#          64 MiB a call: with this repository's results (78 MiB tracked) move
#          results/smollm2-135m-instruct, results/qwen2.5-coder-1.5b-instruct and tests/ out of
#          the checkout for the calls (about 2 MiB stays) and put them back after.
# PLAN (default scripts/device/plans/smollm2_ruler.sh) is sourced: each `job NAME ARGS...` in it
# runs `ripplekv ruler` with ARGS beside the options set here (--model, --device, --dtype,
# --threads, --haystack, --words, --out) under `timeout` for the time left; a job cut short keeps
# its finished samples (runs resume) and is marked so in jobs.txt; jobs with under 20 s left are
# skipped.
# Writes to $OUT: runs.tar.gz (<NAME>/runs/... of every job, packed again after each job, so a
# call cut short still returns the finished ones), jobs.txt (seconds and exit status of each
# job), log.txt, smi.csv (GPU memory and utilisation every 2 s), summary.txt. Exits 1 when a job
# failed (an exit status other than 0 or timeout's 124) or nothing could be packed.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ripplekv_real_model}
T0=$(date +%s)
BUDGET_S=${BUDGET_S:-420}
PLAN=${PLAN:-scripts/device/plans/smollm2_ruler.sh}
source scripts/device/kit_env.sh real_model.sh ripplekv
RK=$KIT/real
left() { echo $((BUDGET_S - ($(date +%s) - T0))); }
say() { echo "[real_model $(($(date +%s) - T0))s] $*" | tee -a "$OUT/summary.txt" >&2; }
[ -f "$RK/name.txt" ] || { echo "real_model.sh: $RK is missing; run REAL_MODEL=NAME scripts/device/make_kit.sh here" >&2; exit 2; }
[ -f "$PLAN" ] || { echo "real_model.sh: PLAN $PLAN does not exist" >&2; exit 2; }
NAME=$(cat "$RK/name.txt")

# 1. The GGUF from its parts, checked.
gguf_name=$(awk '{print $2}' "$RK/gguf.sha256")
W=/tmp/ripplekv_real_model_work
MODEL=$W/$NAME  # named as here: tables take their title from the model folder's name
mkdir -p "$MODEL"
cat device_gguf/part* > "$W/$gguf_name" 2>/dev/null
sums=$(realpath "$RK/gguf.sha256")
if ! (cd "$W" && sha256sum -c --quiet "$sums"); then
  say "FAIL: device_gguf/ holds $(ls device_gguf 2>/dev/null | tr '\n' ' ')- not the whole $gguf_name (carry each part in one call of a warm machine)"
  exit 3
fi
say "GGUF $gguf_name assembled and checked ($(stat -c %s "$W/$gguf_name") bytes)"

# 2. The weights, rebuilt with gguf-py and checked against get_model.sh's, and the model folder.
"$PY" -m pip install -q --disable-pip-version-check --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$RK"/whl/*.whl ||
  { say "FAIL: installing the gguf wheel"; exit 3; }
PYTHONPATH=/tmp/site "$PY" scripts/device/gguf_weights.py --gguf "$W/$gguf_name" --out "$MODEL/model.safetensors" \
  --expect "$(cat "$RK/weights.digest")" >> "$OUT/log.txt" 2>&1 || { say "FAIL: weights (see log.txt)"; tail -3 "$OUT/log.txt"; exit 3; }
cp "$RK"/model/* "$MODEL/"
rm -f "$W/$gguf_name"
say "weights rebuilt, digest $(cat "$RK/weights.digest")"

# 3. The profiles at their repository path: a RippleKV variant's folder name holds that path.
mkdir -p "results/$NAME/profiles"
cp "$RK"/profiles/*.json "results/$NAME/profiles/"

# 4. The jobs.
nvidia-smi --query-gpu=timestamp,memory.used,utilization.gpu --format=csv -l 2 > "$OUT/smi.csv" 2>/dev/null &
smi=$!
threads=$(nproc)
echo "job seconds exit" > "$OUT/jobs.txt"
failed=0
pack() { [ -d "$W/runs" ] && tar -C "$W/runs" -czf "$OUT/runs.tar.gz" .; }
job() {  # job NAME ARGS...: one ripplekv ruler run for the time left
  local name=$1 t s rc
  shift
  t=$(left)
  if [ "$t" -lt 20 ]; then say "skip $name: ${t}s left"; return; fi
  s=$(date +%s)
  timeout -k 10 "$t" "$KIT/ripplekv" ruler --model "$MODEL" --device "$DEVICE" --dtype bfloat16 --threads "$threads" \
    --haystack "$RK/haystack/PaulGrahamEssays" --words "$RK/words" "$@" --out "$W/runs/$name/runs" < /dev/null >> "$OUT/log.txt" 2>&1
  rc=$?
  echo "$name $(($(date +%s) - s)) $rc$([ $rc = 124 ] && echo ' (cut at the budget; finished samples kept)')" >> "$OUT/jobs.txt"
  say "$name: exit $rc after $(($(date +%s) - s)) s"
  [ "$rc" = 0 ] || [ "$rc" = 124 ] || failed=1
  pack || failed=1
}
# shellcheck source=plans/smollm2_ruler.sh
source "$PLAN"
kill "$smi" 2>/dev/null
if pack; then say "packed $(du -h "$OUT/runs.tar.gz" | cut -f1) of run folders"; else say "FAIL: no run folders to pack"; failed=1; fi
cat "$OUT/jobs.txt"
exit "$failed"
