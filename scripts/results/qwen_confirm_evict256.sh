#!/usr/bin/env bash
# A confirmatory Qwen2.5-Coder-1.5B RULER 4k run of the eviction profile at budget 256, whose
# size and analysis were fixed before it started (committed with this script, before any of its
# predictions). The exploratory run (qwen_explore_evict4k.sh, 330 prompts, seed 201) found r=8
# rank with the eviction profile ahead of CAKE at 256, +3.38 [+1.04, +5.71], one of four
# intervals looked at, for a variant chosen after the 4k confirmatory run. That plan's own rule
# (about 1024) called for no confirmatory run; this is a new test of the 256 lead alone, written
# after seeing it, on prompts no run has used.
#
# Plan (not to be changed once predictions exist):
#   samples   35 per task x 11 tasks = 385 prompts, seed 202 (the Qwen seeds so far: 42-61, 200,
#             201, 300), 4k. samples_needed.py --per-task 35 --effect E --set
#             .../ruler4k_evict 'ripple@*evict*_b256' cake_b256 gives a power of 0.86 at the
#             exploratory +3.38, 0.61 at +2.5 and 0.43 at +2.0: a gap shrunk by the choice among
#             four intervals may well come out a tie here, and the README says so whatever this
#             shows. 35 is what one session's two cores allow (a 2-shard trial on seed-201
#             prompts: 36 s a prompt a thread for these 3 variants, so about 1 h 56 min). No
#             early stop and no extension.
#   methods   full, cake, and RippleKV r=8 rank with the eviction profile
#             (evict_profile/profile_evict_b128.json, the file the exploratory run used), at
#             budget 256 only, in one call (one prefill per prompt); bfloat16 on 1 thread per
#             shard, two shards side by side; resumed across sessions by rerunning this.
#   analysis  once, when all 385 are scored: ripplekv table --resamples 100000 over the folder,
#             and the one question's paired interval (run_pair.py --resamples 100000):
#               eviction r=8 rank minus CAKE at 256.
#             A win (loss) where its 95% interval lies above (below) 0, else a tie. Reported on
#             its own, not pooled with the exploratory 330 prompts.
#   decision  fixed now: a win makes the 256 lead replicated (one model, 4k, one budget) and the
#             README reports it as such; the eviction profile stays an option (profile=), not the
#             default, since it tied CAKE at 1024 and was measured on one model. A tie or a loss:
#             the README reports that the 256 lead did not replicate.
#
#   scripts/results/qwen_confirm_evict256.sh           run (resume) both shards, then table when complete
#   scripts/results/qwen_confirm_evict256.sh status    prompts done of 385 (no scores)
#   pkill -TERM -x ripplekv                              stop both shards (each logs its time; a pattern
#                                                        that also kills /usr/bin/time loses the peak)
# The pair, when complete (R=results/qwen2.5-coder-1.5b-instruct/ruler4k_evict256_confirm/runs):
#   .venv/bin/python scripts/results/run_pair.py --resamples 100000 $R/ripple@*evict*_b256 $R/cake_b256
# Needs scripts/setup.sh first (build/ripplekv and the .venv that get_model.sh and get_ruler_data.sh use).
# Environment: BIN, MODEL, LOGS (scripts/results/confirm_run.sh, which runs it). Each shard's wall
# time per call, peak memory and CPU kernels are appended to <folder>/wall_times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
Q=results/qwen2.5-coder-1.5b-instruct
NAME=qwen_confirm_evict256.sh DIR=$Q/ruler4k_evict256_confirm
LENGTH=4096 SAMPLES=35 SEED=202 TASKS=11 BUDGETS=256
PEV=$Q/evict_profile/profile_evict_b128.json
METHODS="full,cake,ripple@profile=$PEV,ratio=8,normalize=rank"
source scripts/results/confirm_run.sh; confirm_main "$@"; exit
