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
# Environment: BIN, MODEL, LOGS (scripts/results/confirm_run.sh, which runs it). Each shard's wall
# time per call, peak memory and CPU kernels are appended to <folder>/wall_times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
Q=results/qwen2.5-coder-1.5b-instruct
NAME=qwen_confirm4k.sh DIR=$Q/ruler4k_confirm
LENGTH=4096 SAMPLES=76 SEED=200 TASKS=11 BUDGETS=256,1024
PLF=$Q/profiles/profile_multi_news_8x512_f32_layer_mean.json
METHODS="full,cake,ripple@profile=$PLF,ratio=8,normalize=rank"
source scripts/results/confirm_run.sh; confirm_main "$@"; exit
