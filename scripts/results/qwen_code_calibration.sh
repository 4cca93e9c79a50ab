#!/usr/bin/env bash
# An exploratory Qwen2.5-Coder-1.5B run: does calibrating on code, the model's own domain, give
# another profile, and does it continue code or news better than the news profile? Its size,
# variants and analysis were fixed before it started (committed with this script, before any
# profile or record of it). Every Qwen profile so far was measured on multi_news (news articles)
# and two disjoint sets of 8 such texts already rank the layers at Spearman 0.76 only
# (profiles/stability_f32/stability.md).
#
# Plan (not to be changed once records exist):
#   profile   QC: float32, layer_mean noise, eps 0.1, seed 0, the first 8 texts of MiniLongBench's
#             lcc file (formatted code-completion prompts of 1,676-11,112 tokens) cut to 512 tokens
#             each: the settings of the news profile QPLF (profiles/profile_multi_news_8x512_f32_
#             layer_mean.json) with only the texts changed. Written to profiles/code_lcc_8x512_f32
#             _layer_mean.json.
#   fidelity  bfloat16, all cores, budgets 128 and 256, 1,024-token prompts and 32 teacher-forced
#             tokens, RippleKV r=2 min-max and r=8 rank with QPLF and with QC, on
#               code: lcc texts 8-25 (18, held out from QC) and all 23 repobench-p texts, beside
#                     SnapKV (the uniform twin) and CAKE (fidelity_code/lcc, fidelity_code/
#                     repobench-p; 41 texts);
#               news: the 32 multi_news texts of fidelity32_all (fidelity32.sh), QC's two
#                     settings beside SnapKV, whose records must equal fidelity32_all's bit for
#                     bit (the same kernels), so that QC pairs with QPLF's rows there
#                     (fidelity_code/multi_news).
#   analysis  once, when all are scored: the Spearman correlation of QC's and QPLF's layer means;
#             ripplekv table over each folder; and the paired intervals (fidelity_pair.py,
#             100,000 resamples) at each budget and setting of
#               1. QC minus QPLF on the 41 code texts (lcc and repobench-p pooled, and each);
#               2. QC minus QPLF on the 32 news texts;
#               3. each profile minus SnapKV on the code texts.
#             Each is a win (loss) where its 95% interval lies below (above) 0, else a tie; all
#             are reported, whatever they show.
#   reading   fixed now: if 1 is a win, the README reports that in-domain calibration helps on
#             its domain, with its size beside the gap to SnapKV; if 2 is a loss, that the
#             profile is domain-specific. Ties are reported with their intervals. No default
#             changes on this run alone.
#
# The commands of the analysis (spelled out in the commit after this plan's, while the profile ran
# and before any fidelity record; with the bit check's fallback, which the plan lacked):
#   D=results/qwen2.5-coder-1.5b-instruct/fidelity_code  P=results/qwen2.5-coder-1.5b-instruct/profiles
#   QC='code_lcc_8x512_f32_layer_mean.json'  QN='profile_multi_news_8x512_f32_layer_mean.json'
#   PAIR='.venv/bin/python scripts/results/fidelity_pair.py --resamples 100000'
#   .venv/bin/python scripts/results/profile_compare.py $P/$QN $P/$QC --allocate build/ripplekv --budget 256
#   for b in 128 256; do for s in 'ratio=2$' 'ratio=8,normalize=rank$'; do
#     $PAIR --budget $b $D/lcc $D/lcc $D/repobench-p $D/repobench-p --a-method "$QC,$s" --b-method "$QN,$s"   # 1
#     $PAIR --budget $b $D/lcc $D/lcc --a-method "$QC,$s" --b-method "$QN,$s"            # 1, lcc alone
#     $PAIR --budget $b $D/repobench-p $D/repobench-p --a-method "$QC,$s" --b-method "$QN,$s"   # 1, repobench-p
#     $PAIR --budget $b $D/multi_news results/qwen2.5-coder-1.5b-instruct/fidelity32_all \
#       --a-method "$QC,$s" --b-method "$QN,$s"                                             # 2
#     for q in "$QC" "$QN"; do
#       $PAIR --budget $b $D/lcc $D/lcc $D/repobench-p $D/repobench-p --a-method "$q,$s" --b-method snapkv; done   # 3
#   done; done
# (a pattern ending in $ names the method's end: "$QC,ratio=2$" is r=2 with the code profile.)
# The bit check before 2: SnapKV's per-text rows of $D/multi_news (64: 32 texts x 2 budgets; the
# method is quoted) must equal fidelity32_all's:
#   diff <(grep '^"snapkv",' $D/multi_news/fidelity_texts.csv) \
#        <(grep '^"snapkv",' results/qwen2.5-coder-1.5b-instruct/fidelity32_all/fidelity_texts.csv)
# If they differ, 2 is not read across the folders: SnapKV and both profiles' settings run again
# in one call into $D/multi_news_both (scripts/results/qwen_code_calibration.sh news_qplf), and 2
# pairs there.
#
#   scripts/results/qwen_code_calibration.sh [profile] [code] [news] [tables] [news_qplf]
#       (default: all four, in that order; rerun to resume: finished steps are kept)
# Environment: THREADS (default all cores), BIN (default build/ripplekv), MODEL (default:
# scripts/get_model.sh's checkpoint). Each step's wall time goes to the results folder's
# wall_times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
OUT=results/qwen2.5-coder-1.5b-instruct
MODEL=${MODEL:-$(scripts/get_model.sh qwen2.5-coder-1.5b-instruct | tail -1)}
MINI=../shared/data/longbench/mini
threads=()
if [ -n "${THREADS:-}" ]; then threads=(--threads "$THREADS"); fi
source scripts/results/step.sh  # step NAME DONE_FILE COMMAND...
QPLF=$OUT/profiles/profile_multi_news_8x512_f32_layer_mean.json
QC=$OUT/profiles/code_lcc_8x512_f32_layer_mean.json
D=$OUT/fidelity_code
ripple() {  # ripple PROFILE: r=2 min-max and r=8 rank with it
  echo "ripple@profile=$1,ratio=2,ripple@profile=$1,ratio=8,normalize=rank"
}
fidelity() {  # fidelity TEXTS SKIP MAX METHODS OUT_DIR
  "$BIN" fidelity --model "$MODEL" --dtype bfloat16 "${threads[@]}" --texts "$1" --skip-texts "$2" --max-texts "$3" \
    --prompt-tokens 1024 --continuation 32 --budgets 128,256 --methods "$4" --out "$5"
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(profile code news tables); fi
for target in "${targets[@]}"; do
  case $target in
    profile)
      step "code calibration profile" "$QC" "$BIN" profile --model "$MODEL" --dtype float32 "${threads[@]}" \
        --calibration "$MINI/MiniLongBench_lcc.json" --samples 8 --max-tokens 512 --noise layer_mean --out "$QC" ;;
    code)
      step "code calibration fidelity lcc" "$D/lcc/fidelity.csv" fidelity "$MINI/MiniLongBench_lcc.json" 8 18 \
        "snapkv,cake,$(ripple "$QPLF"),$(ripple "$QC")" "$D/lcc"
      step "code calibration fidelity repobench-p" "$D/repobench-p/fidelity.csv" fidelity \
        "$MINI/MiniLongBench_repobench-p.json" 0 23 "snapkv,cake,$(ripple "$QPLF"),$(ripple "$QC")" "$D/repobench-p" ;;
    news)
      step "code calibration fidelity multi_news" "$D/multi_news/fidelity.csv" fidelity \
        ../shared/data/longbench/raw/multi_news.jsonl 16 32 "snapkv,$(ripple "$QC")" "$D/multi_news" ;;
    news_qplf)  # only where the bit check fails (above); then `tables` again
      "$BIN" fidelity --model "$MODEL" --dtype bfloat16 "${threads[@]}" --texts ../shared/data/longbench/raw/multi_news.jsonl \
        --skip-texts 16 --max-texts 32 --prompt-tokens 1024 --continuation 32 --budgets 128,256 \
        --methods "snapkv,$(ripple "$QC"),$(ripple "$QPLF")" --out "$D/multi_news_both" ;;
    tables)
      for dir in "$D/lcc" "$D/repobench-p" "$D/multi_news" "$D/multi_news_both"; do
        if [ -f "$dir/fidelity.csv" ]; then "$BIN" table --runs "$dir" --out "$dir/tables"; fi
      done ;;
    *) echo "qwen_code_calibration.sh: unknown target '$target' (profile, code, news, tables or news_qplf)" >&2; exit 2 ;;
  esac
done
