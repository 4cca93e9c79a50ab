#!/usr/bin/env bash
# RULER tables pooled over sample sets (seeds 42, 43, ...), for the methods run on all of them:
# `ripplekv table --pool` over the sets' run folders, leaving out the variants run on one set
# only, whose rows could not be paired with the pooled ones. With more than two sets, only the
# budgets every set ran are pooled.
#   4k, 8k: SmolLM2, 110 samples per length (the seed-42-only `merged` profile, r = 1.5 and the
#           h2o/streamingllm selectors with ripple budgets are left out; at 8k budget 64 is on
#           seed 42 only, for every method), with the bfloat16 and the float32 layer_mean
#           profiles (smollm2_f32.sh; in 4k3 and 8k3 too), and r = 8 min-max with the float32
#           one (smollm2_f32.sh r8mm_ruler4k, r8mm_ruler8k and r8mm_seed44)
#   4k3, 8k3: SmolLM2 over three sample sets (seeds 42, 43, 44), 165 samples per length, at the
#           budgets the seed-44 sets ran (128 to 1024 at 4k, 128 and 1024 at 8k; the committed 8k
#           tables predate seed 44's StreamingLLM and H2O runs, so their rows there cover 110
#           samples, 165 when rerun)
#   8k4: SmolLM2 at 8k over four sample sets (seeds 42 to 45, 220 samples; 45 ran every method at
#           128-1024 with one binary, smollm2_f32.sh ruler8k45, and seed 44 then the missing ones,
#           ruler8k44_all): the baselines and r = 2, 4, 8 min-max and 8 rank with the float32
#           profile (r8rank_8k4243 ran r = 8 rank on seeds 42 and 43)
#   8k4950: SmolLM2 at 8k over the two sets fixed in advance (seeds 49 and 50, 264 samples,
#           smollm2_confirm8k.sh and smollm2_confirm8k.sh seed50; one binary, one CPU): every
#           method of those runs; not in the default list, as it needs seed 50's run
#   8k495051: the same over three sets fixed in advance (seeds 49, 50 and 51, 396 samples; seed 51
#           from smollm2_confirm8k.sh seed51); not in the default list either
#   qwen4k: Qwen2.5-Coder-1.5B at 4k, 55 samples (2 + 3 per task; the seed-42-only `relative`
#           profile is left out), with the bfloat16 and the float32 layer_mean profiles
#   qwen4k_more: Qwen2.5-Coder-1.5B at 4k over the two sets above and the six-method sets of
#           seeds 44 on (2 per task each: FullKV, SnapKV, PyramidKV, CAKE, r=2 and r=8 rank with
#           the float32 profile; Q4_MORE in qwen_sets.sh), those six methods only
#   qwen8k: Qwen2.5-Coder-1.5B at 8k, 44 samples (2 + 2 per task), every method run on both
#   qwen16k: Qwen2.5-Coder-1.5B at 16k over fifteen sample sets (seeds 42 to 56: 1 + 1 + 2 + 1
#           + ... + 1 samples of 6 tasks, 96 in all), every method run on all of them
#   qwen32k: Qwen2.5-Coder-1.5B at 32k over eighteen sample sets (seeds 42 to 59: 1 sample each of
#           the same 6 tasks, 108 in all), with the float32 profile only
#   qwen16k_rest, qwen32k_rest: the other 5 of RULER's 11 tasks at 16k and 32k (niah_single_1,
#           niah_single_3, niah_multikey_2, niah_multikey_3, cwe), one sample each from seeds 42
#           to 45 at 16k (20 prompts) and 42 and 43 at 32k (10), tabled alone
#   qwen16k_all, qwen32k_all: all 11 tasks, the 6-task sets and the _rest sets pooled across
#           tasks (`table --pool-across-tasks`: each task's score the mean of its own samples,
#           at 16k 16 of the first 6 tasks and 4 of the other 5; at 32k 18 and 2; Avg the
#           mean of the 11)
#   h200_4k: SmolLM2 at 4k on the H200 (scripts/device/real_model.sh): the seed-44 samples rerun
#           there and eight new sets (seeds 100-107, 3 per task), 319 samples, every method of
#           those runs (the ratios 2, 4, 8 and 8 rank with the float32 profile); CPU sets are not
#           pooled with them (other arithmetic; see h200_ruler4k_seed44/cpu_agreement.md)
#   scripts/results/ruler_pooled.sh [4k|8k|4k3|8k3|8k4|qwen4k|qwen4k_more|qwen8k|qwen16k|qwen32k|qwen16k_rest
#           |qwen32k_rest|qwen16k_all|qwen32k_all|h200_4k|8k4950|8k495051 ...]
#           (default: all but 8k4950 and 8k495051)
# Environment: BIN (default build/ripplekv); RESAMPLES (bootstrap resamples, e.g. 100000: writes
# <out>/tables_r100000/ beside the committed 2,000-resample tables, and no plots).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
S=results/smollm2-135m-instruct
source scripts/results/qwen_sets.sh  # Q, Q4, Q8, Q16, Q16_REST, Q32, Q32_REST
# SmolLM2's every-method sets: FullKV, the six baselines and RippleKV r = 2, 4, 8 min-max and 8 rank
# with the float32 layer_mean profile
EVERY_F32='^(full|(snapkv|pyramidkv|streamingllm|h2o|cake|squeeze)_b.*|ripple@profile=.*texts0-7_f32\.json_ratio=(2|4|8|8_normalize=rank)_b.*)$'
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(4k 8k 4k3 8k3 8k4 qwen4k qwen4k_more qwen8k qwen16k qwen32k qwen16k_rest qwen32k_rest qwen16k_all qwen32k_all h200_4k)
for target in "${targets[@]}"; do
  budgets=  # with more than two sets: the budgets all of them ran (others are left out)
  only=     # where set: the run folders whose names match this extended regex (instead of the list below)
  pool=(--pool)
  case $target in
    4k) sets=($S/ruler $S/ruler4k_seed43); out=$S/ruler4k_pooled ;;
    4k3) sets=($S/ruler $S/ruler4k_seed43 $S/ruler4k_seed44); budgets=" 128 256 512 1024 "; out=$S/ruler4k_pooled3 ;;
    8k) sets=($S/ruler8k $S/ruler8k_seed43); out=$S/ruler8k_pooled ;;
    8k3) sets=($S/ruler8k $S/ruler8k_seed43 $S/ruler8k_seed44); budgets=" 128 1024 "; out=$S/ruler8k_pooled3 ;;
    8k4) sets=($S/ruler8k $S/ruler8k_seed43 $S/ruler8k_seed44 $S/ruler8k_seed45); budgets=" 128 256 512 1024 "
      out=$S/ruler8k_pooled4
      only=$EVERY_F32 ;;
    8k4950) sets=($S/ruler8k_seed49 $S/ruler8k_seed50); out=$S/ruler8k_pooled4950
      only=$EVERY_F32 ;;
    8k495051) sets=($S/ruler8k_seed49 $S/ruler8k_seed50 $S/ruler8k_seed51); out=$S/ruler8k_pooled495051
      only=$EVERY_F32 ;;
    qwen4k) sets=("${Q4[@]}"); out=$Q/ruler4k_pooled ;;
    qwen4k_more) sets=("${Q4[@]}" "${Q4_MORE[@]}"); budgets=" 256 1024 "; out=$Q/ruler4k_more_pooled
      only='^(full|snapkv_b.*|pyramidkv_b.*|cake_b.*|ripple@profile=.*_f32_layer_mean\.json_ratio=(2|8_normalize=rank)_b.*)$' ;;
    qwen8k) sets=("${Q8[@]}"); out=$Q/ruler8k_pooled ;;
    qwen16k) sets=("${Q16[@]}"); budgets=" 256 1024 "; out=$Q/ruler16k_pooled ;;
    qwen32k) sets=("${Q32[@]}"); budgets=" 256 1024 "; out=$Q/ruler32k_pooled ;;
    qwen16k_rest) sets=("${Q16_REST[@]}"); budgets=" 256 1024 "; out=$Q/ruler16k_rest_pooled ;;
    qwen32k_rest) sets=("${Q32_REST[@]}"); out=$Q/ruler32k_rest_pooled ;;
    qwen16k_all) sets=("${Q16[@]}" "${Q16_REST[@]}"); budgets=" 256 1024 "; pool=(--pool --pool-across-tasks)
      out=$Q/ruler16k_all_pooled ;;
    qwen32k_all) sets=("${Q32[@]}" "${Q32_REST[@]}"); budgets=" 256 1024 "; pool=(--pool --pool-across-tasks)
      out=$Q/ruler32k_all_pooled ;;
    h200_4k) sets=($S/h200_ruler4k_seed{44,100,101,102,103,104,105,106,107}); out=$S/h200_ruler4k_pooled
      only=$EVERY_F32 ;;
    *) echo "ruler_pooled.sh: unknown target $target (4k, 8k, 4k3, 8k3, 8k4, 8k4950, 8k495051, qwen4k, qwen4k_more, qwen8k, qwen16k, qwen32k, qwen16k_rest, qwen32k_rest, qwen16k_all, qwen32k_all or h200_4k)" >&2; exit 2 ;;
  esac
  dirs=()
  for set in "${sets[@]}"; do
    [ -d "$set/runs" ] || { echo "ruler_pooled.sh: $target needs $set/runs: run its sample set first (this script's header names the command that makes it)" >&2; exit 2; }
    dirs+=("$set"/runs/*)
  done
  runs=()
  for dir in "${dirs[@]}"; do
    name=$(basename "$dir")
    if [ -n "$budgets" ] && [ "$name" != full ]; then
      case $budgets in *" ${name##*_b} "*) ;; *) continue ;; esac
    fi
    if [ -n "$only" ]; then
      [[ $name =~ $only ]] && runs+=("$dir")
      continue
    fi
    case $name in
      full | snapkv_b* | pyramidkv_b* | streamingllm_b* | h2o_b* | cake_b* | squeeze_b*) runs+=("$dir") ;;
      ripple@profile=*layer_mean_eps0.1_seed0_texts0-7.json_ratio=[24]_b*) runs+=("$dir") ;;      # SmolLM2, bf16
      ripple@profile=*layer_mean_eps0.1_seed0_texts0-7_f32.json_ratio=[248]_b*) runs+=("$dir") ;; # and f32
      ripple@profile=*8x512_*_layer_mean.json_ratio=2_b*) runs+=("$dir") ;;                # Qwen, bf16
      ripple@profile=*8x512_*_layer_mean.json_ratio=8_normalize=rank_b*) runs+=("$dir") ;; # and f32 profiles
    esac
  done
  if [ -n "${RESAMPLES:-}" ]; then
    "$BIN" table "${pool[@]}" --resamples "$RESAMPLES" --runs "${runs[@]}" --out "$out/tables_r$RESAMPLES"
    continue
  fi
  "$BIN" table "${pool[@]}" --runs "${runs[@]}" --out "$out/tables"
  .venv/bin/python scripts/plot_results.py --summary "$out/tables/summary.json" --out "$out/plots"
done
