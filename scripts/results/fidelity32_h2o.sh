#!/usr/bin/env bash
# H2O's selector with RippleKV's budgets (`h2o:ripple`) on the 32 held-out fidelity texts, both
# models. Its size, variants and use were fixed before it started (committed with this script,
# before any of its records).
# Why: on fidelity H2O is the best baseline at 128 and 256 on both models (and at 64 on SmolLM2),
# and RippleKV with SnapKV's selector loses to it there (fidelity32_all/); the allocator and the
# selector are independent, so the question is whether measured budgets help the selector that
# continues text best. `h2o:ripple` has run only with the `relative` profile (SmolLM2's first
# LongBench and RULER 4k runs, ties with uniform H2O), never on fidelity nor with today's
# float32 `layer_mean` profiles.
#
# Plan (not to be changed once records exist):
#   texts     fidelity32.sh's: the first 32 multi_news texts from index 16 long enough for the
#             prompt and its continuation; SmolLM2 1,536-token prompts and 64 teacher-forced
#             tokens, Qwen 1,024 and 32; bfloat16, all cores, one call per model.
#   methods   h2o (uniform budgets, the twin) and h2o:ripple with each model's committed float32
#             layer_mean profile (fidelity32.sh's) at r=2 min-max and r=8 rank; SmolLM2 also
#             r=4 min-max (its winner over H2O at 1024 with SnapKV's selector).
#   budgets   SmolLM2 64, 128, 256, 512, 1024; Qwen 64, 128, 256, 512 (its prompt is 1,024).
#   analysis  1. ripplekv table over each folder: each h2o:ripple setting minus uniform H2O at
#                each budget, 95% paired bootstrap over texts; a tie where it holds 0.
#             2. bit check: this folder's h2o rows per text equal those of the 32-text folders
#                beside it (fidelity32_all/ at 128 and 256; SmolLM2's fidelity32_budgets/ and
#                Qwen's fidelity32_budgets/ at the other budgets). Where they do, each setting
#                is also paired with the best baseline of those folders at its budget
#                (fidelity_pair.py; where that baseline is H2O this is analysis 1) and with
#                RippleKV's SnapKV-selector run of the same r (the selector's effect).
#   reading   fixed now: reported in the README whatever it shows. It answers whether measured
#             budgets improve H2O's selection on continuation: yes for a setting that beats
#             uniform H2O at 128 and 256 on both models, no for one that loses there, else not
#             shown. The headline table keeps the default selector (SnapKV); no default
#             changes on this run alone.
#
# Notes added after the records (2026-12-06), changing nothing above:
#   - "loses to it there" holds at 128 on both models and at 256 on SmolLM2; on Qwen at 256
#     both RippleKV settings tie H2O (fidelity32_all/). H2O is SmolLM2's best baseline at 64 to
#     512 (fidelity32_budgets/: CAKE at 1024).
#   - the reading's "both models" leaves r=4, run on SmolLM2 only, to be read on SmolLM2 alone;
#     "else not shown" means undecided (reported all the same).
#   - analysis 2 is scripts/results/fidelity32_h2o_pairs.py (the `pairs` target); its bit check
#     compares the per-position KL of every text, and it needs fidelity32.sh's qwen_budgets.
#   - (added after the replication's records, 2026-12-06) "tables_new_texts" below names no
#     target: the smollm2_new_texts target writes its tables itself, to
#     fidelity32_h2o_new_texts/tables.
#
# Added after those records, before any of its own (2026-12-06): a replication on new texts.
#   why       on SmolLM2 every h2o:ripple setting beat uniform H2O at 128 and 256 on the 32
#             texts; a replication on texts none of those runs saw tests it.
#   run       SmolLM2, the next 32 multi_news texts long enough for the prompt and its
#             continuation (--skip-texts 58: the 32 texts above end at index 57), the same
#             settings, H2O and h2o:ripple r=2, r=4 (min-max) and r=8 rank with PLF, budgets 128
#             and 256, one call on all cores (smollm2_new_texts; tables_new_texts).
#   analysis  ripplekv table over the folder: each setting minus uniform H2O.
#   reading   fixed now: a setting's win at a budget replicates where its interval lies below 0,
#             else it does not; reported whatever it shows; no default changes.
#
# Added after the replication's records, before any of its own (2026-12-06): the other budgets.
#   run       the same 32 new texts and settings at budgets 64, 512 and 1024 (H2O and
#             h2o:ripple r=2, r=4, r=8 rank), one call (smollm2_new_texts_budgets, THREADS=1
#             beside another run), with its tables.
#   analysis  and reading as the replication's: a win at a budget replicates where its interval
#             lies below 0 (at 64: r=2's win; r=4's tie and r=8 rank's loss are reported beside).
#
#   scripts/results/fidelity32_h2o.sh [smollm2] [qwen] [tables] [pairs] [smollm2_new_texts]
#       [smollm2_new_texts_budgets]   (default: the first three, in that order; rerun to resume)
# Environment: THREADS (default all cores), BIN (default build/ripplekv). Each model's wall time
# goes to its results folder's wall_times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
TEXTS=../shared/data/longbench/raw/multi_news.jsonl
threads=()
if [ -n "${THREADS:-}" ]; then threads=(--threads "$THREADS"); fi
source scripts/results/step.sh  # step NAME DONE_FILE COMMAND...
Q=results/qwen2.5-coder-1.5b-instruct
S=results/smollm2-135m-instruct

