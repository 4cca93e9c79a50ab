#!/usr/bin/env bash
# Qwen2.5-Coder-1.5B-Instruct on the 2-core CPU, sized to fit (issue 14): a sensitivity
# profile on 8 multi_news texts x 512 tokens (bfloat16; SmolLM2's uses 8 x 1,024 in float32),
# then fidelity to the full cache on 8 other multi_news texts (1,024-token prompts, 32
# teacher-forced tokens) for full, snapkv, pyramidkv, h2o and ripple (r = 1.5 and 2) at
# budgets 128 and 256, one prefill per text for all of them; then the same profile with
# layer_mean noise and its ripple runs, RULER 4k on a subset (all baselines) and on new samples,
# RULER 8k, 16k and 32k on subsets, LongBench on 96 samples cut to 4k tokens, and the tables. Rerun to resume: a finished profile or
# fidelity run is kept.
#   scripts/results/qwen_subset.sh
# Environment: THREADS (default all cores), BIN (default build/ripplekv), OUT (default
# results/qwen2.5-coder-1.5b-instruct), MODEL (default: scripts/get_model.sh's checkpoint).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
OUT=${OUT:-results/qwen2.5-coder-1.5b-instruct}
MODEL=${MODEL:-$(scripts/get_model.sh qwen2.5-coder-1.5b-instruct | tail -1)}
scripts/get_ruler_data.sh > /dev/null   # RULER's word lists: `ruler` generates its prompts from them
TEXTS=../shared/data/longbench/raw/multi_news.jsonl
threads=()
if [ -n "${THREADS:-}" ]; then threads=(--threads "$THREADS"); fi
mkdir -p "$OUT/profiles"

source scripts/results/step.sh  # step NAME DONE_FILE COMMAND...
profile() {  # profile OUT_JSON NOISE
  "$BIN" profile --model "$MODEL" --dtype bfloat16 "${threads[@]}" --calibration "$TEXTS" --samples 8 \
    --max-tokens 512 --noise "$2" --out "$1"
}
fidelity() {  # fidelity OUT_DIR METHODS
  "$BIN" fidelity --model "$MODEL" --dtype bfloat16 "${threads[@]}" --texts "$TEXTS" --skip-texts 16 --max-texts 8 \
    --prompt-tokens 1024 --continuation 32 --budgets 128,256 --methods "$2" --out "$1"
}

P=$OUT/profiles/profile_multi_news_8x512_bf16.json
PL=$OUT/profiles/profile_multi_news_8x512_bf16_layer_mean.json
step profile "$P" profile "$P" relative
step fidelity "$OUT/fidelity/fidelity.csv" fidelity "$OUT/fidelity" \
  "full,snapkv,pyramidkv,h2o,ripple@profile=$P,ratio=1.5,ripple@profile=$P,ratio=2"
step "layer_mean profile" "$PL" profile "$PL" layer_mean
step "layer_mean fidelity" "$OUT/fidelity_layer_mean/fidelity.csv" fidelity "$OUT/fidelity_layer_mean" \
  "ripple@profile=$PL,ratio=1.5,ripple@profile=$PL,ratio=2"
step "layer_mean fidelity r=4" "$OUT/fidelity_layer_mean_r4/fidelity.csv" fidelity "$OUT/fidelity_layer_mean_r4" \
  "ripple@profile=$PL,ratio=4"
# r = 8 with rank normalisation (the allocation that ties CAKE on RULER 4k), beside SnapKV.
step "fidelity r=8 rank" "$OUT/fidelity_layer_mean_r8_rank/fidelity.csv" fidelity "$OUT/fidelity_layer_mean_r8_rank" \
  "snapkv,ripple@profile=$PL,ratio=8,normalize=rank"
# RULER at 4k tokens, 2 samples per task (22 prompts), budgets 256 and 1024: about 40 minutes
# on 2 threads. Rerunning resumes it.
step "ruler 4k" "$OUT/ruler4k/runs/full/result.json" "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" \
  --lengths 4096 --samples 2 --budgets 256,1024 \
  --methods "full,snapkv,pyramidkv,h2o,ripple@profile=$P,ratio=2,ripple@profile=$PL,ratio=2" --out "$OUT/ruler4k/runs"
