#!/usr/bin/env bash
# A confirmatory Qwen2.5-Coder-1.5B RULER 8k run whose size and analysis were fixed before it
# started (committed with this script, before any of its predictions). At 8k only 44 prompts
# (seeds 42 and 43, 4 per task; ruler_pooled.sh qwen8k) compare RippleKV r=8 rank with CAKE,
# the best baseline: +2.95 [-3.30, +9.77] at 1024, a tie, and -2.80 [-5.15, -0.23] at 256, a
# loss. At 4k a pool's narrow win did not replicate in a run fixed in advance
# (qwen_confirm4k.sh: -1.23 [-2.86, +0.38]); this run asks the same of 8k, on prompts none of
# the earlier sets used.
#
# Plan (not to be changed once predictions exist):
#   samples   53 per task x 11 tasks = 583 prompts, seed 300 (the Qwen seeds so far were 42-61
#             and 200), 8k; 53 is samples_needed.py's 80%-power count at the 44 prompts' +2.95
#             at 1024 (88% simulated). Its power is 48% (57% simulated) at +2, 21% at +1.23,
#             and 100% at the -2.80 of 256:
#               samples_needed.py --per-task 53 [--effect 2] --simulate 200 --set .../ruler8k
#                 --set .../ruler8k_seed43 'ripple@*f32*ratio=8_normalize=rank_b1024' cake_b1024
#             No early stop and no extension.
#             Cost: a two-prompt timing trial (seed 299, one niah_multikey_3 and one cwe prompt,
#             side by side on the 2-core AVX-512 Xeon, not kept) took 55 and 74 s a prompt on one
#             thread, so about 5 hours of the two cores, over sessions.
#   methods   full, cake, and RippleKV r=8 rank with the float32 layer_mean profile, at budgets
#             256 and 1024, as qwen_confirm4k.sh; bfloat16 on 1 thread per shard (Qwen's prompt
#             bits depend on the thread count), two shards side by side; resumed across
#             sessions by rerunning this.
#   analysis  once, when all 583 are scored: ripplekv table --resamples 100000 over the folder.
#             Primary: r=8 rank minus CAKE at 1024; secondary: the same at 256. Each is a win
#             (loss) where its 95% paired bootstrap interval lies above (below) 0, else a tie.
#             This run is reported on its own, not pooled with the 44 prompts.
#
#   scripts/results/qwen_confirm8k.sh           run (resume) both shards, then table when complete
#   scripts/results/qwen_confirm8k.sh status    prompts done of 583 (no scores)
#   pkill -TERM -x ripplekv                       stop both shards (each logs its time; a pattern
#                                                 that also kills /usr/bin/time loses the peak)
# Needs scripts/setup.sh first (build/ripplekv and the .venv that get_model.sh and get_ruler_data.sh use).
# Environment: BIN, MODEL, LOGS (scripts/results/confirm_run.sh, which runs it). Each shard's wall
# time per call, peak memory and CPU kernels are appended to <folder>/wall_times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
Q=results/qwen2.5-coder-1.5b-instruct
NAME=qwen_confirm8k.sh DIR=$Q/ruler8k_confirm
LENGTH=8192 SAMPLES=53 SEED=300 TASKS=11 BUDGETS=256,1024
PLF=$Q/profiles/profile_multi_news_8x512_f32_layer_mean.json
METHODS="full,cake,ripple@profile=$PLF,ratio=8,normalize=rank"
source scripts/results/confirm_run.sh; confirm_main "$@"; exit
