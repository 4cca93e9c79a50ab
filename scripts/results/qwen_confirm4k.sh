#!/usr/bin/env bash
# A confirmatory Qwen2.5-Coder-1.5B RULER 4k run whose size and analysis were fixed before it
# started (committed with this script, before any of its predictions). The 451-prompt pool
# (ruler_pooled.sh qwen4k_more) was tested after each of eight batches and grown because its
# verdicts were unclear, so its narrow win of r=8 rank over CAKE at 1024 (+1.98 [+0.14, +3.90])
# and loss at 256 (-2.12 [-4.01, -0.14]) are weaker than their nominal 95%. This run tests them
# on prompts none of those sets used.
#
# Plan (not to be changed once predictions exist):
#   samples   76 per task x 11 tasks = 836 prompts, seed 200 (the seeds so far were 42-61), 4k;
#             76 is samples_needed.md's 80%-power count at the pool's +1.98 (at the 407-prompt
#             estimate +1.27 the power is 44%: samples_needed.py --per-task 76 --effect 1.27).
#             No early stop and no extension.
#   methods   full, cake, and RippleKV r=8 rank with the float32 layer_mean profile, at budgets
#             256 and 1024; bfloat16 on 1 thread per shard (Qwen's prompt bits depend on the
#             thread count), two shards side by side; resumed across sessions by rerunning this.
#   analysis  once, when all 836 are scored: ripplekv table --resamples 100000 over the folder.
#             Primary: r=8 rank minus CAKE at 1024; secondary: the same at 256. Each is a win
#             (loss) where its 95% paired bootstrap interval lies above (below) 0, else a tie.
#             This run is reported on its own, not pooled with the 451 prompts.
#
#   scripts/results/qwen_confirm4k.sh           run (resume) both shards, then table when complete
#   scripts/results/qwen_confirm4k.sh status    prompts done of 836 (no scores)
#   pkill -TERM -x ripplekv                       stop both shards (each logs its time; a pattern
#                                                 that also kills /usr/bin/time loses the peak)
# Needs scripts/setup.sh first (build/ripplekv and the .venv that get_model.sh and get_ruler_data.sh use).
# Environment: BIN (default build/ripplekv), MODEL (default: scripts/get_model.sh's checkpoint),
# LOGS (default /tmp/ripplekv_confirm4k: each shard's output, with its progress line and ETA).
# Each shard's wall time per call, peak memory and CPU kernels are appended to <folder>/wall_times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
Q=results/qwen2.5-coder-1.5b-instruct
DIR=$Q/ruler4k_confirm
SAMPLES=76 SEED=200 TASKS=11
PLF=$Q/profiles/profile_multi_news_8x512_f32_layer_mean.json
METHODS="full,cake,ripple@profile=$PLF,ratio=8,normalize=rank"

done_prompts() {  # distinct (task, sample) predictions of the full-cache run, merged or in shards/
  local f files=()
  for f in "$DIR"/runs/full/4096/*.jsonl "$DIR"/runs/full/4096/shards/*.jsonl; do [ -e "$f" ] && files+=("$f"); done
  [ ${#files[@]} -gt 0 ] || { echo 0; return; }
  for f in "${files[@]}"; do
    local task; task=$(basename "$f"); task=${task%%.*}
    grep -o '"index":[0-9]*' "$f" | sed "s/^/$task /"
  done | sort -u | wc -l
}

shard() {  # shard I: one 1-thread shard of the fixed command, its time, peak and kernels appended
  local start rc=0
  start=$(date +%s)
  /usr/bin/time -v -o "$LOGS/time_shard$1.txt" "$BIN" ruler --model "$MODEL" --dtype bfloat16 --threads 1 \
    --lengths 4096 --samples "$SAMPLES" --seed "$SEED" --budgets 256,1024 --methods "$METHODS" \
    --shard "$1/2" --out "$DIR/runs" > "$LOGS/log_shard$1.txt" 2>&1 || rc=$?
  local peak
  peak=$(awk '/Maximum resident/{printf "%.1f", $6/1048576}' "$LOGS/time_shard$1.txt")
  echo "shard $1/2: $(date -u +%FT%TZ) ran $(( $(date +%s) - start )) s, exit $rc, peak $peak GiB," \
    "$(done_prompts) of $((SAMPLES * TASKS)) prompts done, kernels $(kernels "$1")" >> "$DIR/wall_times.txt"
}

kernels() {  # the CPU kernels shard I ran with (the bits follow them; the CPU may change between sessions)
  local k  # the run notes a resume whose kernels differ from the ones config.json recorded first
  k=$(grep -o 'resumed with [^:]*:' "$LOGS/log_shard$1.txt" | head -1 | sed 's/^resumed with //; s/:$//')
  [ -n "$k" ] || k=$(sed -n 's/.*"cpu_kernels": "\(.*\)".*/\1/p' "$DIR/runs/full/config.json")
  echo "${k:-unknown} ($(lscpu | sed -n 's/^Model name: *//p'))"
}
# The whole file is read before anything runs (main below), so editing it while a run goes on
# cannot change what the running shell executes next.
main() {
  if [ "${1:-}" = status ]; then
    echo "$(done_prompts) of $((SAMPLES * TASKS)) prompts predicted in $DIR/runs"
    exit 0
  fi
  [ $# -eq 0 ] || { echo "qwen_confirm4k.sh: unknown argument $1 (none, or status)" >&2; exit 2; }

  MODEL=${MODEL:-$(scripts/get_model.sh qwen2.5-coder-1.5b-instruct | tail -1)}
  scripts/get_ruler_data.sh > /dev/null   # RULER's word lists (a fresh machine lacks them)
  LOGS=${LOGS:-/tmp/ripplekv_confirm4k}
  mkdir -p "$DIR" "$LOGS"
  shard 0 & shard 1 & wait
  if [ "$(done_prompts)" -eq $((SAMPLES * TASKS)) ] && [ -f "$DIR/runs/cake_b1024/result.json" ]; then
    "$BIN" table --resamples 100000 --runs "$DIR/runs" --out "$DIR/tables"
  else
    echo "qwen_confirm4k.sh: $(done_prompts) of $((SAMPLES * TASKS)) prompts done; rerun to resume"
  fi
}
main "$@"; exit