# The other baselines on the same prompts: StreamingLLM, CAKE and SqueezeAttention (about 40
# minutes on 1 thread beside another run).
step "ruler 4k baselines" "$OUT/ruler4k/runs/squeeze_b1024/result.json" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
  "${threads[@]}" --lengths 4096 --samples 2 --budgets 256,1024 --methods "streamingllm,cake,squeeze" --out "$OUT/ruler4k/runs"
# CAKE's selector with uniform and with RippleKV budgets: which part of CAKE wins on Qwen
# (about 29 minutes as two 1-thread shards).
step "ruler 4k cake selector" "$OUT/ruler4k/runs/cake+uniform_b1024/result.json" "$BIN" ruler --model "$MODEL" \
  --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 2 --budgets 256,1024 \
  --methods "cake:uniform,cake:ripple@profile=$PL,ratio=2" --out "$OUT/ruler4k/runs"
# RippleKV measured on each prompt (ripple_prompt: no calibration profile), min-max and rank
# normalisation, on the same prompts: does a prompt-adaptive measured allocation close the gap
# to CAKE? (about 45 minutes on 1 thread beside another run)
step "ruler 4k ripple_prompt" "$OUT/ruler4k/runs/ripple_prompt@normalize=rank_b1024/result.json" "$BIN" ruler \
  --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 2 --budgets 256,1024 \
  --methods "ripple_prompt,ripple_prompt@normalize=rank" --out "$OUT/ruler4k/runs"
# How unequal the layers get: r = 8 with the layer_mean profile (min-max and rank
# normalisation) and per prompt (rank), on the same prompts (1,934 s as two 1-thread shards
# beside other runs).
step "ruler 4k ratio 8" "$OUT/ruler4k/runs/ripple_prompt@ratio=8_normalize=rank_b1024/result.json" "$BIN" ruler \
  --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 2 --budgets 256,1024 \
  --methods "ripple@profile=$PL,ratio=8,ripple@profile=$PL,ratio=8,normalize=rank,ripple_prompt@ratio=8,normalize=rank" \
  --out "$OUT/ruler4k/runs"
# RULER at 8k tokens, 2 samples per task (22 prompts), the layer_mean profile: prefill runs at
# 25-50 tokens/s here, so about 4-8 minutes a prompt.
step "ruler 8k" "$OUT/ruler8k/runs/full/result.json" "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" \
  --lengths 8192 --samples 2 --budgets 256,1024 \
  --methods "full,snapkv,pyramidkv,h2o,ripple@profile=$PL,ratio=2" --out "$OUT/ruler8k/runs"
# CAKE on the same 8k prompts (5,156 s on 1 thread beside other runs).
step "ruler 8k cake" "$OUT/ruler8k/runs/cake_b1024/result.json" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
  "${threads[@]}" --lengths 8192 --samples 2 --budgets 256,1024 --methods cake --out "$OUT/ruler8k/runs"
# The r = 8 rank allocation at 8k, and the two baselines not yet run there, on the same prompts.
step "ruler 8k ratio 8" "$OUT/ruler8k/runs/squeeze_b1024/result.json" "$BIN" ruler --model "$MODEL" \
  --dtype bfloat16 "${threads[@]}" --lengths 8192 --samples 2 --budgets 256,1024 \
  --methods "ripple@profile=$PL,ratio=8,normalize=rank,streamingllm,squeeze" --out "$OUT/ruler8k/runs"
# New 8k samples (seed 43), 2 per task (22 prompts): the baselines closest to RippleKV at 8k
# and both RippleKV settings (3,430 s as two 1-thread shards, --shard 0/2 and 1/2, side by
# side); pooled with the seed-42 prompts by `scripts/results/ruler_pooled.sh qwen8k`.
step "ruler 8k seed 43" "$OUT/ruler8k_seed43/runs/ripple@profile=${PL//\//_}_ratio=8_normalize=rank_b1024/result.json" \
  "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 8192 --samples 2 --seed 43 \
  --budgets 256,1024 --methods "full,snapkv,pyramidkv,cake,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=8,normalize=rank" \
  --out "$OUT/ruler8k_seed43/runs"
# RULER 16k sized to fit: one sample of the 6 tasks where the compressed methods differed at 8k
# (2,062 s on 2 threads; --samples 1 cannot be split by --shard, which splits each task's samples).
step "ruler 16k" "$OUT/ruler16k/runs/ripple@profile=${PL//\//_}_ratio=8_normalize=rank_b1024/result.json" \
  "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 16384 --samples 1 \
  --tasks niah_single_2,niah_multikey_1,niah_multivalue,niah_multiquery,vt,fwe --budgets 256,1024 \
  --methods "full,snapkv,pyramidkv,cake,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=8,normalize=rank" \
  --out "$OUT/ruler16k/runs"
