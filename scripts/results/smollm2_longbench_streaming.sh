#!/usr/bin/env bash
# StreamingLLM's selector with RippleKV's budgets (`streamingllm:ripple`) on SmolLM2's LongBench,
# with today's float32 layer_mean profile: the answers-scored half of smollm2_streaming.sh (fidelity
# and RULER 4k), as smollm2_longbench_h2o.sh is of fidelity32_h2o.sh. Its size, variants and use
# were fixed before it started (committed with this script, before any of its records, after
# smollm2_streaming.sh's fidelity records and before any of its RULER records was read).
# Why: `streamingllm:ripple` ran on LongBench only with the older `relative` bfloat16 profile
# (longbench/runs, ties with uniform StreamingLLM), and uniform StreamingLLM has run on the
# headline's 13 tasks only at budget 64 (longbench_pairs/).
#
# Plan (not to be changed once records exist):
#   1. run         the headline row's samples: 13 English MiniLongBench tasks, at most 6 samples
#                  each (76), prompts cut to 4,096 tokens, ChatML, bfloat16; streamingllm (the
#                  uniform twin) and streamingllm:ripple with PLF at r=2 min-max, r=4 min-max and
#                  r=8 rank (smollm2_streaming.sh's settings), budgets 128, 256, 512 and 1024; one
#                  grid (shared prefill per prompt), two 1-thread shards side by side (SHARD=0/2 and
#                  1/2; the last to finish merges and scores). About 15-25 minutes (the H2O run of
#                  3 variants took 1,352 s on 1 thread). It starts after smollm2_streaming.sh
#                  ruler4k ends.
#   2. multi_news  all 200 samples of ../shared/data/longbench/raw multi_news, 4,096-token prompts,
#                  budget 256, streamingllm and streamingllm:ripple with PLF at r=2 and r=8 rank
#                  (the settings of the H2O-selector multi_news rows), two 1-thread shards side by
#                  side. About 50 minutes. It starts only if 1 has finished by 08:35 UTC on
#                  2026-12-07, and is stopped, unread, if it has not finished by 09:40 UTC (a
#                  session's time, decided now, not by any record); a stopped run's folder is set
#                  aside, not committed.
#   analysis  ripplekv table over each folder: each setting minus uniform StreamingLLM at each
#             budget, the Avg over tasks (1) or the multi_news score (2) with its 95% paired
#             bootstrap interval over samples (2000 resamples); a tie where it holds 0.
#   reading   fixed now: reported in the README whatever it shows, beside smollm2_streaming.sh's
#             fidelity and RULER answers; on answers scored, measured budgets improve
#             StreamingLLM's selection for a setting that beats uniform StreamingLLM at two or
#             more of the four LongBench budgets and loses at none, not for one that loses at two
#             or more and wins at none, else the effect is mixed or none (all ties). The headline
#             keeps the default selector (SnapKV); no default changes on this run alone.
#
#   scripts/results/smollm2_longbench_streaming.sh [run] [tables] [multi_news] [multi_news_tables]
#       (default: run and tables; rerun to resume)
# Environment: BIN (default build/ripplekv), SHARD (i/n: one shard of run or multi_news). Wall
# times go to the model's wall_times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
source scripts/results/step.sh  # step NAME DONE_FILE COMMAND...
S=results/smollm2-135m-instruct
PLF=$S/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json
GRID=streamingllm
for r in ratio=2 ratio=4 ratio=8,normalize=rank; do GRID+=",streamingllm:ripple@profile=$PLF,$r"; done
MN_GRID="streamingllm,streamingllm:ripple@profile=$PLF,ratio=2,streamingllm:ripple@profile=$PLF,ratio=8,normalize=rank"
R8="streamingllm+ripple@profile=${PLF//\//_}_ratio=8_normalize=rank"  # r=8 rank's run folder, less _b<budget>
# longbench NAME FOLDER DATA TASKS MAX_SAMPLES BUDGETS METHODS: one 1-thread call into $S/FOLDER/runs
# (SHARD=i/n); done when r=8 rank's run folder at the last budget is scored
longbench() {
  local runs=$S/$2/runs
  OUT=$S step "$1${SHARD:+ (shard $SHARD)}" "$runs/${R8}_b${6##*,}/result.json" \
    "$BIN" longbench --model "$(scripts/get_model.sh smollm2-135m-instruct | tail -1)" --dtype bfloat16 --threads 1 \
    --data "$3" --tasks "$4" --max-samples "$5" --max-input-tokens 4096 --budgets "$6" --methods "$7" \
    --out "$runs" ${SHARD:+--shard "$SHARD"}
}
tables_of() {  # tables_of FOLDER: ripplekv table over its runs, if they exist
  if [ -d "$S/$1/runs" ]; then "$BIN" table --runs "$S/$1/runs" --out "$S/$1/tables"; fi
}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(run tables); fi
for target in "${targets[@]}"; do
  case $target in
    run)
      longbench "longbench StreamingLLM selector with RippleKV budgets" longbench_streaming ../shared/data/longbench/mini \
        qasper,multifieldqa_en,hotpotqa,2wikimqa,musique,narrativeqa,trec,triviaqa,samsum,passage_count,passage_retrieval_en,lcc,repobench-p \
        6 128,256,512,1024 "$GRID" ;;
    tables) tables_of longbench_streaming ;;
    multi_news)
      longbench "multi_news 200 StreamingLLM selector with RippleKV budgets" multi_news_streaming \
        ../shared/data/longbench/raw multi_news 200 256 "$MN_GRID" ;;
    multi_news_tables) tables_of multi_news_streaming ;;
    *) echo "smollm2_longbench_streaming.sh: unknown target '$target' (run, tables, multi_news or multi_news_tables)" >&2; exit 2 ;;
  esac
done