fidelity() {  # fidelity MODEL_NAME PROFILE PROMPT_TOKENS CONTINUATION BUDGETS OUT_DIR [EXTRA_METHODS]
  local model
  model=$(scripts/get_model.sh "$1" | tail -1)
  "$BIN" fidelity --model "$model" --dtype bfloat16 "${threads[@]}" --texts "$TEXTS" --skip-texts "${SKIP:-16}" \
    --max-texts 32 --prompt-tokens "$3" --continuation "$4" --budgets "$5" \
    --methods "h2o,h2o:ripple@profile=$2,ratio=2,${7:+$7,}h2o:ripple@profile=$2,ratio=8,normalize=rank" --out "$6"
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(smollm2 qwen tables); fi
for target in "${targets[@]}"; do
  case $target in
    smollm2)
      PLF=$S/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json
      OUT=$S step "fidelity 32 texts, H2O selector with RippleKV budgets" "$S/fidelity32_h2o/fidelity.csv" \
        fidelity smollm2-135m-instruct "$PLF" 1536 64 64,128,256,512,1024 "$S/fidelity32_h2o" \
        "h2o:ripple@profile=$PLF,ratio=4" ;;
    qwen)
      OUT=$Q step "fidelity 32 texts, H2O selector with RippleKV budgets" "$Q/fidelity32_h2o/fidelity.csv" \
        fidelity qwen2.5-coder-1.5b-instruct "$Q/profiles/profile_multi_news_8x512_f32_layer_mean.json" 1024 32 \
        64,128,256,512 "$Q/fidelity32_h2o" ;;
    tables)
      for dir in "$S/fidelity32_h2o" "$Q/fidelity32_h2o"; do
        if [ -f "$dir/fidelity.csv" ]; then "$BIN" table --runs "$dir" --out "$dir/tables"; fi
      done ;;
    pairs)
      .venv/bin/python scripts/results/fidelity32_h2o_pairs.py ;;
    smollm2_new_texts)
      PLF=$S/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json
      SKIP=58 OUT=$S step "fidelity 32 new texts, H2O selector with RippleKV budgets" \
        "$S/fidelity32_h2o_new_texts/fidelity.csv" \
        fidelity smollm2-135m-instruct "$PLF" 1536 64 128,256 "$S/fidelity32_h2o_new_texts" "h2o:ripple@profile=$PLF,ratio=4"
      "$BIN" table --runs "$S/fidelity32_h2o_new_texts" --out "$S/fidelity32_h2o_new_texts/tables" ;;
    smollm2_new_texts_budgets)
      PLF=$S/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json
      SKIP=58 OUT=$S step "fidelity 32 new texts at 64, 512 and 1024, H2O selector with RippleKV budgets" \
        "$S/fidelity32_h2o_new_texts_budgets/fidelity.csv" \
        fidelity smollm2-135m-instruct "$PLF" 1536 64 64,512,1024 "$S/fidelity32_h2o_new_texts_budgets" \
        "h2o:ripple@profile=$PLF,ratio=4"
      "$BIN" table --runs "$S/fidelity32_h2o_new_texts_budgets" --out "$S/fidelity32_h2o_new_texts_budgets/tables" ;;
    *) echo "fidelity32_h2o.sh: unknown target '$target' (smollm2, qwen, tables, pairs, smollm2_new_texts or smollm2_new_texts_budgets)" >&2; exit 2 ;;
  esac
done