# RULER 16k on new prompts: one sample of the same 6 tasks and the same methods from seed 43
# (1,026 s on 1 thread beside another run), then two from seed 44; pooled with the seed-42
# ones by `scripts/results/ruler_pooled.sh qwen16k` (24 prompts).
step "ruler 16k seed 43" "$OUT/ruler16k_seed43/runs/ripple@profile=${PL//\//_}_ratio=8_normalize=rank_b1024/result.json" \
  "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 16384 --samples 1 --seed 43 \
  --tasks niah_single_2,niah_multikey_1,niah_multivalue,niah_multiquery,vt,fwe --budgets 256,1024 \
  --methods "full,snapkv,pyramidkv,cake,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=8,normalize=rank" \
  --out "$OUT/ruler16k_seed43/runs"
step "ruler 16k seed 44" "$OUT/ruler16k_seed44/runs/ripple@profile=${PL//\//_}_ratio=8_normalize=rank_b1024/result.json" \
  "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 16384 --samples 2 --seed 44 \
  --tasks niah_single_2,niah_multikey_1,niah_multivalue,niah_multiquery,vt,fwe --budgets 256,1024 \
  --methods "full,snapkv,pyramidkv,cake,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=8,normalize=rank" \
  --out "$OUT/ruler16k_seed44/runs"
# New samples (seed 43), 3 per task (33 prompts), the layer_mean profile only: about an hour on
# 1 thread beside another run. Then both sample sets pooled (55 prompts).
step "ruler 4k seed 43" "$OUT/ruler4k_seed43/runs/full/result.json" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
  "${threads[@]}" --lengths 4096 --samples 3 --seed 43 --budgets 256,1024 \
  --methods "full,snapkv,pyramidkv,h2o,ripple@profile=$PL,ratio=2" --out "$OUT/ruler4k_seed43/runs"
# CAKE, the strongest baseline on the first samples, on the new ones too (it ran here as two
# 1-thread shards, --shard 0/2 and 1/2, side by side).
step "ruler 4k seed 43 cake" "$OUT/ruler4k_seed43/runs/cake_b1024/result.json" "$BIN" ruler --model "$MODEL" \
  --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 3 --seed 43 --budgets 256,1024 --methods cake \
  --out "$OUT/ruler4k_seed43/runs"
# The r = 8 rank allocation, chosen on the seed-42 prompts, replicated on the seed-43 ones.
step "ruler 4k seed 43 ratio 8" "$OUT/ruler4k_seed43/runs/ripple@profile=${PL//\//_}_ratio=8_normalize=rank_b1024/result.json" \
  "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 3 --seed 43 \
  --budgets 256,1024 --methods "ripple@profile=$PL,ratio=8,normalize=rank" --out "$OUT/ruler4k_seed43/runs"
# RippleKV measured on each prompt with 4, then 16 noise draws per layer (ripple_prompt draws=D),
# r = 8 rank, on the seed-42 4k prompts: does a less noisy per-prompt measurement close the gap to
# CAKE? (two 1-thread shards each; draw d of layer l is the same noise at every D)
for draws in 4 16; do
  step "ruler 4k ripple_prompt draws $draws" \
    "$OUT/ruler4k/runs/ripple_prompt@draws=${draws}_ratio=8_normalize=rank_b1024/result.json" "$BIN" ruler \
    --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 2 --budgets 256,1024 \
    --methods "ripple_prompt@draws=$draws,ratio=8,normalize=rank" --out "$OUT/ruler4k/runs"
done
# LongBench, the 13 English MiniLongBench tasks without summarisation, at most 8 samples each
# (96), prompts cut to 4,096 tokens (the CPU's size, not the model's 32k), budgets 256 and 1024.
# It ran first with --max-samples 4 and was then extended to 8 (two 1-thread shards each time).
step "longbench" "$OUT/longbench/runs/full/result.json" "$BIN" longbench --model "$MODEL" --dtype bfloat16 \
  "${threads[@]}" --data ../shared/data/longbench/mini \
  --tasks qasper,multifieldqa_en,hotpotqa,2wikimqa,musique,narrativeqa,trec,triviaqa,samsum,passage_count,passage_retrieval_en,lcc,repobench-p \
  --max-samples 8 --max-input-tokens 4096 --budgets 256,1024 \
  --methods "full,snapkv,pyramidkv,h2o,cake,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=8,normalize=rank" \
  --out "$OUT/longbench/runs"
