# Sourced by the resumable results scripts (qwen_subset.sh, smollm2_f32.sh, smollm2_prompt.sh):
#   step NAME DONE_FILE COMMAND...
# runs COMMAND unless DONE_FILE exists (a finished step is kept, so rerunning the script
# resumes it), and appends its wall time to $OUT/wall_times.txt as "SCRIPT: NAME took N s" once
# DONE_FILE exists; a command that ends without writing it (a dry run with BIN=/bin/echo, say)
# records no time and says so on stderr.
step() {
  local name=$1 done_file=$2
  shift 2
  if [ -f "$done_file" ]; then return; fi
  local start
  start=$(date +%s)
  "$@"
  if [ ! -f "$done_file" ]; then
    echo "$(basename "$0"): $name ended without writing $done_file; no wall time recorded" >&2
    return
  fi
  echo "$(basename "$0"): $name took $(( $(date +%s) - start )) s" | tee -a "$OUT/wall_times.txt"
}
