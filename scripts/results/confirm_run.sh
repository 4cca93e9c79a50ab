# The mechanics of a RULER run whose size and analysis were fixed in advance (the confirmatory
# qwen_confirm4k.sh and qwen_confirm8k.sh, the exploratory qwen_explore_evict4k.sh): two
# 1-thread shards side by side, resumed by rerunning, each call's wall time, peak memory and
# CPU kernels logged, and the table made once, when every prompt is scored. Sourced, not run:
# the plan script sets
#   NAME     its name, for messages (e.g. qwen_confirm8k.sh)
#   DIR      the run's folder (runs/ and tables/ go under it, wall_times.txt beside them)
#   LENGTH SAMPLES SEED TASKS BUDGETS METHODS   what ruler runs (TASKS: how many tasks, 11)
# and then calls confirm_main "$@". Environment: BIN (default build/ripplekv), MODEL (default:
# scripts/get_model.sh's checkpoint), LOGS (default /tmp/ripplekv_<NAME without .sh>: each
# shard's output, with its progress line and ETA).
# bash reads a sourced file whole before running it, and the plan script's last line calls
# confirm_main, so editing either while a run goes on cannot change what runs next; the program
# can change (a rebuild between calls), so each call logs its binary's sha256 beside its time.

BIN=${BIN:-build/ripplekv}

confirm_done_prompts() {  # distinct (task, sample) predictions of the full-cache run, merged or in shards/
  local f files=()
  for f in "$DIR"/runs/full/"$LENGTH"/*.jsonl "$DIR"/runs/full/"$LENGTH"/shards/*.jsonl; do
    [ -e "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || { echo 0; return; }
  for f in "${files[@]}"; do
    local task; task=$(basename "$f"); task=${task%%.*}
    grep -o '"index":[0-9]*' "$f" | sed "s/^/$task /"
  done | sort -u | wc -l
}

confirm_unscored() {  # the first variant folder under runs/ (one with config.json) lacking its result.json
  local d
  for d in "$DIR"/runs/*/; do
    if [ -f "$d/config.json" ] && [ ! -f "$d/result.json" ]; then basename "$d"; return; fi
  done
}

confirm_kernels() {  # the CPU kernels shard I ran with (the bits follow them; the CPU may change between sessions)
  local k  # the run notes a resume whose kernels differ from the ones config.json recorded first
  k=$(grep -o 'resumed with [^:]*:' "$LOGS/log_shard$1.txt" | head -1 | sed 's/^resumed with //; s/:$//')
  [ -n "$k" ] || k=$(sed -n 's/.*"cpu_kernels": "\(.*\)".*/\1/p' "$DIR/runs/full/config.json" 2>/dev/null)
  echo "${k:-unknown} ($(lscpu | sed -n 's/^Model name: *//p'))"
}

confirm_shard() {  # shard I: one 1-thread shard of the fixed command, its time, peak and kernels appended
  local start rc=0 peak
  start=$(date +%s)
  /usr/bin/time -v -o "$LOGS/time_shard$1.txt" "$BIN" ruler --model "$MODEL" --dtype bfloat16 --threads 1 \
    --lengths "$LENGTH" --samples "$SAMPLES" --seed "$SEED" --budgets "$BUDGETS" --methods "$METHODS" \
    --shard "$1/2" --out "$DIR/runs" > "$LOGS/log_shard$1.txt" 2>&1 || rc=$?
  peak=$(awk '/Maximum resident/{printf "%.1f", $6/1048576}' "$LOGS/time_shard$1.txt" 2>/dev/null || true)
  echo "shard $1/2: $(date -u +%FT%TZ) ran $(( $(date +%s) - start )) s, exit $rc, peak ${peak:-?} GiB," \
    "$(confirm_done_prompts) of $((SAMPLES * TASKS)) prompts done, kernels $(confirm_kernels "$1")," \
    "binary sha256 $(sha256sum "$BIN" | cut -c1-12)" >> "$DIR/wall_times.txt"
  return $rc
}

confirm_main() {
  local total=$((SAMPLES * TASKS)) rc=0
  if [ "${1:-}" = status ]; then
    echo "$(confirm_done_prompts) of $total prompts predicted in $DIR/runs"
    return 0
  fi
  [ $# -eq 0 ] || { echo "$NAME: unknown argument $1 (none, or status)" >&2; return 2; }
  [ -x "$BIN" ] || { echo "$NAME: $BIN is missing: run scripts/setup.sh first (or set BIN)" >&2; return 2; }
  [ -x /usr/bin/time ] || { echo "$NAME: /usr/bin/time is missing: apt-get install time (scripts/setup.sh does)" >&2; return 2; }

  MODEL=${MODEL:-$(scripts/get_model.sh qwen2.5-coder-1.5b-instruct | tail -1)}
  scripts/get_ruler_data.sh > /dev/null   # RULER's word lists (a fresh machine lacks them)
  LOGS=${LOGS:-/tmp/ripplekv_${NAME%.sh}}
  mkdir -p "$DIR" "$LOGS"
  confirm_shard 0 & local s0=$!
  confirm_shard 1 & local s1=$!
  wait $s0 || rc=1
  wait $s1 || rc=1
  # The table is made once: when every prompt is predicted and every variant scored (the last
  # shard to finish merges and scores; a stop during scoring leaves a folder without result.json).
  local predicted unscored
  predicted=$(confirm_done_prompts) unscored=$(confirm_unscored)
  if [ "$predicted" -eq "$total" ] && [ -z "$unscored" ]; then
    "$BIN" table --resamples 100000 --runs "$DIR/runs" --out "$DIR/tables"
  elif [ "$predicted" -eq "$total" ]; then
    echo "$NAME: all $total prompts are predicted, but $DIR/runs/$unscored has no result.json" \
      "(its scoring did not finish); rerun to score (shard logs in $LOGS)"
  else
    echo "$NAME: $predicted of $total prompts done; rerun to resume (shard logs in $LOGS)"
  fi
  return $rc
}