# LongBench summarisation (gov_report, qmsum, multi_news of MiniLongBench, 512-token answers), all
# 6 samples of each, prompts cut to 4,096 tokens, budgets 256 and 1024: 1,630 s on 1 thread for
# the first 4 of each (beside another run), then 892 s to extend to 6 by the same command with
# --max-samples 6.
step "longbench summarisation" "$OUT/longbench_summ/runs/full/result.json" "$BIN" longbench --model "$MODEL" \
  --dtype bfloat16 "${threads[@]}" --data ../shared/data/longbench/mini --tasks gov_report,qmsum,multi_news \
  --max-samples 6 --max-input-tokens 4096 --budgets 256,1024 \
  --methods "full,snapkv,pyramidkv,h2o,cake,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=8,normalize=rank" \
  --out "$OUT/longbench_summ/runs"
# The same RippleKV settings with a float32 profile of the same 8 texts (PLF; the bfloat16 one
# is partly rounding noise, see eps_scaling.sh): RULER 4k and 8k on both sample sets, LongBench
# and its summarisation tasks, each added to the folder of its bfloat16-profile runs so that the
# tables pair them with every baseline on the same samples.
PLF=$OUT/profiles/profile_multi_news_8x512_f32_layer_mean.json
PLF_METHODS="ripple@profile=$PLF,ratio=2,ripple@profile=$PLF,ratio=8,normalize=rank"
step "float32 layer_mean profile" "$PLF" "$BIN" profile --model "$MODEL" --dtype float32 "${threads[@]}" \
  --calibration "$TEXTS" --samples 8 --max-tokens 512 --noise layer_mean --out "$PLF"
step "fidelity float32 profile" "$OUT/fidelity_layer_mean_f32/fidelity.csv" fidelity "$OUT/fidelity_layer_mean_f32" \
  "snapkv,ripple@profile=$PLF,ratio=2"
step "fidelity r=8 rank float32 profile" "$OUT/fidelity_layer_mean_f32_r8_rank/fidelity.csv" fidelity \
  "$OUT/fidelity_layer_mean_f32_r8_rank" "snapkv,ripple@profile=$PLF,ratio=8,normalize=rank"
# The ratio with the float32 profile (min-max): r = 2, 4 and 8 beside SnapKV and H2O, one call
step "fidelity ratios float32 profile" "$OUT/fidelity_layer_mean_f32_ratios/fidelity.csv" fidelity \
  "$OUT/fidelity_layer_mean_f32_ratios" "snapkv,h2o,ripple@profile=$PLF,ratio=2,ripple@profile=$PLF,ratio=4,ripple@profile=$PLF,ratio=8"
# Every baseline beside r = 2 and r = 8 rank (float32 profile), one call on 2 threads: the folders
# above each lack a baseline (H2O, the best one here, is only beside r = 2, 4 and 8 min-max), and
# two of them ran on other thread counts (their SnapKV rows differ by up to 0.02 KL)
step "fidelity every baseline float32 profile" "$OUT/fidelity_layer_mean_f32_all/fidelity.csv" fidelity \
  "$OUT/fidelity_layer_mean_f32_all" "snapkv,pyramidkv,streamingllm,h2o,cake,squeeze,$PLF_METHODS"
# The first, `relative`-noise comparisons with a float32 profile (PRF) of the same texts: fidelity
# r = 1.5 and 2 with both profiles beside SnapKV, one call; r = 2 with both profiles beside SnapKV
# on the seed-42 RULER 4k prompts, one call (a folder of its own: ruler4k/ ran on 2 threads and
# older kernels, so each pair here has one binary and one thread count).
PRF=$OUT/profiles/profile_multi_news_8x512_f32.json
step "float32 relative profile" "$PRF" "$BIN" profile --model "$MODEL" --dtype float32 "${threads[@]}" \
  --calibration "$TEXTS" --samples 8 --max-tokens 512 --noise relative --out "$PRF"
