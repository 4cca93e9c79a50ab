#!/usr/bin/env bash
# SmolLM2-135M-Instruct's RippleKV comparisons rerun with a float32 `layer_mean` profile (issue 14).
# The SmolLM2 results were measured with a bfloat16 profile (PL, profiles/layer_mean_eps0.1_seed0_
# texts0-7.json); on Qwen2.5-Coder a bfloat16 profile is partly rounding noise, and on-the-fly
# profiles now default to float32 (`profile_dtype`). This profiles the same 8 multi_news texts x
# 1,024 tokens in float32 (PLF) and reruns r = 2 and r = 4 on the samples of the bfloat16-profile
# runs, into the same run folders, so that the tables pair them with every baseline:
#   profile     the float32 profile PLF
#   fidelity    the fidelity sweep at budgets 64-1024 with an on-the-fly float32 profile (it must
#               equal PLF), beside SnapKV and PyramidKV
#   ruler4k     RULER 4k, seed 42, budgets 64-1024      ruler4k43   the same on seed 43
#   ruler8k     RULER 8k, seed 42, budgets 128 and 1024 ruler8k43   the same on seed 43
#   ruler4k44   RULER 4k, seed 44, budgets 128-1024     ruler8k44   RULER 8k, seed 44, 128 and 1024
#   longbench   the 13 English MiniLongBench tasks (76 samples), budgets 128-1024, r = 2 and 4
#   longbench_pairs  the same with SnapKV, H2O and both profiles' runs, all decoded by this binary
#               (the baselines in longbench/ were decoded by the kernels before 2026-12-01)
#   summ_pairs  the summarisation tasks (18 samples), budgets 128-512: SnapKV, H2O, CAKE and
#               r = 2 and 4 with both profiles, decoded by this binary (SHARD=i/n runs a shard;
#               then `ripplekv longbench-merge --out results/smollm2-135m-instruct/longbench_summ_pairs/runs`)
#   needle      the needle grid at budget 128, r = 2
#   r8rank_8k   r = 8 rank and r = 4 in ruler8k_r8 (seed 42, 4 per task, 128 and 1024; SHARD=i/n)
#   ruler8k_rest  r = 2 and 4 at the other 8k budgets: 64, 256 and 512 on seed 42, 256 and 512 on
#               seed 43 (SHARD=i/n)
#   r8rank_4k43 r = 8 rank on the seed-43 4k samples at 64      r8rank_8k44   on the seed-44 8k
#               samples at 128 and 1024 (SHARD=i/n)
#   r8rank_multi_news  r = 8 rank on the 200 multi_news samples (SHARD=i/n; merged by the last shard)
#   r8rank_fidelity   the fidelity sweep of fidelity_layer_mean_r8_rank (128, 256) with PLF, into
#               fidelity_layer_mean_f32
#   r8rank_longbench  r = 8 rank with both profiles in longbench_pairs, decoded by this binary
#   multi_news  the full multi_news file (200 samples, budget 256), r = 2 and 4 (SHARD=i/n runs a
#               shard; the last shard to finish merges them)
#   lb64_pairs  budget 64 in longbench_pairs: the six baselines and r = 2 with both profiles
#   r15_r8_longbench  r = 1.5 and r = 8 min-max with both profiles in longbench_pairs (128-512)
#   r15_ruler4k r = 1.5 beside its bfloat16-profile run in ruler/ (seed 42, 128-512)
#   r8mm_ruler4k, r8mm_ruler8k  r = 8 min-max on the seed-42 and seed-43 RULER samples at the
#               budgets of r = 2 and 4 (SHARD=i/n); r8mm_seed44 the same on the seed-44 samples
#   r8rank_4k42, r8rank_4k44   r = 8 with rank normalisation beside its bfloat16-profile runs:
#               ruler4k_r8 (seed 42, 4 per task, 128 and 1024; r = 4 too) and seed 44 at 128-1024
#   ruler8k45   a fourth RULER 8k sample set (seed 45, 5 per task), budgets 128-1024, every baseline and
#               r = 2, 4, 8 and 8 rank, all decoded by this binary (like the H200's 4k sets)
#   r8rank_8k4243  r = 8 rank on the seed-42 (64-1024) and seed-43 (128-1024) 8k samples, the budgets
#               of r = 2, 4 and 8 there, so that all four 8k sample sets hold it (SHARD=i/n)
#   ruler8k44_all  every method of ruler8k45 on the seed-44 8k samples at 128-1024 (they held 128 and
#               1024 without H2O and StreamingLLM); done runs are kept, so this adds only those
#   scripts/results/smollm2_f32.sh [TARGET ...]   (default: all, in the order of the targets=() line; rerun to resume)
# Environment: THREADS (default all cores), BIN (default build/ripplekv), OUT (default
# results/smollm2-135m-instruct), MODEL (default: scripts/get_model.sh's checkpoint).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
OUT=${OUT:-results/smollm2-135m-instruct}
MODEL=${MODEL:-$(scripts/get_model.sh smollm2-135m-instruct | tail -1)}
scripts/get_ruler_data.sh > /dev/null   # RULER's word lists: `ruler` generates its prompts from them
TEXTS=../shared/data/longbench/raw/multi_news.jsonl
threads=()
if [ -n "${THREADS:-}" ]; then threads=(--threads "$THREADS"); fi
source scripts/results/step.sh  # step NAME DONE_FILE COMMAND...

