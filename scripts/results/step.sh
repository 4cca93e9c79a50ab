# Sourced by the resumable results scripts (qwen_subset.sh, smollm2_f32.sh):
#   step NAME DONE_FILE COMMAND...
# runs COMMAND unless DONE_FILE exists (a finished step is kept, so rerunning the script
# resumes it), and appends its wall time to $OUT/wall_times.txt as "SCRIPT: NAME took N s".
step() {
  local name=$1 done_file=$2
  shift 2
  if [ -f "$done_file" ]; then return; fi
  local start
  start=$(date +%s)
  "$@"
  echo "$(basename "$0"): $name took $(( $(date +%s) - start )) s" | tee -a "$OUT/wall_times.txt"
}