step "fidelity float32 relative profile" "$OUT/fidelity_relative_f32/fidelity.csv" fidelity "$OUT/fidelity_relative_f32" \
  "snapkv,ripple@profile=$P,ratio=1.5,ripple@profile=$P,ratio=2,ripple@profile=$PRF,ratio=1.5,ripple@profile=$PRF,ratio=2"
step "ruler 4k float32 relative profile" "$OUT/ruler4k_relative_f32/runs/ripple@profile=${PRF//\//_}_ratio=2_b1024/result.json" \
  "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 2 --budgets 256,1024 \
  --methods "snapkv,ripple@profile=$P,ratio=2,ripple@profile=$PRF,ratio=2" --out "$OUT/ruler4k_relative_f32/runs"
plf_done() { echo "$1/ripple@profile=${PLF//\//_}_ratio=8_normalize=rank_b1024/result.json"; }
step "ruler 4k float32 profile" "$(plf_done "$OUT/ruler4k/runs")" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
  "${threads[@]}" --lengths 4096 --samples 2 --budgets 256,1024 --methods "$PLF_METHODS" --out "$OUT/ruler4k/runs"
# (with StreamingLLM and SqueezeAttention, which had run on the seed-42 prompts only)
step "ruler 4k seed 43 float32 profile" "$(plf_done "$OUT/ruler4k_seed43/runs")" "$BIN" ruler --model "$MODEL" \
  --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 3 --seed 43 --budgets 256,1024 \
  --methods "$PLF_METHODS,streamingllm,squeeze" --out "$OUT/ruler4k_seed43/runs"
step "ruler 8k float32 profile" "$(plf_done "$OUT/ruler8k/runs")" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
  "${threads[@]}" --lengths 8192 --samples 2 --budgets 256,1024 --methods "$PLF_METHODS" --out "$OUT/ruler8k/runs"
step "ruler 8k seed 43 float32 profile" "$(plf_done "$OUT/ruler8k_seed43/runs")" "$BIN" ruler --model "$MODEL" \
  --dtype bfloat16 "${threads[@]}" --lengths 8192 --samples 2 --seed 43 --budgets 256,1024 --methods "$PLF_METHODS" \
  --out "$OUT/ruler8k_seed43/runs"
# H2O, StreamingLLM and SqueezeAttention on the seed-43 8k prompts, which had run on seed 42 only,
# so that the pooled 8k table pairs every baseline over 44 samples.
step "ruler 8k seed 43 h2o streamingllm squeeze" "$OUT/ruler8k_seed43/runs/squeeze_b1024/result.json" "$BIN" ruler \
  --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 8192 --samples 2 --seed 43 --budgets 256,1024 \
  --methods "h2o,streamingllm,squeeze" --out "$OUT/ruler8k_seed43/runs"
T16=niah_single_2,niah_multikey_1,niah_multivalue,niah_multiquery,vt,fwe
step "ruler 16k float32 profile" "$(plf_done "$OUT/ruler16k/runs")" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
  "${threads[@]}" --lengths 16384 --samples 1 --tasks $T16 --budgets 256,1024 --methods "$PLF_METHODS" \
  --out "$OUT/ruler16k/runs"
step "ruler 16k seed 43 float32 profile" "$(plf_done "$OUT/ruler16k_seed43/runs")" "$BIN" ruler --model "$MODEL" \
  --dtype bfloat16 "${threads[@]}" --lengths 16384 --samples 1 --seed 43 --tasks $T16 --budgets 256,1024 \
  --methods "$PLF_METHODS" --out "$OUT/ruler16k_seed43/runs"
step "ruler 16k seed 44 float32 profile" "$(plf_done "$OUT/ruler16k_seed44/runs")" "$BIN" ruler --model "$MODEL" \
  --dtype bfloat16 "${threads[@]}" --lengths 16384 --samples 2 --seed 44 --tasks $T16 --budgets 256,1024 \
  --methods "$PLF_METHODS" --out "$OUT/ruler16k_seed44/runs"