PL=$OUT/profiles/layer_mean_eps0.1_seed0_texts0-7.json       # the bfloat16 profile of the first runs
PLF=$OUT/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json
METHODS="ripple@profile=$PLF,ratio=2,ripple@profile=$PLF,ratio=4"
# The result file of a PLF run, the step's done file: plf_done DIR BUDGET [SPEC] (SPEC: what follows the
# profile in the run's folder name; default ratio=4, the last run of METHODS)
plf_done() { echo "$1/ripple@profile=${PLF//\//_}_${3:-ratio=4}_b$2/result.json"; }
R8="ripple@profile=$PLF,ratio=8,normalize=rank"  # r = 8 with rank normalisation
# The 13 English MiniLongBench tasks other than summarisation
TASKS13=qasper,multifieldqa_en,hotpotqa,2wikimqa,musique,narrativeqa,trec,triviaqa,samsum,passage_count,passage_retrieval_en,lcc,repobench-p
multi_news() {  # multi_news NAME DONE_FILE METHODS: the 200 multi_news samples at budget 256 (SHARD=i/n)
  step "$1" "$2" "$BIN" longbench --model "$MODEL" --dtype bfloat16 "${threads[@]}" \
    --data ../shared/data/longbench/raw --tasks multi_news --max-samples 200 --max-input-tokens 4096 \
    --budgets 256 --methods "$3" --out "$OUT/multi_news/runs" ${SHARD:+--shard "$SHARD"}
}
lb_pairs() {  # lb_pairs NAME DONE_FILE BUDGETS METHODS: the 13 tasks in longbench_pairs (this binary)
  step "$1" "$2" "$BIN" longbench --model "$MODEL" --dtype bfloat16 "${threads[@]}" \
    --data ../shared/data/longbench/mini --tasks "$TASKS13" --max-samples 6 --max-input-tokens 4096 \
    --budgets "$3" --methods "$4" --out "$OUT/longbench_pairs/runs" ${SHARD:+--shard "$SHARD"}
}
ruler_with() {  # ruler_with METHODS DONE_SPEC NAME OUT_DIR BUDGETS ARGS...: 5 samples per task
  local methods=$1 spec=$2 name=$3 out=$4 budgets=$5
  shift 5
  step "$name" "$(plf_done "$out" "${budgets##*,}" "$spec")" "$BIN" ruler --model "$MODEL" --dtype bfloat16 \
    "${threads[@]}" --samples 5 --budgets "$budgets" --methods "$methods" --out "$out" "$@"
}
ruler() { ruler_with "$METHODS" ratio=4 "$@"; }  # ruler NAME OUT_DIR BUDGETS ARGS...: r = 2 and 4
R8MM="ripple@profile=$PLF,ratio=8"  # r = 8 min-max, the best ratio of SmolLM2's fidelity ablation
ruler_r8mm() { ruler_with "$R8MM" ratio=8 "$@"; }
ALL="full,snapkv,pyramidkv,streamingllm,h2o,cake,squeeze"  # every baseline, then r = 2, 4, 8 and 8 rank
for r in ratio=2 ratio=4 ratio=8 ratio=8,normalize=rank; do ALL+=",ripple@profile=$PLF,$r"; done

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(profile fidelity ruler4k ruler4k43 ruler8k ruler8k43 ruler4k44 ruler8k44 longbench longbench_pairs summ_pairs needle ruler8k_rest r8rank_4k42 r8rank_4k44 r8rank_4k43 r8rank_8k r8rank_8k44 r8rank_fidelity r8rank_longbench multi_news r8rank_multi_news lb64_pairs r15_r8_longbench r15_ruler4k r8mm_ruler4k r8mm_ruler8k r8mm_seed44 ruler8k45 r8rank_8k4243 ruler8k44_all)
for target in "${targets[@]}"; do
  if [ "$target" != profile ] && [ "$target" != fidelity ] && [ ! -f "$PLF" ]; then
    echo "smollm2_f32.sh: $target needs the profile $PLF: run the target 'profile' first" >&2; exit 2
  fi
  case $target in
    profile) step "float32 layer_mean profile" "$PLF" "$BIN" profile --model "$MODEL" --dtype float32 \
               "${threads[@]}" --calibration "$TEXTS" --samples 8 --max-tokens 1024 --eps 0.1 --seed 0 \
               --noise layer_mean --out "$PLF" ;;
    fidelity)  # the sweep resumes itself; it is complete when its dry run has nothing to run
      sweep=("$BIN" sweep --config configs/sweeps/smollm2_fidelity_layer_mean_f32.ini --set "model=$MODEL"
             --set "method.ripple.profile_cache=$OUT/fidelity_layer_mean_f32/profiles"
             ${THREADS:+--set "threads=$THREADS"})
      if ! "${sweep[@]}" --dry-run | grep -q '^dry run: 0 to run'; then
        step "fidelity float32 profile" "" "${sweep[@]}"
      fi ;;
    ruler4k) ruler "ruler 4k float32 profile" "$OUT/ruler/runs" 64,128,256,512,1024 --lengths 4096 ;;
    ruler4k43) ruler "ruler 4k seed 43 float32 profile" "$OUT/ruler4k_seed43/runs" 64,128,256,512,1024 \
                 --lengths 4096 --seed 43 ;;
    ruler8k) ruler "ruler 8k float32 profile" "$OUT/ruler8k/runs" 128,1024 --lengths 8192 ;;
    ruler8k43) ruler "ruler 8k seed 43 float32 profile" "$OUT/ruler8k_seed43/runs" 128,1024 --lengths 8192 \
                 --seed 43 ;;
    ruler4k44) ruler "ruler 4k seed 44 float32 profile" "$OUT/ruler4k_seed44/runs" 128,256,512,1024 \
                 --lengths 4096 --seed 44 ;;
    ruler8k44) ruler "ruler 8k seed 44 float32 profile" "$OUT/ruler8k_seed44/runs" 128,1024 --lengths 8192 \
                 --seed 44 ;;
    longbench) step "longbench float32 profile" "$(plf_done "$OUT/longbench/runs" 1024)" "$BIN" longbench \
                 --model "$MODEL" --dtype bfloat16 "${threads[@]}" --data ../shared/data/longbench/mini \
                 --tasks "$TASKS13" \
                 --max-samples 6 --max-input-tokens 4096 --budgets 128,256,512,1024 --methods "$METHODS" \
                 --out "$OUT/longbench/runs" ;;
    longbench_pairs)  # the same, with SnapKV, H2O and the bfloat16-profile runs decoded again by this binary
      lb_pairs "longbench pairs" "$(plf_done "$OUT/longbench_pairs/runs" 1024)" 128,256,512,1024 \
        "snapkv,h2o,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=4,$METHODS" ;;
    summ_pairs)  # the summarisation tasks, baselines and both profiles' runs decoded by this binary
      step "summarisation pairs" "$(plf_done "$OUT/longbench_summ_pairs/runs" 512)" "$BIN" longbench \
        --model "$MODEL" --dtype bfloat16 "${threads[@]}" --data ../shared/data/longbench/mini \
        --tasks gov_report,qmsum,multi_news --max-samples 6 --max-input-tokens 4096 --budgets 128,256,512 \
        --methods "snapkv,h2o,cake,ripple@profile=$PL,ratio=2,ripple@profile=$PL,ratio=4,$METHODS" \
        --out "$OUT/longbench_summ_pairs/runs" ${SHARD:+--shard "$SHARD"} ;;
    r8rank_4k42)  # r = 8 with rank normalisation (and r = 4) in ruler4k_r8, seed 42, 4 samples per task
      step "ruler 4k r=8 rank float32 profile" \
        "$(plf_done "$OUT/ruler4k_r8/runs" 1024 ratio=8_normalize=rank)" "$BIN" ruler \
        --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 4 --budgets 128,1024 \
        --methods "ripple@profile=$PLF,ratio=4,$R8" --out "$OUT/ruler4k_r8/runs" ;;
    r8rank_4k44)  # r = 8 with rank normalisation on the seed-44 4k samples
      step "ruler 4k seed 44 r=8 rank float32 profile" \
        "$(plf_done "$OUT/ruler4k_seed44/runs" 1024 ratio=8_normalize=rank)" "$BIN" ruler \
        --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 5 --seed 44 \
        --budgets 128,256,512,1024 --methods "$R8" \
        --out "$OUT/ruler4k_seed44/runs" ;;
    needle) step "needle float32 profile" "$(plf_done "$OUT/needle/runs" 128 ratio=2)" \
              "$BIN" needle --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 1024,2048,4096,8192 \
              --depths 0,25,50,75,100 --budgets 128 --methods "ripple@profile=$PLF,ratio=2" \
              --out "$OUT/needle/runs" ;;
    r8rank_8k)  # r = 8 with rank normalisation (and r = 4) in ruler8k_r8, seed 42, 4 samples per task
      step "ruler 8k r=8 rank float32 profile" \
        "$(plf_done "$OUT/ruler8k_r8/runs" 1024 ratio=8_normalize=rank)" "$BIN" ruler \
        --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 8192 --samples 4 --budgets 128,1024 \
        --methods "ripple@profile=$PLF,ratio=4,$R8" \
        --out "$OUT/ruler8k_r8/runs" ${SHARD:+--shard "$SHARD"} ;;
    ruler8k_rest)  # the 8k budgets the PL runs had beyond 128 and 1024
      ruler "ruler 8k 64-512 float32 profile" "$OUT/ruler8k/runs" 64,256,512 --lengths 8192 \
        ${SHARD:+--shard "$SHARD"}
      ruler "ruler 8k seed 43 256-512 float32 profile" "$OUT/ruler8k_seed43/runs" 256,512 --lengths 8192 \
        --seed 43 ${SHARD:+--shard "$SHARD"} ;;
    r8rank_4k43)  # r = 8 with rank normalisation on the seed-43 4k samples, at 64 as with PL
      step "ruler 4k seed 43 r=8 rank float32 profile" \
        "$(plf_done "$OUT/ruler4k_seed43/runs" 64 ratio=8_normalize=rank)" "$BIN" ruler \
        --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 4096 --samples 5 --seed 43 --budgets 64 \
        --methods "$R8" --out "$OUT/ruler4k_seed43/runs" ${SHARD:+--shard "$SHARD"} ;;
    r8rank_8k44)  # r = 8 with rank normalisation on the seed-44 8k samples
      step "ruler 8k seed 44 r=8 rank float32 profile" \
        "$(plf_done "$OUT/ruler8k_seed44/runs" 1024 ratio=8_normalize=rank)" "$BIN" ruler \
        --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 8192 --samples 5 --seed 44 --budgets 128,1024 \
        --methods "$R8" --out "$OUT/ruler8k_seed44/runs" ${SHARD:+--shard "$SHARD"} ;;
    r8rank_multi_news) multi_news "multi_news 200 r=8 rank float32 profile" "$(plf_done "$OUT/multi_news/runs" 256 ratio=8_normalize=rank)" "$R8" ;;
    r8rank_fidelity)  # into fidelity_layer_mean_f32, whose SnapKV and H2O this binary decoded (the
                      # bfloat16-profile folder's predate the kernels of 2026-12-01); resumes itself
      sweep=("$BIN" sweep --config configs/sweeps/smollm2_fidelity_layer_mean_r8_rank.ini --set "model=$MODEL"
             --set method.ripple.profile_dtype=float32
             --set "method.ripple.profile_cache=$OUT/fidelity_layer_mean_f32/profiles"
             --out "$OUT/fidelity_layer_mean_f32" ${THREADS:+--set "threads=$THREADS"})
      if ! "${sweep[@]}" --dry-run | grep -q '^dry run: 0 to run'; then
        step "fidelity r=8 rank float32 profile" "" "${sweep[@]}"
      fi ;;
    r8rank_longbench)  # r = 8 rank with both profiles, beside longbench_pairs' runs (same binary)
      lb_pairs "longbench pairs r=8 rank" "$(plf_done "$OUT/longbench_pairs/runs" 1024 ratio=8_normalize=rank)" 128,256,512,1024 \
        "ripple@profile=$PL,ratio=8,normalize=rank,$R8" ;;
    lb64_pairs)  # budget 64 in longbench_pairs: every baseline and r = 2 with both profiles
      lb_pairs "longbench pairs 64" "$(plf_done "$OUT/longbench_pairs/runs" 64 ratio=2)" 64 \
        "snapkv,pyramidkv,streamingllm,h2o,cake,squeeze,ripple@profile=$PL,ratio=2,ripple@profile=$PLF,ratio=2" ;;
    r15_r8_longbench)  # r = 1.5 and r = 8 (min-max) with both profiles in longbench_pairs, at the
                       # budgets of their bfloat16-profile runs (longbench/ and longbench_r8/)
      lb_pairs "longbench pairs r=1.5 and r=8" \
        "$(plf_done "$OUT/longbench_pairs/runs" 512 ratio=8)" 128,256,512 \
        "ripple@profile=$PL,ratio=1.5,ripple@profile=$PLF,ratio=1.5,ripple@profile=$PL,ratio=8,ripple@profile=$PLF,ratio=8" ;;
    r15_ruler4k)  # r = 1.5 beside its bfloat16-profile run in ruler/ (seed 42, 128-512)
      ruler_with "ripple@profile=$PLF,ratio=1.5" ratio=1.5 "ruler 4k r=1.5 float32 profile" "$OUT/ruler/runs" \
        128,256,512 --lengths 4096 ${SHARD:+--shard "$SHARD"} ;;
    r8mm_ruler4k)  # r = 8 min-max beside r = 2 and 4 on the seed-42 and seed-43 4k samples
      ruler_r8mm "ruler 4k r=8 float32 profile" "$OUT/ruler/runs" 64,128,256,512,1024 --lengths 4096 \
        ${SHARD:+--shard "$SHARD"}
      ruler_r8mm "ruler 4k seed 43 r=8 float32 profile" "$OUT/ruler4k_seed43/runs" 64,128,256,512,1024 \
        --lengths 4096 --seed 43 ${SHARD:+--shard "$SHARD"} ;;
    r8mm_ruler8k)  # the same at 8k, at the budgets r = 2 and 4 ran there
      ruler_r8mm "ruler 8k r=8 float32 profile" "$OUT/ruler8k/runs" 64,128,256,512,1024 --lengths 8192 \
        ${SHARD:+--shard "$SHARD"}
      ruler_r8mm "ruler 8k seed 43 r=8 float32 profile" "$OUT/ruler8k_seed43/runs" 128,256,512,1024 \
        --lengths 8192 --seed 43 ${SHARD:+--shard "$SHARD"} ;;
    r8mm_seed44)  # r = 8 min-max on the seed-44 samples: 4k at 128-1024, 8k at 128 and 1024
      ruler_r8mm "ruler 4k seed 44 r=8 float32 profile" "$OUT/ruler4k_seed44/runs" 128,256,512,1024 \
        --lengths 4096 --seed 44 ${SHARD:+--shard "$SHARD"}
      ruler_r8mm "ruler 8k seed 44 r=8 float32 profile" "$OUT/ruler8k_seed44/runs" 128,1024 --lengths 8192 \
        --seed 44 ${SHARD:+--shard "$SHARD"} ;;
    ruler8k45)  # every method on new 8k samples: the baselines, then r = 2, 4, 8 and 8 rank
      ruler_with "$ALL" ratio=8_normalize=rank "ruler 8k seed 45 every method" "$OUT/ruler8k_seed45/runs" \
        128,256,512,1024 --lengths 8192 --seed 45 ;;
    r8rank_8k4243)  # r = 8 rank beside r = 2, 4 and 8 min-max on the seed-42 and seed-43 8k samples
      ruler_with "$R8" ratio=8_normalize=rank "ruler 8k r=8 rank float32 profile" "$OUT/ruler8k/runs" \
        64,128,256,512,1024 --lengths 8192 ${SHARD:+--shard "$SHARD"}
      ruler_with "$R8" ratio=8_normalize=rank "ruler 8k seed 43 r=8 rank float32 profile" \
        "$OUT/ruler8k_seed43/runs" 128,256,512,1024 --lengths 8192 --seed 43 ${SHARD:+--shard "$SHARD"} ;;
    ruler8k44_all)  # the seed-44 8k samples with every method at 128-1024 (done runs are kept; r = 8
                    # rank at 1024 ran before, so the step is done with its run at 512)
      step "ruler 8k seed 44 every method" "$(plf_done "$OUT/ruler8k_seed44/runs" 512 ratio=8_normalize=rank)" \
        "$BIN" ruler --model "$MODEL" --dtype bfloat16 "${threads[@]}" --lengths 8192 --samples 5 --seed 44 \
        --budgets 128,256,512,1024 --methods "$ALL" --out "$OUT/ruler8k_seed44/runs" ${SHARD:+--shard "$SHARD"} ;;
    multi_news) multi_news "multi_news 200 float32 profile" "$(plf_done "$OUT/multi_news/runs" 256)" "$METHODS" ;;
    *) echo "smollm2_f32.sh: unknown target $target (profile, fidelity, ruler4k, ruler4k43, ruler8k, ruler8k43, ruler4k44, ruler8k44, longbench, longbench_pairs, summ_pairs, needle, ruler8k_rest, r8rank_4k42, r8rank_4k44, r8rank_4k43, r8rank_8k, r8rank_8k44, r8rank_multi_news, r8rank_fidelity, r8rank_longbench, multi_news, lb64_pairs, r15_r8_longbench, r15_ruler4k, r8mm_ruler4k, r8mm_ruler8k, r8mm_seed44, ruler8k45, r8rank_8k4243 or ruler8k44_all)" >&2
       exit 2 ;;
  esac
done
