#!/usr/bin/env bash
# An exploratory Qwen2.5-Coder-1.5B RULER 4k run of the eviction profile
# (evict_profile/profile_evict_b128.json: each layer alone compressed by SnapKV to 128 of 1,024
# tokens, its fidelity KL the layer's score), whose size, variants and analysis were fixed
# before it started (committed with this script, before any of its predictions). The noise
# profile's r=8 rank tied CAKE at 1024 and lost at 256 on the 4k confirmatory prompts, and its
# layer order agrees with CAKE's kept tokens at only 0.46; the eviction profile measures the
# operation a budget performs, and puts layer 0 last as CAKE nearly does. Does its allocation
# close the gap to CAKE?
#
# Plan (not to be changed once predictions exist):
#   samples   30 per task x 11 tasks = 330 prompts, seed 201 (the Qwen seeds so far: 42-61,
#             200, 300), 4k. Exploratory, so sized for cost, not power: at the 4k confirmatory
#             run's spread its paired 95% interval at 1024 reaches about 2.6 points either side
#             of the estimate (1.6 at 836 prompts, times sqrt(836/330)). No early stop and no
#             extension. Started only when qwen_confirm8k.sh status shows 583 of 583: the two
#             runs would share the two cores, and its pkill would stop both.
#   methods   full, cake, RippleKV r=8 rank with the float32 layer_mean noise profile (as the
#             confirmatory runs), and RippleKV r=8 rank with the eviction profile, its layer
#             scores as committed in 1db043f3 (fa3c97df changed only its "source" note; 8
#             texts, mean; rank normalisation uses only its layer order, so one layer's
#             outlier mean moves one rank, not the budget's scale), at
#             budgets 256 and 1024, all in one call, so every pair shares the prefill and the
#             arithmetic. bfloat16 on 1 thread per shard, two shards side by side; resumed
#             across sessions by rerunning this.
#             Cost: at 4k the confirmatory run's 5 variants took about 37 s a prompt on one
#             thread (AVX-512 Xeon); with 7 variants about 45 s, so about 2 hours of both cores
#             (about 5 times as long on an AVX2 CPU; a third longer with other work on the cores).
#   analysis  once, when all 330 are scored: ripplekv table --resamples 100000 over the folder,
#             and the paired intervals (run_pair.py --resamples 100000) of
#               1. eviction r=8 rank minus CAKE at 1024 (the question), and at 256;
#               2. eviction r=8 rank minus noise r=8 rank at 1024 and at 256 (the profile alone).
#             Each is a win (loss) where its 95% interval lies above (below) 0, else a tie; all
#             four are reported, whatever they show.
#   decision  fixed now: a confirmatory run of the eviction profile on new prompts (sized by
#             samples_needed.py from this run's gap) follows only if 1 at 1024 has a point
#             estimate above 0; otherwise the README reports that the eviction profile did not
#             close the gap on these prompts, and the noise profile stays RippleKV's measure.
#
#   scripts/results/qwen_explore_evict4k.sh           run (resume) both shards, then table when complete
#   scripts/results/qwen_explore_evict4k.sh status    prompts done of 330 (no scores)
#   pkill -TERM -x ripplekv                             stop both shards (each logs its time; a pattern
#                                                       that also kills /usr/bin/time loses the peak)
# The pairs, when complete (R=results/qwen2.5-coder-1.5b-instruct/ruler4k_evict/runs):
#   .venv/bin/python scripts/results/run_pair.py --resamples 100000 \
#     $R/ripple@*evict*_b1024 $R/cake_b1024  $R/ripple@*evict*_b256 $R/cake_b256 \
#     $R/ripple@*evict*_b1024 $R/ripple@*f32_layer_mean*_b1024 \
#     $R/ripple@*evict*_b256 $R/ripple@*f32_layer_mean*_b256
# Needs scripts/setup.sh first (build/ripplekv and the .venv that get_model.sh and get_ruler_data.sh use).
# Environment: BIN, MODEL, LOGS (scripts/results/confirm_run.sh, which runs it). Each shard's wall
# time per call, peak memory and CPU kernels are appended to <folder>/wall_times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
Q=results/qwen2.5-coder-1.5b-instruct
NAME=qwen_explore_evict4k.sh DIR=$Q/ruler4k_evict
LENGTH=4096 SAMPLES=30 SEED=201 TASKS=11 BUDGETS=256,1024
PLF=$Q/profiles/profile_multi_news_8x512_f32_layer_mean.json
PEV=$Q/evict_profile/profile_evict_b128.json
METHODS="full,cake,ripple@profile=$PLF,ratio=8,normalize=rank,ripple@profile=$PEV,ratio=8,normalize=rank"
source scripts/results/confirm_run.sh; confirm_main "$@"; exit