# The other 5 of RULER's 11 tasks at 16k (niah_single_1, niah_single_3, niah_multikey_2,
# niah_multikey_3, cwe), one sample each from seeds 42 to 45, every method of the 16k sets (1
# thread each, two side by side); `ruler_pooled.sh qwen16k_all` pools all 11 tasks.
# One sample per task from each of several seeds, budgets 256 and 1024, a step per seed.
ruler_sets() {  # ruler_sets NAME LENGTH TASKS METHODS FOLDER:SEED... (seed 42, the default: FOLDER:)
  local name=$1 length=$2 tasks=$3 methods=$4 entry dir seed
  shift 4
  for entry in "$@"; do
    dir=${entry%%:*} seed=${entry#*:}
    step "$name${seed:+ seed $seed}" "$(plf_done "$OUT/$dir/runs")" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
      "${threads[@]}" --lengths "$length" --samples 1 ${seed:+--seed "$seed"} --tasks "$tasks" --budgets 256,1024 \
      --methods "$methods" --out "$OUT/$dir/runs"
  done
}
T_REST=niah_single_1,niah_single_3,niah_multikey_2,niah_multikey_3,cwe
ruler_sets "ruler 16k other tasks" 16384 "$T_REST" \
  "full,snapkv,pyramidkv,cake,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=8,normalize=rank,$PLF_METHODS" \
  ruler16k_rest: ruler16k_rest_seed43:43 ruler16k_rest_seed44:44 ruler16k_rest_seed45:45
# More sets of the 6 16k tasks (seeds 45 to 56, one sample each), every method of the 16k sets
# (1 thread each, two side by side); pooled with the others by `ruler_pooled.sh qwen16k`.
ruler_sets "ruler 16k" 16384 "$T16" \
  "full,snapkv,pyramidkv,cake,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=8,normalize=rank,$PLF_METHODS" \
  $(for seed in {45..56}; do echo "ruler16k_seed$seed:$seed"; done)
# RULER at the model's own context, 32k, sized to fit: one sample of the 6 16k tasks from seeds 42
# to 59, baselines beside RippleKV with the float32 profile (1 thread each, beside another run; about
# 11 minutes of prefill per prompt at 48 tokens/s); pooled by `ruler_pooled.sh qwen32k`.
Q32_METHODS="full,snapkv,pyramidkv,cake,$PLF_METHODS"
ruler_sets "ruler 32k" 32768 "$T16" "$Q32_METHODS" ruler32k: \
  $(for seed in {43..59}; do echo "ruler32k_seed$seed:$seed"; done)
# The other 5 of RULER's 11 tasks at 32k (T_REST), one sample each from seeds 42 and 43, the same
# methods (1 thread each, side by side): `ruler_pooled.sh qwen32k_rest` tables them alone,
# `qwen32k_all` pools all 11 tasks.
ruler_sets "ruler 32k other tasks" 32768 "$T_REST" "$Q32_METHODS" ruler32k_rest: ruler32k_rest_seed43:43
# More 4k prompts for the headline comparison (r=8 rank against CAKE at 1024 needed about 31 per
# task over 55 prompts: samples_needed.md): 2 samples of each of the 11 tasks from each of seeds 44
# to 61, the six 32k methods only (1 thread each, two side by side: 16-25 minutes a set for seeds
# 44-55 on the CPU they ran on; on a 2-core AVX2 EPYC beside builds, 97 for 56 and 57, about
# 104 for 58 and 59 (6,246 and 6,191 s) and 111-113 for 60 and 61 (6,648 and 6,793 s)); pooled with the two 4k
# sets above by `ruler_pooled.sh qwen4k_more` (Q4_MORE in qwen_sets.sh).
for seed in {44..61}; do
  step "ruler 4k more seed $seed" "$(plf_done "$OUT/ruler4k_seed$seed/runs")" "$BIN" ruler --model "$MODEL" \
    --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 2 --seed "$seed" --budgets 256,1024 \
    --methods "$Q32_METHODS" --out "$OUT/ruler4k_seed$seed/runs"
done
step "longbench summarisation float32 profile" "$(plf_done "$OUT/longbench_summ/runs")" "$BIN" longbench \
  --model "$MODEL" --dtype bfloat16 "${threads[@]}" --data ../shared/data/longbench/mini \
  --tasks gov_report,qmsum,multi_news --max-samples 6 --max-input-tokens 4096 --budgets 256,1024 \
  --methods "$PLF_METHODS" --out "$OUT/longbench_summ/runs"
step "longbench float32 profile" "$(plf_done "$OUT/longbench/runs")" "$BIN" longbench --model "$MODEL" \
  --dtype bfloat16 "${threads[@]}" --data ../shared/data/longbench/mini \
  --tasks qasper,multifieldqa_en,hotpotqa,2wikimqa,musique,narrativeqa,trec,triviaqa,samsum,passage_count,passage_retrieval_en,lcc,repobench-p \
  --max-samples 8 --max-input-tokens 4096 --budgets 256,1024 --methods "$PLF_METHODS" --out "$OUT/longbench/runs"
# LongBench at the model's own context: the same 13 tasks and 96 samples as at 4k (the first 8 of
# each task), prompts cut to 31,500 tokens (pred.py's model2maxlen for 32k models), the 32k RULER
# methods (no H2O: its column sums over every prompt query would add about two thirds to a 32k
# prefill here). Ran as two 1-thread shards side by side (--shard 0/2 and 1/2; the last to finish
# merges them), first with --max-samples 2, then extended to 4, 6 and 8 by the same command.
step "longbench 32k" "$OUT/longbench32k/runs/full/result.json" "$BIN" longbench --model "$MODEL" --dtype bfloat16 \
  "${threads[@]}" --data ../shared/data/longbench/mini \
  --tasks qasper,multifieldqa_en,hotpotqa,2wikimqa,musique,narrativeqa,trec,triviaqa,samsum,passage_count,passage_retrieval_en,lcc,repobench-p \
  --max-samples 8 --max-input-tokens 31500 --budgets 256,1024 --methods "$Q32_METHODS" --out "$OUT/longbench32k/runs"
"$BIN" table --runs "$OUT/fidelity" "$OUT/fidelity_layer_mean" "$OUT/fidelity_layer_mean_r4" --out "$OUT/tables"
"$BIN" table --runs "$OUT/fidelity_layer_mean_r8_rank" --out "$OUT/fidelity_layer_mean_r8_rank/tables"
"$BIN" table --runs "$OUT/fidelity_layer_mean_f32" --out "$OUT/fidelity_layer_mean_f32/tables"
"$BIN" table --runs "$OUT/fidelity_layer_mean_f32_r8_rank" --out "$OUT/fidelity_layer_mean_f32_r8_rank/tables"
"$BIN" table --runs "$OUT/fidelity_layer_mean_f32_ratios" --out "$OUT/fidelity_layer_mean_f32_ratios/tables"
"$BIN" table --runs "$OUT/fidelity_relative_f32" --out "$OUT/fidelity_relative_f32/tables"
"$BIN" table --runs "$OUT/fidelity_layer_mean_f32_all" --out "$OUT/fidelity_layer_mean_f32_all/tables"
"$BIN" table --runs "$OUT/ruler4k/runs" --out "$OUT/ruler4k/tables"
"$BIN" table --runs "$OUT/ruler4k_seed43/runs" --out "$OUT/ruler4k_seed43/tables"
"$BIN" table --runs "$OUT/ruler4k_relative_f32/runs" --out "$OUT/ruler4k_relative_f32/tables"
"$BIN" table --runs "$OUT/ruler8k/runs" --out "$OUT/ruler8k/tables"
"$BIN" table --runs "$OUT/ruler8k_seed43/runs" --out "$OUT/ruler8k_seed43/tables"
"$BIN" table --runs "$OUT/ruler16k/runs" --out "$OUT/ruler16k/tables"
"$BIN" table --runs "$OUT/ruler16k_seed43/runs" --out "$OUT/ruler16k_seed43/tables"
"$BIN" table --runs "$OUT/ruler16k_seed44/runs" --out "$OUT/ruler16k_seed44/tables"
for dir in ruler16k_seed{45..56} ruler16k_rest ruler16k_rest_seed4{3,4,5}; do "$BIN" table --runs "$OUT/$dir/runs" --out "$OUT/$dir/tables"; done
for dir in ruler32k ruler32k_seed{43..59} ruler32k_rest ruler32k_rest_seed43; do "$BIN" table --runs "$OUT/$dir/runs" --out "$OUT/$dir/tables"; done
"$BIN" table --runs "$OUT/longbench/runs" --out "$OUT/longbench/tables"
"$BIN" table --runs "$OUT/longbench_summ/runs" --out "$OUT/longbench_summ/tables"
"$BIN" table --runs "$OUT/longbench32k/runs" --out "$OUT/longbench32k/tables"
.venv/bin/python scripts/plot_results.py --summary "$OUT/longbench32k/tables/summary.json" --out "$OUT/longbench32k/plots"
BIN=$BIN scripts/results/ruler_pooled.sh qwen4k qwen8k qwen16k qwen16k_rest qwen16k_all qwen32k qwen32k_rest qwen32k_all
