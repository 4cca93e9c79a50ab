#!/usr/bin/env bash
# H2O's selector with RippleKV's budgets (`h2o:ripple`) on SmolLM2's LongBench (13 English
# MiniLongBench tasks, 76 samples), where H2O is the best baseline at every budget (the headline's
# longbench_pairs/ row). Its size, variants and use were fixed before it started, and before any
# record of fidelity32_h2o.sh was read (committed with this script).
# Why: fidelity32_h2o.sh asks whether measured budgets improve H2O's selection on continuation;
# this asks it on the benchmark where H2O leads with answers scored. `h2o:ripple` ran there only
# with the `relative` profile (longbench/runs, budgets 128-512, ties with uniform H2O).
#
# Plan (not to be changed once records exist):
#   samples   the headline row's: 13 tasks, at most 6 samples each from ../shared/data/longbench/
#             mini, prompts cut to 4,096 tokens, ChatML, bfloat16, 1 thread (as longbench_pairs/).
#   methods   h2o (uniform budgets, the twin) and h2o:ripple with PLF (the float32 layer_mean
#             profile of the headline row) at r=2 min-max and r=8 rank; budgets 128, 256, 512, 1024;
#             one call (shared prefill per prompt).
#   analysis  1. ripplekv table over the folder: each h2o:ripple setting minus uniform H2O, the
#                Avg over tasks with its 95% paired bootstrap interval; a tie where it holds 0.
#             2. where this folder's H2O predictions equal those of longbench_pairs/ at a budget
#                (the pairs across folders are exact only then; checked with
#                decode_agreement.py), each setting minus the RippleKV run of the same setting
#                with SnapKV's selector in longbench_pairs/, by run_pair.py; else that pair is
#                reported as not exact (another binary, or the engine's batched decode of
#                another grid of variants can change greedy answers).
#   reading   fixed now: reported in the README whatever it shows, beside fidelity32_h2o.sh's
#             answer; the headline keeps the default selector; no default changes on this run alone.
#
# Added after its records, before any of its own (2026-12-06): the full multi_news file.
#   why       on SmolLM2's 200 multi_news samples at budget 256 uniform H2O (15.01) beats both
#             RippleKV settings with SnapKV's selector (the headline's loss of -2.0 and -1.7
#             points; multi_news/); whether H2O's selector with RippleKV's budgets closes it.
#   run       all 200 samples of ../shared/data/longbench/raw multi_news, 4,096-token prompts,
#             budget 256, H2O and h2o:ripple with PLF at r=2 and r=8 rank, one call on 1 thread
#             as multi_news/ (multi_news, then multi_news_tables).
#   analysis  ripplekv table over the folder: each setting minus uniform H2O, paired bootstrap
#             over the 200 samples.
#   reading   fixed now: reported whatever it shows; no default changes.
#
# Added after the multi_news records, before any of its own (2026-12-06, a later session): the
# same 200 samples at budgets 128 and 512.
#   why       at 256 h2o:ripple r=8 rank beat uniform H2O (+0.93 [+0.30, +1.54]) and r=2 tied it
#             (+0.09 [-0.49, +0.67]), one run; the same H2O run made in another folder with another
#             grid of variants (multi_news/) moves the mean by 0.11 and its paired interval against
#             this one is [-0.65, +0.43], as wide as the win's. Whether the win holds at the
#             neighbouring budgets, where SmolLM2's fidelity has r=8 rank beat uniform H2O too.
#   run       all 200 samples of ../shared/data/longbench/raw multi_news, 4,096-token prompts,
#             budgets 128 and 512, H2O and h2o:ripple with PLF at r=2 and r=8 rank (the same
#             settings), one grid on 1 thread per process; SHARD=0/2 and SHARD=1/2 may run side by
#             side (the last to finish merges; a sample's arithmetic does not depend on its shard).
#   analysis  ripplekv table over the folder: each setting minus uniform H2O at each budget,
#             paired bootstrap over the 200 samples (2000 resamples); a tie where it holds 0.
#   reading   fixed now: r=8 rank's win at 256 holds at the neighbouring budgets if it beats
#             uniform H2O at both 128 and 512; it does not if it ties or loses at both; else it is
#             mixed. r=2 is reported beside it. Reported whatever it shows; the headline keeps
#             SnapKV's selector; no default changes.
#   note      (2026-12-06 23:57, changes nothing above) stopped after 13 of its 200 samples, none
#             read: on this 2-core EPYC the grid ran about one sample a minute on both cores, some
#             3 hours for the whole; its partial folder was set aside, not committed. To run it,
#             give it both cores for about 3.5 hours (or more shards on a larger machine).
#   note      (2026-12-07, changes nothing above) its H2O and r=8 rank at 128 and 512 ran instead
#             decoded one variant at a time, as multi_news_sequential_128 and _512 (below), on a
#             host where each took about 40 minutes on both cores; r=2 there has not run.
#   note      (2026-12-07, a later session, changes nothing above) r=2 at 128 and 512 ran decoded
#             one variant at a time as multi_news_sequential_r2 (below); this grid has not run.
#
# Added after 1ad219b6, before any record of it or of this (2026-12-06): the pair at 256 again,
# decoded one variant at a time.
#   why       the win at 256 comes from the engine's batched decode, whose bfloat16 rounding
#             depends on the grid of variants decoded together (the two H2O runs above pair at
#             -0.11 [-0.65, +0.43]); `--decode sequential` writes what a single-method run writes,
#             whatever the grid.
#   run       all 200 samples at budget 256, H2O and h2o:ripple with PLF at r=8 rank,
#             --decode sequential, 1 thread per process, SHARD as above; after multi_news_budgets.
#   note      (2026-12-06 23:57, changes nothing else) run before multi_news_budgets, which was
#             stopped for time (its note above).
#   analysis  ripplekv table over the folder: r=8 rank minus uniform H2O, paired bootstrap over the
#             200 samples; decode_agreement.py against multi_news_h2o/ (how many answers agree).
#   reading   fixed now: the win does not depend on the batched decode's rounding if r=8 rank
#             beats uniform H2O here too; a tie says the win at 256 lies within that noise, and a
#             loss that it does not hold. Reported whatever it shows; no default changes.
#
# Added after multi_news_sequential's records, before any of its own (2026-12-07): that pair at
# budget 128.
#   why       decoded one variant at a time, r=8 rank beat uniform H2O at 256 (+0.87 [+0.29, +1.47]);
#             multi_news_budgets (6 variants) needs about 3.5 hours on both cores of this machine,
#             more than a session holds. This is the part of it that asks the question for r=8 rank
#             at one neighbouring budget, decoded as multi_news_sequential. 128 rather than 512: the
#             tighter budget, where the allocation moves a larger share of each layer's cache.
#   run       all 200 samples, budget 128, H2O and h2o:ripple with PLF at r=8 rank, --decode
#             sequential, 1 thread per process, SHARD as above (multi_news_sequential_128).
#   analysis  ripplekv table over the folder: r=8 rank minus uniform H2O, paired bootstrap over the
#             200 samples (2000 resamples); a tie where the interval holds 0.
#   reading   fixed now: r=8 rank's win reaches budget 128 if it beats uniform H2O here; a tie or a
#             loss says it does not. 512 is left to a later run. Reported whatever it shows; the
#             headline keeps SnapKV's selector; no default changes.
#
# Added while multi_news_sequential_128 ran, before any of its records was read (2026-12-07,
# committed without touching the running script's file): the same pair at 512.
#   why       this host runs the pair at 128 in about 40 minutes on both cores, not the 90
#             expected, which leaves time in this session for the other neighbouring budget.
#   run       all 200 samples, budget 512, H2O and h2o:ripple with PLF at r=8 rank, --decode
#             sequential, 1 thread per process, SHARD as above (multi_news_sequential_512).
#   analysis  as at 128: r=8 rank minus uniform H2O, paired bootstrap over the 200 samples (2000
#             resamples); a tie where the interval holds 0.
#   reading   fixed now, for 128 and 512 together as multi_news_budgets's for r=8 rank: the win at
#             256 holds at the neighbouring budgets if r=8 rank beats uniform H2O at both; it does
#             not if it ties or loses at both; else it is mixed. The reading at 128 above stands.
#             Reported whatever it shows; the headline keeps SnapKV's selector; no default changes.
#
# Added after multi_news_sequential_128's and _512's records, before any of its own (2026-12-07, a
# later session): r=2 at 128 and 512, and the pair at 1024, decoded one variant at a time.
#   why       decoded one variant at a time, r=8 rank tied uniform H2O at 128 (-0.48 [-1.10, +0.11]),
#             and beat it at 256 (+0.87 [+0.29, +1.47]) and 512 (+1.14 [+0.53, +1.77]); r=2, the
#             default setting, tied it at 256 in the batched grid (+0.09 [-0.49, +0.67]) and has not
#             run at 128 or 512 (multi_news_budgets, which holds it, needs some 3.5 hours on 2
#             cores). Budget 1024 (a quarter of a 4,096-token prompt) asks whether r=8 rank's gain
#             keeps growing with the budget or fades as the cache nears the full prompt.
#   run       1. multi_news_sequential_r2_check: uniform H2O on the first 10 of the 200 samples at 128
#                and 512, --decode sequential, 1 thread (a reproduction check of this binary).
#             2. multi_news_sequential_r2: all 200 samples, h2o:ripple with PLF at r=2 (min-max),
#                budgets 128 and 512 in one call, --decode sequential, 1 thread per process, SHARD as
#                above. Uniform H2O is not rerun: a sequential decode writes what a single-method
#                run writes, so its pair is multi_news_h2o_sequential_128/ and _512/'s H2O run.
#             3. multi_news_sequential_1024: all 200 samples, budget 1024, H2O and h2o:ripple with
#                PLF at r=8 rank, --decode sequential, 1 thread per process, SHARD as above. It
#                starts only if 2 has finished by 06:15 UTC on 2026-12-07 (a session's time, decided
#                now, not by any record); else it is left to a later session.
#   analysis  1. decode_agreement.py of the check against multi_news_h2o_sequential_128/ and _512/:
#                the r=2 pairs are exact only if all 20 H2O predictions agree; else they are
#                reported as not exact.
#             2. ripplekv table over the r=2 folder and the _128 and _512 folders together: r=2 minus
#                uniform H2O at 128 and 512, paired bootstrap over the 200 samples (2000 resamples).
#             3. ripplekv table over the 1024 folder: r=8 rank minus uniform H2O, as at 128 and 512.
#             A tie where the interval holds 0.
#   reading   fixed now: r=2 with H2O's selector beats uniform H2O at a budget where its interval
#             lies above 0; if it ties or loses at 128 and 512 as at 256, the multi_news gain of
#             h2o:ripple is r=8 rank's alone. At 1024, r=8 rank's win reaches that budget if it beats
#             uniform H2O there; a tie or a loss says it does not. Reported whatever it shows; the
#             headline keeps SnapKV's selector; no default changes.
#
# Added after the records of 379e6803, before any of its own (2026-12-07, the same session): r=2 at
# 1024.
#   why       r=2 tied uniform H2O at 128 and beat it at 512; r=8 rank beat it at 1024 on the edge
#             of its interval. Whether r=2 does at 1024 too completes r=2's column at 128-1024.
#   run       all 200 samples, budget 1024, h2o:ripple with PLF at r=2 (min-max) alone, --decode
#             sequential, 1 thread per process, SHARD as above (multi_news_sequential_r2_1024). Its
#             pair is multi_news_h2o_sequential_1024/'s H2O run, made this session with the same
#             binary (exact). Stopped, unread, if it has not finished by 07:25 UTC on 2026-12-07.
#   analysis  ripplekv table over this folder and multi_news_h2o_sequential_1024/: r=2 minus uniform
#             H2O at 1024, paired bootstrap over the 200 samples (2000 resamples); a tie where the
#             interval holds 0.
#   reading   fixed now: r=2 beats uniform H2O at 1024 if its interval lies above 0; a tie or a loss
#             says it does not. Reported whatever it shows; no default changes.
#
# Added after every record above was read, before any record of its own (2026-12-07, a later
# session): r=2 at 256, decoded one variant at a time.
#   why       r=2's sequential column has 128, 512 and 1024 (a tie, a win, a win on the edge) but
#             not 256, where only the batched grid (multi_news) ran it: +0.09 [-0.49, +0.67]
#             against uniform H2O, with a rounding that depends on the grid.
#   run       1. multi_news_sequential_r2_256_check: uniform H2O on the first 10 of the 200 samples
#                at 256, --decode sequential, 1 thread (a reproduction check of this binary against
#                multi_news_h2o_sequential/, which another session's binary made).
#             2. multi_news_sequential_r2_256: all 200 samples, h2o:ripple with PLF at r=2 (min-max)
#                alone at 256, --decode sequential, 1 thread per process, SHARD as above. Its pair
#                is multi_news_h2o_sequential/'s H2O run. It starts only after smollm2_streaming.sh's
#                ruler8k_stream49 and ruler4k_r8mm46 have ended (one run at a time on 2 cores), if
#                it can start by 18:45 UTC on 2026-12-07; it is stopped, unread, if it has not
#                finished by 19:20 UTC (then resumed in a later session).
#   analysis  1. decode_agreement.py of the check against multi_news_h2o_sequential/: the pair is
#                exact only if all 10 H2O predictions agree; else it is reported as not exact.
#             2. ripplekv table over this folder and multi_news_h2o_sequential/: r=2 minus uniform
#                H2O at 256, paired bootstrap over the 200 samples (2000 resamples); a tie where the
#                interval holds 0.
#   reading   fixed now: r=2 beats uniform H2O at 256 decoded one variant at a time if its interval
#             lies above 0; a tie or a loss says it does not. Reported whatever it shows; the
#             headline keeps SnapKV's selector; no default changes.
#
# Added after every record above was read, before any record of its own (2026-12-07, a later
# session): uniform H2O at 256 decoded one variant at a time by this binary.
#   why       multi_news_sequential_r2_256's pair is not exact: its uniform H2O run
#             (multi_news_h2o_sequential/) was decoded with the AVX2 CPU's kernels, and this
#             binary's reproduction of its first 10 samples gave 0 of 10 identical answers.
#   run       multi_news_sequential_h2o_256: all 200 samples, uniform H2O alone at 256, --decode
#             sequential, 1 thread per process, SHARD as above, into multi_news_h2o_sequential_h2o256/.
#             It starts only after smollm2_confirm8k.sh seed50 has ended (one run at a time on 2
#             cores), if it can start by 21:05 UTC on 2026-12-07; it is stopped, unread, if it has
#             not finished by 21:45 UTC (then resumed in a later session).
#   analysis  multi_news_sequential_h2o_256_tables: 1. ripplekv table over this folder and
#             multi_news_h2o_sequential_r2_256/ (2000 resamples): r=2 minus uniform H2O at 256,
#             both decoded one variant at a time by the same kernels; a tie where the interval
#             holds 0. 2. The kernels' own effect on the same kept tokens: decode_agreement.py and
#             run_pair.py of this H2O run against multi_news_h2o_sequential/'s (AVX2) one.
#   reading   fixed now: r=2 beats uniform H2O at 256 decoded one variant at a time if its interval
#             lies above 0; a tie or a loss says it does not. This exact pair replaces the inexact
#             one in the README; reported whatever it shows; the headline keeps SnapKV's selector;
#             no default changes.
#
# Added after every record above was read, before any record of its own (2026-12-07, a later
# session): r=8 rank at 256 decoded one variant at a time by this binary.
#   why       multi_news_sequential_h2o_256 found that uniform H2O's and r=2's sequential runs on
#             this AVX-512 CPU give the batched grid's (multi_news_h2o/) answers, 200 of 200 each,
#             and the README infers the same for r=8 rank, whose sequential run
#             (multi_news_h2o_sequential/) was made with the AVX2 kernels. This measures it.
#   run       multi_news_sequential_r8_256: all 200 samples, h2o:ripple with PLF at r=8 rank alone
#             at 256, --decode sequential, 1 thread per process, SHARD as above, into
#             multi_news_h2o_sequential_r8_256/ (about 1,600 s, as the two runs before it). It
#             starts only after smollm2_streaming.sh ruler8k_stream50 and its analyses have ended
#             (one run at a time on 2 cores), if it can start by 23:35 UTC on 2026-12-07; it is
#             stopped, unread, if it has not finished by 00:05 UTC on 2026-12-08 (then resumed in a
#             later session).
#   analysis  multi_news_sequential_r8_256_tables: 1. decode_agreement.py of this run against
#             multi_news_h2o/'s r=8 rank at 256 (batched, the same kernels) into batched_256.md.
#             2. ripplekv table over this folder and multi_news_h2o_sequential_h2o256/ (2000
#             resamples): r=8 rank minus uniform H2O at 256, both decoded one variant at a time by
#             the same kernels; a tie where the interval holds 0.
#   reading   fixed now: the README's inference holds if all 200 answers equal the batched grid's,
#             and is replaced by the count otherwise. r=8 rank beats uniform H2O at 256 decoded one
#             variant at a time by this binary if the interval of 2 lies above 0; a tie or a loss
#             says it does not. Reported whatever it shows; the headline keeps SnapKV's selector;
#             no default changes.
#
#   scripts/results/smollm2_longbench_h2o.sh [run] [tables] [multi_news] [multi_news_tables]
#       [multi_news_budgets] [multi_news_budgets_tables] [multi_news_sequential]
#       [multi_news_sequential_tables] [multi_news_sequential_128] [multi_news_sequential_128_tables]
#       [multi_news_sequential_512] [multi_news_sequential_512_tables] [multi_news_sequential_r2_check]
#       [multi_news_sequential_r2] [multi_news_sequential_r2_tables] [multi_news_sequential_1024]
#       [multi_news_sequential_1024_tables] [multi_news_sequential_r2_1024]
#       [multi_news_sequential_r2_1024_tables] [multi_news_sequential_r2_256_check]
#       [multi_news_sequential_r2_256] [multi_news_sequential_r2_256_tables]
#       [multi_news_sequential_h2o_256] [multi_news_sequential_h2o_256_tables]
#       [multi_news_sequential_r8_256] [multi_news_sequential_r8_256_tables]
#       (default: run and tables; rerun to resume)
# Environment: BIN (default build/ripplekv). The wall time goes to the model's wall_times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
source scripts/results/step.sh  # step NAME DONE_FILE COMMAND...
S=results/smollm2-135m-instruct
PLF=$S/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json
RUNS=$S/longbench_h2o/runs
GRID="h2o,h2o:ripple@profile=$PLF,ratio=2,h2o:ripple@profile=$PLF,ratio=8,normalize=rank"
PAIR="h2o,h2o:ripple@profile=$PLF,ratio=8,normalize=rank"  # uniform H2O and r=8 rank
R2="h2o:ripple@profile=$PLF,ratio=2"  # r=2 (min-max) alone
R8="h2o+ripple@profile=${PLF//\//_}_ratio=8_normalize=rank"  # r=8 rank's run folder, less _b<budget>
R2_DIR="h2o+ripple@profile=${PLF//\//_}_ratio=2"  # r=2's run folder, less _b<budget>
# multi_news NAME FOLDER BUDGETS METHODS [ARGS...]: the first $N (default 200) multi_news samples
# into $S/FOLDER/runs, one 1-thread call (SHARD=i/n); done when the run folder $DONE (default r=8
# rank's) at the last budget is scored
multi_news() {
  local name=$1 runs=$S/$2/runs budgets=$3 methods=$4
  shift 4
  OUT=$S step "$name" "$runs/${DONE:-$R8}_b${budgets##*,}/result.json" \
    "$BIN" longbench --model "$(scripts/get_model.sh smollm2-135m-instruct | tail -1)" --dtype bfloat16 --threads 1 \
    --data ../shared/data/longbench/raw --tasks multi_news --max-samples "${N:-200}" --max-input-tokens 4096 --budgets "$budgets" \
    --methods "$methods" "$@" --out "$runs" ${SHARD:+--shard "$SHARD"}
}
# sequential AT FOLDER BUDGET: the pair (uniform H2O, r=8 rank) decoded one variant at a time;
# AT is the step name's budget phrase ("" or " at 128")
sequential() {
  multi_news "multi_news 200 H2O selector with RippleKV budgets$1, sequential decode${SHARD:+ (shard $SHARD)}" \
    "$2" "$3" "$PAIR" --decode sequential
}
# sequential_r2 AT FOLDER BUDGETS: r=2 alone, decoded one variant at a time (its pair is another
# folder's H2O run); AT is the step name's budget phrase
sequential_r2() {
  DONE=$R2_DIR multi_news \
    "multi_news 200 H2O selector with RippleKV budgets r=2$1, sequential decode${SHARD:+ (shard $SHARD)}" \
    "$2" "$3" "$R2" --decode sequential
}
tables_of() {  # tables_of FOLDER [FOLDER...]: ripplekv table over their runs into the first's tables, if it exists
  local runs=() f
  for f in "$@"; do runs+=("$S/$f/runs"); done
  if [ -d "${runs[0]}" ]; then "$BIN" table --runs "${runs[@]}" --out "$S/$1/tables"; fi
}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(run tables); fi
for target in "${targets[@]}"; do
  case $target in
    run)
      OUT=$S step "longbench H2O selector with RippleKV budgets" "$RUNS/${R8}_b1024/result.json" \
        "$BIN" longbench --model "$(scripts/get_model.sh smollm2-135m-instruct | tail -1)" --dtype bfloat16 --threads 1 \
        --data ../shared/data/longbench/mini \
        --tasks qasper,multifieldqa_en,hotpotqa,2wikimqa,musique,narrativeqa,trec,triviaqa,samsum,passage_count,passage_retrieval_en,lcc,repobench-p \
        --max-samples 6 --max-input-tokens 4096 --budgets 128,256,512,1024 --methods "$GRID" --out "$RUNS" ;;
    tables) tables_of longbench_h2o ;;
    multi_news) multi_news "multi_news 200 H2O selector with RippleKV budgets" multi_news_h2o 256 "$GRID" ;;
    multi_news_tables) tables_of multi_news_h2o ;;
    multi_news_budgets)
      multi_news "multi_news 200 H2O selector with RippleKV budgets at 128 and 512${SHARD:+ (shard $SHARD)}" \
        multi_news_h2o_budgets 128,512 "$GRID" ;;
    multi_news_budgets_tables) tables_of multi_news_h2o_budgets ;;
    multi_news_sequential) sequential "" multi_news_h2o_sequential 256 ;;
    multi_news_sequential_tables) tables_of multi_news_h2o_sequential ;;
    multi_news_sequential_128) sequential " at 128" multi_news_h2o_sequential_128 128 ;;
    multi_news_sequential_128_tables) tables_of multi_news_h2o_sequential_128 ;;
    multi_news_sequential_512) sequential " at 512" multi_news_h2o_sequential_512 512 ;;
    multi_news_sequential_512_tables) tables_of multi_news_h2o_sequential_512 ;;
    multi_news_sequential_r2_check)  # uniform H2O on the first 10 samples, as the _128 and _512 folders
      SHARD= N=10 DONE=h2o multi_news "multi_news first 10 H2O at 128 and 512, sequential decode (reproduction check)" \
        multi_news_h2o_sequential_check 128,512 h2o --decode sequential
      check=$S/multi_news_h2o_sequential_check
      if [ -f "$check/runs/h2o_b512/result.json" ]; then
        for b in 128 512; do
          .venv/bin/python scripts/results/decode_agreement.py --labels check "sequential_$b" \
            "$check/runs" "$S/multi_news_h2o_sequential_$b/runs" > "$check/agreement_$b.md"
        done
      fi ;;
    multi_news_sequential_r2_256_check)  # uniform H2O on the first 10 samples at 256
      SHARD= N=10 DONE=h2o multi_news "multi_news first 10 H2O at 256, sequential decode (reproduction check)" \
        multi_news_h2o_sequential_check256 256 h2o --decode sequential
      check=$S/multi_news_h2o_sequential_check256
      if [ -f "$check/runs/h2o_b256/result.json" ]; then
        .venv/bin/python scripts/results/decode_agreement.py --labels check sequential \
          "$check/runs" "$S/multi_news_h2o_sequential/runs" | tee "$check/agreement_256.md"
      fi ;;
    multi_news_sequential_r2_256) sequential_r2 " at 256" multi_news_h2o_sequential_r2_256 256 ;;
    multi_news_sequential_r2_256_tables) tables_of multi_news_h2o_sequential_r2_256 multi_news_h2o_sequential ;;
    multi_news_sequential_h2o_256)
      DONE=h2o multi_news "multi_news 200 H2O at 256, sequential decode${SHARD:+ (shard $SHARD)}" \
        multi_news_h2o_sequential_h2o256 256 h2o --decode sequential ;;
    multi_news_sequential_h2o_256_tables)
      tables_of multi_news_h2o_sequential_h2o256 multi_news_h2o_sequential_r2_256
      new=$S/multi_news_h2o_sequential_h2o256
      if [ -f "$new/runs/h2o_b256/result.json" ]; then
        { .venv/bin/python scripts/results/decode_agreement.py --labels avx512 avx2 \
            "$new/runs" "$S/multi_news_h2o_sequential/runs"
          echo
          .venv/bin/python scripts/results/run_pair.py "$new/runs/h2o_b256" "$S/multi_news_h2o_sequential/runs/h2o_b256"
        } > "$new/kernels_256.md"
        # not in the plan, seen when it was read: both sequential runs against the batched grid
        # (multi_news_h2o/, made with the same AVX-512 kernels)
        { .venv/bin/python scripts/results/decode_agreement.py --labels sequential batched \
            "$new/runs" "$S/multi_news_h2o/runs"
          echo
          .venv/bin/python scripts/results/decode_agreement.py --labels sequential batched \
            "$S/multi_news_h2o_sequential_r2_256/runs" "$S/multi_news_h2o/runs"
        } > "$new/batched_256.md"
      fi ;;
    multi_news_sequential_r8_256)
      multi_news "multi_news 200 H2O selector with RippleKV budgets r=8 rank at 256, sequential decode${SHARD:+ (shard $SHARD)}" \
        multi_news_h2o_sequential_r8_256 256 "${PAIR#h2o,}" --decode sequential ;;
    multi_news_sequential_r8_256_tables)
      tables_of multi_news_h2o_sequential_r8_256 multi_news_h2o_sequential_h2o256
      new=$S/multi_news_h2o_sequential_r8_256
      if [ -f "$new/runs/${R8}_b256/result.json" ]; then
        .venv/bin/python scripts/results/decode_agreement.py --labels sequential batched \
          "$new/runs" "$S/multi_news_h2o/runs" | tee "$new/batched_256.md"
      fi ;;
    multi_news_sequential_r2) sequential_r2 " at 128 and 512" multi_news_h2o_sequential_r2 128,512 ;;
    multi_news_sequential_r2_tables)
      tables_of multi_news_h2o_sequential_r2 multi_news_h2o_sequential_128 multi_news_h2o_sequential_512 ;;
    multi_news_sequential_1024) sequential " at 1024" multi_news_h2o_sequential_1024 1024 ;;
    multi_news_sequential_1024_tables) tables_of multi_news_h2o_sequential_1024 ;;
    multi_news_sequential_r2_1024) sequential_r2 " at 1024" multi_news_h2o_sequential_r2_1024 1024 ;;
    multi_news_sequential_r2_1024_tables) tables_of multi_news_h2o_sequential_r2_1024 multi_news_h2o_sequential_1024 ;;
    *) echo "smollm2_longbench_h2o.sh: unknown target '$target' (run, tables, multi_news, multi_news_tables, multi_news_budgets, multi_news_budgets_tables, multi_news_sequential, multi_news_sequential_tables, multi_news_sequential_128, multi_news_sequential_128_tables, multi_news_sequential_512, multi_news_sequential_512_tables, multi_news_sequential_r2_check, multi_news_sequential_r2, multi_news_sequential_r2_tables, multi_news_sequential_1024, multi_news_sequential_1024_tables, multi_news_sequential_r2_1024, multi_news_sequential_r2_1024_tables, multi_news_sequential_r2_256_check, multi_news_sequential_r2_256, multi_news_sequential_r2_256_tables, multi_news_sequential_h2o_256, multi_news_sequential_h2o_256_tables, multi_news_sequential_r8_256 or multi_news_sequential_r8_256_tables)" >&2; exit 2 ;;
  esac
done
