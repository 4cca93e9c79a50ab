#!/usr/bin/env bash
# StreamingLLM's selector with RippleKV's budgets (`streamingllm:ripple`) on SmolLM2 with today's
# float32 layer_mean profile. Its size, variants and use were fixed before it started (committed
# with this script, before any of its records).
# Why: issue 14 asks for ripple's allocation combined with the other selectors (H2O and
# StreamingLLM), since the allocator and the selector are independent. `h2o:ripple` has run with
# today's profiles (fidelity32_h2o.sh, smollm2_longbench_h2o.sh); `streamingllm:ripple` ran only
# with the older `relative` bfloat16 profile (SmolLM2's first LongBench and RULER 4k runs, ties
# with uniform StreamingLLM). StreamingLLM keeps the first 4 tokens and the most recent ones, so
# a layer's budget is its window: the question is whether measured budgets place the window's
# length where it matters, on continuation (fidelity) and on retrieval (RULER).
#
# Plan (not to be changed once records exist):
#   1. fidelity   fidelity32.sh's 32 texts and settings (the first 32 multi_news texts from index
#                 16 long enough for a 1,536-token prompt and 64 teacher-forced tokens), bfloat16,
#                 all cores, one call: streamingllm (uniform budgets, the twin) and
#                 streamingllm:ripple with PLF at r=2 min-max, r=4 min-max and r=8 rank, budgets
#                 64, 128, 256, 512 and 1024 (about 9 minutes on 2 threads, as fidelity32_h2o.sh).
#   2. ruler4k    RULER 4k, new samples: seed 46 (SmolLM2's RULER seeds so far were 42-45 and
#                 100-107), 20 per task x 11 tasks = 220 prompts, bfloat16, two 1-thread shards
#                 side by side (confirm_run.sh): full, streamingllm and streamingllm:ripple with PLF
#                 at r=2, r=4 and r=8 rank, budgets 512 and 1024 (StreamingLLM scored 3.6-3.8 at
#                 256 on earlier 4k sets, 6.1-6.7 at 512 and 8.9-11.7 at 1024, so 256 is near the
#                 floor). It starts only if 1 has finished by 08:30 UTC on 2026-12-07; it is
#                 stopped, unread, if it has not finished by 09:35 UTC (a session's time, decided
#                 now, not by any record), and left to resume in a later session.
#   analysis  1. ripplekv table over each folder: each setting minus uniform StreamingLLM at each
#                budget, 95% paired bootstrap over texts (fidelity, 2000 resamples) or prompts
#                (RULER, 100,000 resamples, as confirm_run.sh makes it); a tie where it holds 0.
#             2. fidelity only: whether this folder's streamingllm rows per text (fidelity_texts.csv:
#                mean KL and top-1 agreement, as printed) equal those of fidelity32_all/ (128,
#                256) and fidelity32_budgets/ (64, 512, 1024); where they do, each setting is
#                also paired with that folder's best baseline at the budget and with RippleKV of
#                the same setting with SnapKV's selector (fidelity_pair.py; the selector's
#                effect); else those pairs are reported as not exact.
#   reading   fixed now: reported in the README whatever it shows. Measured budgets improve
#             StreamingLLM's selection on continuation for a setting that beats uniform
#             StreamingLLM at 128 and 256, not for one that loses at both, else undecided; on
#             retrieval for a setting that beats it at both 512 and 1024 of RULER 4k, not for one
#             that ties or loses at both, else mixed. The headline keeps the default selector
#             (SnapKV); no default changes on this run alone.
#
# Added after the fidelity and ruler4k records (and smollm2_longbench_streaming.sh's LongBench
# records) were read, before any record of its own (2026-12-07, the same session): every baseline
# and RippleKV with SnapKV's selector on the same 220 RULER prompts.
#   why       ruler4k ran no SnapKV-selector method, so it cannot set the two selectors side by
#             side on retrieval; and its 220 prompts are new, a fifth SmolLM2 RULER 4k sample set
#             on which the headline's question (RippleKV against every baseline) has not run.
#   run       ruler4k_all: the same 220 prompts (seed 46, 20 per task), full, snapkv, pyramidkv,
#             streamingllm, h2o, cake, squeeze and RippleKV (SnapKV's selector) with PLF at r=2,
#             r=4 (min-max) and r=8 rank, budgets 512 and 1024, one grid, two 1-thread shards side
#             by side (confirm_run.sh) into ruler4k_seed46/. It starts only if
#             smollm2_longbench_streaming.sh multi_news has ended by 08:55 UTC on 2026-12-07, and
#             is stopped, unread, if it has not finished by 09:45 UTC.
#   analysis  1. ruler4k_all_check: decode_agreement.py of this folder's full and streamingllm runs
#                against ruler4k_streaming/'s; pairs across the two folders are exact only if
#                every prediction agrees, else they are reported as not exact.
#             2. ripplekv table over the folder (100,000 resamples, as confirm_run.sh makes it):
#                each RippleKV setting minus the best baseline and minus SnapKV at each budget.
#             3. run_pair.py (ruler4k_all_pairs): each streamingllm:ripple setting of
#                ruler4k_streaming/ minus RippleKV of the same setting with SnapKV's selector here
#                (the selector's effect), and uniform StreamingLLM minus SnapKV, at both budgets.
#             A tie where the 95% interval holds 0.
#   reading   fixed now: reported in the README whatever it shows, as one more RULER 4k sample set
#             beside the others; the headline is not changed by it (pooling it there would need
#             a plan of its own); no default changes.
#
# Added after every record above was read, before any record of its own (2026-12-07, the next
# session): budgets 128 and 256 on the same 220 prompts, and the seed-46 set in the headline.
#   why       the headline's SmolLM2 RULER 4k row (the H200's 319 prompts, seeds 44 and 100-107)
#             has RippleKV beat every baseline at 128, 256 and 1024; ruler4k_all tested new
#             prompts at 512 and 1024 only. Seed 46 shares no prompt with the H200's sets.
#   run       ruler4k_low: the same 220 prompts (seed 46, 20 per task), full, snapkv, pyramidkv,
#             streamingllm, h2o, cake, squeeze and RippleKV (SnapKV's selector) with PLF at r=2,
#             r=4 (min-max) and r=8 rank, budgets 128 and 256, one grid, two 1-thread shards side
#             by side (confirm_run.sh) into ruler4k_seed46_low/. It starts only if it can start by
#             10:30 UTC on 2026-12-07, and is stopped, unread, if it has not finished by 11:45 UTC.
#   analysis  1. ruler4k_low_check: decode_agreement.py of its full run against ruler4k_seed46/'s
#                (the full cache does not depend on the budgets); tables across the two folders
#                are exact only if all 220 predictions agree, else reported as not exact.
#             2. ruler4k_seed46_tables: one table over budgets 128 to 1024 (ruler4k_seed46/runs
#                and ruler4k_seed46_low/runs but its full run), 100,000 resamples, into
#                ruler4k_seed46_all/tables (and plots/): each RippleKV setting minus the best
#                baseline and minus SnapKV at each budget; a tie where the 95% interval holds 0.
#   reading   fixed now: the headline gains a row "SmolLM2-135M, RULER 4k (CPU, seed 46, fixed in
#             advance), 220 prompts" from that table at all four budgets, whatever it shows; the
#             H200 row stays as it is (not pooled: other arithmetic, see ruler_pooled.sh h200_4k).
#             The 512 and 1024 figures were read (ruler4k_all's records) before this was decided;
#             128 and 256 had not run. The README reports it beside the other RULER 4k sets; no
#             default changes.
#   note      (2026-12-07, after ruler4k_low's records; changes nothing) this supersedes
#             ruler4k_all's reading that the headline is not changed by it; the row is named
#             "SmolLM2-135M, RULER 4k (CPU; seed 46, fixed in advance), 220 prompts".
#
# Added after ruler4k_low ended (one line of its table seen, none read), before any record of its
# own (2026-12-07, the same session as ruler4k_low): a replication of the RULER wins of ruler4k above on new prompts.
#   why       on seed 46, r=8 rank beat uniform StreamingLLM at 512 and 1024 and r=4 at 1024, one
#             sample set each; the README lists their replication on new prompts as missing.
#   run       ruler4k47: ruler4k's grid (full, streamingllm and streamingllm:ripple with PLF at
#             r=2, r=4 and r=8 rank, budgets 512 and 1024) on new prompts, seed 47 (SmolLM2's RULER
#             seeds so far: 42-46 and 100-107), 20 per task x 11 tasks = 220, two 1-thread shards
#             side by side (confirm_run.sh) into ruler4k_streaming_seed47/. It starts only if it can
#             start by 11:00 UTC on 2026-12-07, and is stopped, unread, if it has not finished by
#             11:50 UTC.
#   analysis  ripplekv table over the folder (100,000 resamples, as confirm_run.sh makes it): each
#             setting minus uniform StreamingLLM at each budget; a tie where the 95% interval
#             holds 0.
#   reading   fixed now, reported in the README whatever it shows: a win on seed 46 replicates
#             where the same setting beats uniform StreamingLLM at the same budget on seed 47;
#             r=8 rank's retrieval gain replicates if both of its wins do, fails if it ties or
#             loses at both, else is partly replicated. Not pooled with seed 46; the headline and
#             the defaults are not changed by it.
#
# Added after ruler4k47's run ended (none of its records read), before any record of its own
# (2026-12-07, the same session): StreamingLLM's selector with RippleKV's budgets at 128 and 256
# on the seed-46 prompts.
#   why       ruler4k ran 512 and 1024 only (StreamingLLM near its floor below them); ruler4k_low
#             has since run every other method at 128 and 256 on these prompts, where RippleKV
#             with SnapKV's selector gains most at 128, so the two selectors can be set side by
#             side there too. The README lists budgets below 512 as missing.
#   run       ruler4k_stream_low: ruler4k's grid (full, streamingllm and streamingllm:ripple with
#             PLF at r=2, r=4 and r=8 rank) at budgets 128 and 256, seed 46, 20 per task, two
#             1-thread shards side by side (confirm_run.sh) into ruler4k_streaming_low/. It starts
#             only if it can start by 11:15 UTC on 2026-12-07, and is stopped, unread, if it has
#             not finished by 12:00 UTC.
#   analysis  1. ripplekv table over the folder (100,000 resamples, as confirm_run.sh makes it):
#                each setting minus uniform StreamingLLM at each budget.
#             2. ruler4k_stream_low_check: decode_agreement.py of its full and streamingllm runs
#                against ruler4k_seed46_low/'s; the pairs in 3 are exact only if every prediction
#                agrees, else reported as not exact.
#             3. ruler4k_stream_low_pairs (run_pair.py): each streamingllm:ripple setting minus
#                RippleKV of the same setting with SnapKV's selector in ruler4k_seed46_low/, and
#                uniform StreamingLLM minus SnapKV, at both budgets.
#             A tie where the 95% interval holds 0.
#   reading   fixed now, reported in the README whatever it shows: measured budgets help
#             StreamingLLM's selection at low budgets for a setting that beats uniform
#             StreamingLLM at both 128 and 256, not for one that ties or loses at both, else
#             mixed. Not in the headline; no default changes.
#   note      (2026-12-07, after its records; changes nothing) "gains most at 128" above is wrong:
#             on seed 46 RippleKV with SnapKV's selector gains more at 1024 (r=4 +14.45 over SnapKV,
#             +4.33 at 128); 128 is the one budget where all three settings beat every baseline.
#
# Added after every record above was read, before any record of its own (2026-12-07, the next
# session): every method at every budget on the seed-47 prompts, a second CPU headline row.
#   why       the seed-46 row rests on one sample set: RippleKV beat the best baseline there with
#             r=2 at 128, r=4 at 128-1024 and r=8 rank at 128, 512 and 1024, and tied elsewhere.
#             On seed 47 only StreamingLLM's selector has run (ruler4k47), so none of those wins
#             has been tested on new prompts; and the default's three ties would need more
#             prompts than one set holds (91-188 per task, samples_needed.py), which pooling the
#             two sets, fixed now, brings nearer.
#   run       ruler4k_every47: the seed-47 prompts of ruler4k47 (20 per task x 11 tasks = 220),
#             full, snapkv, pyramidkv, streamingllm, h2o, cake, squeeze and RippleKV (SnapKV's
#             selector) with PLF at r=2, r=4 (min-max) and r=8 rank, budgets 128, 256, 512 and
#             1024, one grid, two 1-thread shards side by side (confirm_run.sh) into
#             ruler4k_seed47/. It starts only if it can start by 12:30 UTC on 2026-12-07, and is
#             stopped, unread, if it has not finished by 13:50 UTC.
#   analysis  1. ripplekv table over the folder (100,000 resamples, as confirm_run.sh makes it):
#                each RippleKV setting minus the best baseline and minus SnapKV at each budget.
#             2. ruler4k_every47_check: decode_agreement.py of its full and streamingllm runs
#                against ruler4k_streaming_seed47/'s; the pairs in 3 are exact only if every
#                prediction agrees, else reported as not exact.
#             3. ruler4k_every47_pairs (run_pair.py): each streamingllm:ripple setting of
#                ruler4k_streaming_seed47/ minus RippleKV of the same setting here, and uniform
#                StreamingLLM minus SnapKV, at 512 and 1024 (the selector's effect on seed 47).
#             4. ruler4k_pooled4647: `ripplekv table --pool` (100,000 resamples) over seeds 46
#                and 47, 440 prompts, every method at 128 to 1024 (ruler4k_seed46/runs,
#                ruler4k_seed46_low/runs but its full run, ruler4k_seed47/runs) into
#                ruler4k_pooled4647/tables (and plots/).
#             A tie where the 95% interval holds 0.
#   reading   fixed now, reported in the README whatever it shows: the headline gains a row
#             "SmolLM2-135M, RULER 4k (CPU; seed 47, fixed in advance), 220 prompts" from 1 at
#             all four budgets. A seed-46 win over the best baseline replicates where the same
#             setting beats seed 47's best baseline at the same budget; a setting's wins
#             replicate if all of them do, fail if none does, else partly. The pooled table (4) is
#             the 440-prompt answer, reported in the README, not in the headline (its prompts are
#             in the two rows). No default changes.
#
# Added after ruler4k_every47 ended, before any record of it was read (its table was printed to a
# log and not looked at) and before any of its own (2026-12-07, the same session; decided while
# ruler4k_every47 ran, written down after, since this script cannot change while a target runs):
# a third set of new prompts, seed 48, with every method, pooled with seeds 46 and 47.
#   why       the default's ties with the best baseline on seed 46 would need 91-188 prompts per
#             task to be found 4 times in 5 at their measured gaps (samples_needed.py); seeds 46
#             and 47 give 40. More prompts, not another reading of the same ones; 10 per task, not
#             20, so that it ends within this session.
#   run       ruler4k_every48: ruler4k_every47's grid (full, the six baselines and RippleKV with
#             SnapKV's selector at r=2, r=4 and r=8 rank, PLF, budgets 128 to 1024) on new
#             prompts, seed 48 (SmolLM2's RULER seeds so far: 42-47 and 100-107), 10 per task x
#             11 tasks = 110, two 1-thread shards side by side (confirm_run.sh) into
#             ruler4k_seed48/. It starts only if it can start by 13:00 UTC on 2026-12-07, and is
#             stopped, unread, if it has not finished by 13:45 UTC.
#   analysis  1. ripplekv table over the folder (100,000 resamples, as confirm_run.sh makes it).
#             2. ruler4k_pooled464748: `ripplekv table --pool` (100,000 resamples) over seeds 46,
#                47 and 48, 550 prompts, every method at 128 to 1024, into
#                ruler4k_pooled464748/tables (and plots/): each RippleKV setting minus the best
#                baseline and minus SnapKV at each budget; a tie where the 95% interval holds 0.
#   reading   fixed now, reported in the README whatever it shows: the 550-prompt pool is the
#             answer of the three CPU sets on RULER 4k; the 440-prompt pool of ruler4k_every47
#             is reported too, as planned. The headline is not changed by it (seed 48 gets no row
#             of its own; the two rows above hold seeds 46 and 47). No default changes.
#
# Added after every record above was read, before any record of its own (2026-12-07, the same
# session as ruler4k_every47): r=8 min-max, the strongest SmolLM2 setting found, on the seed-47
# prompts.
#   why       r=8 min-max (SnapKV's selector) beat the best baseline at all four budgets on the
#             H200's 319 prompts and the 8k pool, and is named the strongest setting found; it has
#             not run on any set planned in advance, and on these prompts r=4 beat every baseline
#             at all four budgets (ruler4k_every47).
#   run       ruler4k_r8mm47: full and RippleKV with PLF at r=8 min-max, budgets 128, 256, 512 and
#             1024, on ruler4k_every47's prompts (seed 47, 20 per task, 220), two 1-thread shards
#             side by side (confirm_run.sh) into ruler4k_seed47_r8mm/. It starts only if it can
#             start by 13:45 UTC on 2026-12-07, and is stopped, unread, if it has not finished by
#             14:15 UTC.
#   analysis  1. ruler4k_r8mm47_check: decode_agreement.py of its full run against
#                ruler4k_seed47/'s; 2 is exact only if all 220 predictions agree, else reported
#                as not exact.
#             2. ruler4k_r8mm47_tables: one table (100,000 resamples) over ruler4k_seed47/runs and
#                this folder's r=8 min-max runs, into ruler4k_seed47_r8mm/joint/tables: r=8 min-max
#                minus the best baseline and minus SnapKV at each budget; and run_pair.py, r=8
#                min-max minus r=4 min-max at each budget. A tie where the 95% interval holds 0.
#   reading   fixed now, reported in the README whatever it shows: r=8 min-max's strength
#             replicates on these prompts if it beats the best baseline at all four budgets, fails
#             if it beats it at none, else partly. Not in the headline (whose columns are r=2 and
#             r=8 rank); no default changes.
#
# Added after every record above was read, before any record of its own (2026-12-07, the session
# after ruler4k_r8mm47's, once smollm2_confirm8k.sh had ended and been read): r=8 min-max on the
# seed-48 prompts.
#   why       ruler4k_r8mm47 found r=8 min-max beating every baseline at all four budgets on the
#             seed-47 prompts; seed 48's 110 prompts (ruler4k_every48) ran every other method but
#             not it. A second set, not a reading of the same one; small (about 15 minutes), so it
#             ends within this session.
#   run       ruler4k_r8mm48: full and RippleKV with PLF at r=8 min-max, budgets 128, 256, 512 and
#             1024, on ruler4k_every48's prompts (seed 48, 10 per task, 110), two 1-thread shards
#             side by side (confirm_run.sh) into ruler4k_seed48_r8mm/. It starts only if it can
#             start by 16:15 UTC on 2026-12-07, and is stopped, unread, if it has not finished by
#             16:40 UTC.
#   analysis  as ruler4k_r8mm47's, against ruler4k_seed48/: 1. ruler4k_r8mm48_check, its full run
#             against ruler4k_seed48/'s (2 is exact only if all 110 predictions agree); 2.
#             ruler4k_r8mm48_tables, one table (100,000 resamples) over ruler4k_seed48/runs and this
#             folder's r=8 min-max runs into ruler4k_seed48_r8mm/joint/tables (r=8 min-max minus the
#             best baseline and minus SnapKV at each budget), and run_pair.py, r=8 min-max minus r=4
#             min-max. A tie where the 95% interval holds 0. No pool with seed 47 (its r=8 min-max
#             records were read before this plan).
#   reading   fixed now, reported in the README whatever it shows: r=8 min-max's strength
#             replicates on these prompts if it beats the best baseline at all four budgets, fails if
#             it beats it at none, else partly; 110 prompts give less power than seed 47's 220, so a
#             tie is weak evidence. Not in the headline; no default changes.
#
# Added after every record above was read, before any record of its own (2026-12-07, the session
# after ruler4k_r8mm48's): StreamingLLM's selector with RippleKV's budgets at RULER 8k, and r=8
# min-max on the seed-46 prompts.
#   why       issue 14 asks for ripple's allocation with the other selectors on RULER at 4k and 8k;
#             `streamingllm:ripple` ran on RULER 4k only (seeds 46 and 47: r=8 rank and r=4 beat
#             uniform StreamingLLM at 512 and 1024 on both, by +2.16 to +8.08; at 128 every setting
#             tied it, at 256 each won). Seed 49's 132 8k prompts ran every method and RippleKV with
#             SnapKV's selector (smollm2_confirm8k.sh), uniform StreamingLLM among them, but no
#             `streamingllm:ripple`. And r=8 min-max, the strongest SmolLM2 setting, ran on seeds 47
#             and 48 of the three 4k sets fixed in advance, not on seed 46.
#   run       1. ruler8k_stream49: full and streamingllm:ripple with PLF at r=2, r=4 (min-max) and
#                r=8 rank, budgets 128, 256, 512 and 1024, on smollm2_confirm8k.sh's prompts (8k,
#                seed 49, 12 per task, 132), two 1-thread shards side by side (confirm_run.sh) into
#                ruler8k_seed49_streaming/. About 70 minutes (the prefill, some 55 s a prompt on
#                one thread, dominates). It starts only if it can start by 17:25 UTC on 2026-12-07,
#                and is stopped, unread, if it has not finished by 18:45 UTC (then resumed in a
#                later session, and read only when complete).
#             2. ruler4k_r8mm46: full and RippleKV with PLF at r=8 min-max, budgets 128, 256, 512
#                and 1024, on ruler4k_all's and ruler4k_low's prompts (seed 46, 20 per task, 220),
#                two 1-thread shards side by side into ruler4k_seed46_r8mm/ (about 30 minutes). It
#                starts only once 1 has ended and if it can start by 18:30 UTC on 2026-12-07; it is
#                stopped, unread, if it has not finished by 19:05 UTC (then resumed later).
#   analysis  1. ruler8k_stream49_check: decode_agreement.py of its full run against
#                ruler8k_seed49/'s; 2 is exact only if all 132 predictions agree, else reported
#                as not exact.
#             2. ruler8k_stream49_tables: one table (100,000 resamples) over ruler8k_seed49/runs
#                and this folder's 12 streamingllm:ripple runs, into
#                ruler8k_seed49_streaming/joint/tables: each setting minus uniform StreamingLLM
#                (its twin) and minus the best baseline at each budget; and run_pair.py, each
#                setting's StreamingLLM selection minus its SnapKV selection at each budget
#                (joint/selector_pairs.md).
#             3. ruler4k_r8mm46_check and ruler4k_r8mm46_tables, as ruler4k_r8mm47's: its full run
#                against ruler4k_seed46/'s (220 predictions); one table (100,000 resamples) over
#                ruler4k_seed46/runs, ruler4k_seed46_low/'s variants and this folder's r=8 min-max
#                runs into ruler4k_seed46_r8mm/joint/tables (r=8 min-max minus the best baseline and
#                minus SnapKV at each budget), and run_pair.py, r=8 min-max minus r=4 min-max.
#             A tie where the 95% interval holds 0 (one starting or ending at exactly 0 too).
#   reading   fixed now, reported in the README whatever it shows. 1: as ruler4k's, measured budgets
#             improve StreamingLLM's selection on 8k retrieval for a setting that beats uniform
#             StreamingLLM at both 512 and 1024, not for one that ties or loses at both, else mixed;
#             128 and 256 are reported beside it; 132 prompts give less power than 4k's 220, so a
#             tie is weak evidence. 2: r=8 min-max's strength replicates on the seed-46 prompts if
#             it beats the best baseline at all four budgets, fails if at none, else partly. Neither
#             enters the headline (SnapKV's selector; columns r=2 and r=8 rank); no pool with seeds
#             47 and 48 for r=8 min-max (read before this plan); no default changes.
#
# Added after every record above was read, before any record of its own (2026-12-07, a later
# session): StreamingLLM's selector with RippleKV's budgets on a second 8k set.
#   why       on seed 49's 132 8k prompts every streamingllm:ripple setting beat uniform
#             StreamingLLM at 512 and tied it at 1024 (mixed), with little power at 1024. Seed 50's
#             132 prompts (smollm2_confirm8k.sh seed50) ran every method, uniform StreamingLLM
#             among them, but no streamingllm:ripple. Power at seed 49's gaps (samples_needed.py
#             --per-task, each setting against uniform StreamingLLM, normal approximation): at 12
#             per task r=2 0.36 and 0.29 at 512 and 1024, r=4 0.42 and 0.11, r=8 rank 0.74 and
#             0.14; the two sets pooled (24 per task) 0.62 and 0.52, 0.70 and 0.18, 0.96 and 0.23.
#   run       ruler8k_stream50: as ruler8k_stream49 on smollm2_confirm8k.sh seed50's prompts (8k,
#             seed 50, 12 per task, 132), two 1-thread shards side by side, into
#             ruler8k_seed50_streaming/. Seed 49's took 3,157 s. It starts only if it can start by
#             22:20 UTC on 2026-12-07, and is stopped, unread, if it has not finished by 23:25 UTC
#             (then resumed in a later session, and read only when complete). No early stop, no
#             extension.
#   analysis  1. ruler8k_stream50_check and ruler8k_stream50_tables, as seed 49's: its full run
#                against ruler8k_seed50/'s (the joint table is exact only if all 132 predictions
#                agree, else reported as not exact); one table (100,000 resamples) over
#                ruler8k_seed50/runs and this folder's 12 streamingllm:ripple runs into
#                ruler8k_seed50_streaming/joint/tables (each setting minus uniform StreamingLLM and
#                minus the best baseline at each budget) and joint/selector_pairs.md.
#             2. ruler8k_stream_pooled4950: ripplekv table --pool --resamples 100000 over both
#                sets' every-method runs and both streaming folders' streamingllm:ripple runs (264
#                prompts) into ruler8k_streaming_pooled4950/tables; the same pairs.
#             A tie where the 95% interval holds 0 (one starting or ending at exactly 0 too).
#   reading   fixed now, reported in the README whatever it shows. 1: seed 49's reading on seed
#             50 alone (a setting that beats uniform StreamingLLM at both 512 and 1024 improves its
#             selection, one that ties or loses at both does not, else mixed); seed 49's 512 win
#             replicates for a setting that wins at 512 here. 2: the pool (README only, since seed
#             49's run was read when it was planned) is the 8k answer at 24 per task, read the same
#             way. Neither enters the headline (SnapKV's selector); no default changes.
#
#   scripts/results/smollm2_streaming.sh [fidelity] [fidelity_tables] [fidelity_check] [ruler4k]
#       [ruler4k_status] [ruler4k_all] [ruler4k_all_status] [ruler4k_all_check] [ruler4k_all_pairs]
#       [ruler4k_low] [ruler4k_low_status] [ruler4k_low_check] [ruler4k_seed46_tables] [ruler4k47]
#       [ruler4k47_status] [ruler4k_stream_low] [ruler4k_stream_low_status] [ruler4k_stream_low_check]
#       [ruler4k_stream_low_pairs] [ruler4k_every47] [ruler4k_every47_status]
#       [ruler4k_every47_check] [ruler4k_every47_pairs] [ruler4k_pooled4647] [ruler4k_every48]
#       [ruler4k_every48_status] [ruler4k_pooled464748] [ruler4k_r8mm47] [ruler4k_r8mm47_status]
#       [ruler4k_r8mm47_check] [ruler4k_r8mm47_tables] [ruler4k_r8mm48] [ruler4k_r8mm48_status]
#       [ruler4k_r8mm48_check] [ruler4k_r8mm48_tables] [ruler8k_stream49] [ruler8k_stream49_status]
#       [ruler8k_stream49_check] [ruler8k_stream49_tables] [ruler4k_r8mm46] [ruler4k_r8mm46_status]
#       [ruler4k_r8mm46_check] [ruler4k_r8mm46_tables] [ruler8k_stream50] [ruler8k_stream50_status]
#       [ruler8k_stream50_check] [ruler8k_stream50_tables] [ruler8k_stream_pooled4950]
#       (default: fidelity, fidelity_tables, fidelity_check, ruler4k; rerun to resume)
# Environment: THREADS (fidelity's threads, default all cores), BIN (default build/ripplekv).
# fidelity's wall time goes to the model's wall_times.txt, each RULER shard's to the RULER
# folder's (confirm_run.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
source scripts/results/step.sh  # step NAME DONE_FILE COMMAND...
S=results/smollm2-135m-instruct
PLF=$S/profiles/layer_mean_eps0.1_seed0_texts0-7_f32.json
GRID=streamingllm
for r in ratio=2 ratio=4 ratio=8,normalize=rank; do GRID+=",streamingllm:ripple@profile=$PLF,$r"; done
FID=$S/fidelity32_streaming
BASELINES=snapkv,pyramidkv,streamingllm,h2o,cake,squeeze
RP=ripple@profile=${PLF//\//_}  # the folder-name prefix of RippleKV's runs with PLF
RIPPLE="ripple@profile=$PLF,ratio=2,ripple@profile=$PLF,ratio=4,ripple@profile=$PLF,ratio=8,normalize=rank"
threads=()
if [ -n "${THREADS:-}" ]; then threads=(--threads "$THREADS"); fi
model() { scripts/get_model.sh smollm2-135m-instruct | tail -1; }
selector_pairs() {  # STREAM_RUNS SNAPKV_RUNS OUT BUDGET...: StreamingLLM's selection minus SnapKV's, same budgets
  local stream=$1 snap=$2 out=$3 b r pairs=()  # UNIFORM: uniform StreamingLLM's runs (default STREAM_RUNS)
  shift 3
  for b in "$@"; do
    pairs+=("${UNIFORM:-$stream}/streamingllm_b$b" "$snap/snapkv_b$b")
    for r in ratio=2 ratio=4 ratio=8_normalize=rank; do
      pairs+=("$stream/streamingllm+${RP}_${r}_b$b" "$snap/${RP}_${r}_b$b")
    done
  done
  .venv/bin/python scripts/results/run_pair.py "${pairs[@]}" | tee "$out"
}
# variants SET: the variant folders of $S/SET/runs, one per line, but the full run of a set whose
# prompts another set's full run covers (the full cache depends on neither the budgets nor the
# selector): ruler4k_seed46_low's (ruler4k_seed46 holds it) and the 8k streaming sets' (their
# every-method set holds it)
variants() {
  local d skip_full=
  case $1 in ruler4k_seed46_low|ruler8k_seed*_streaming) skip_full=1 ;; esac
  for d in "$S/$1"/runs/*/; do
    if [ -f "$d/config.json" ] && { [ -z "$skip_full" ] || [ "$(basename "$d")" != full ]; }; then
      echo "${d%/}"
    fi
  done
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(fidelity fidelity_tables fidelity_check ruler4k); fi
for target in "${targets[@]}"; do
  case $target in
    fidelity)
      OUT=$S step "fidelity 32 texts, StreamingLLM selector with RippleKV budgets" "$FID/fidelity.csv" \
        "$BIN" fidelity --model "$(model)" --dtype bfloat16 "${threads[@]}" \
        --texts ../shared/data/longbench/raw/multi_news.jsonl --skip-texts 16 --max-texts 32 \
        --prompt-tokens 1536 --continuation 64 --budgets 64,128,256,512,1024 --methods "$GRID" --out "$FID" ;;
    fidelity_tables)
      if [ -f "$FID/fidelity.csv" ]; then "$BIN" table --runs "$FID" --out "$FID/tables"; fi ;;
    fidelity_check)  # analysis 2 (fidelity32_h2o_pairs.py reads fidelity_texts.csv where variants/ is absent)
      if [ -f "$FID/fidelity.csv" ]; then
        .venv/bin/python scripts/results/fidelity32_h2o_pairs.py --selector streamingllm \
          --run fidelity32_streaming "$S" > "$FID/pairs.md" || rc=$?
        cat "$FID/pairs.md"
        if [ "${rc:-0}" -ne 0 ]; then echo "smollm2_streaming.sh: fidelity32_h2o_pairs.py exited $rc (see $FID/pairs.md)" >&2; fi
      fi ;;
    ruler4k|ruler4k_status|ruler4k_all|ruler4k_all_status|ruler4k_low|ruler4k_low_status|ruler4k47|ruler4k47_status|ruler4k_stream_low|ruler4k_stream_low_status|ruler4k_every47|ruler4k_every47_status|ruler4k_every48|ruler4k_every48_status|ruler4k_r8mm47|ruler4k_r8mm47_status|ruler4k_r8mm48|ruler4k_r8mm48_status|ruler8k_stream49|ruler8k_stream49_status|ruler4k_r8mm46|ruler4k_r8mm46_status|ruler8k_stream50|ruler8k_stream50_status)
      (
        NAME=smollm2_streaming.sh DIR=$S/ruler4k_streaming
        LENGTH=4096 SAMPLES=20 SEED=46 TASKS=11 BUDGETS=512,1024
        METHODS="full,$GRID" MODEL=$(model)
        if [[ $target == ruler4k_all* ]]; then
          DIR=$S/ruler4k_seed46 METHODS="full,$BASELINES,$RIPPLE" LOGS=${LOGS:-/tmp/ripplekv_smollm2_streaming_all}
        elif [[ $target == ruler4k_low* ]]; then
          DIR=$S/ruler4k_seed46_low BUDGETS=128,256 METHODS="full,$BASELINES,$RIPPLE"
          LOGS=${LOGS:-/tmp/ripplekv_smollm2_streaming_low}
        elif [[ $target == ruler4k47* ]]; then
          DIR=$S/ruler4k_streaming_seed47 SEED=47 LOGS=${LOGS:-/tmp/ripplekv_smollm2_streaming_seed47}
        elif [[ $target == ruler4k_stream_low* ]]; then
          DIR=$S/ruler4k_streaming_low BUDGETS=128,256 LOGS=${LOGS:-/tmp/ripplekv_smollm2_streaming_stream_low}
        elif [[ $target == ruler4k_every47* ]]; then
          DIR=$S/ruler4k_seed47 SEED=47 BUDGETS=128,256,512,1024 METHODS="full,$BASELINES,$RIPPLE"
          LOGS=${LOGS:-/tmp/ripplekv_smollm2_streaming_every47}
        elif [[ $target == ruler4k_every48* ]]; then
          DIR=$S/ruler4k_seed48 SEED=48 SAMPLES=10 BUDGETS=128,256,512,1024 METHODS="full,$BASELINES,$RIPPLE"
          LOGS=${LOGS:-/tmp/ripplekv_smollm2_streaming_every48}
        elif [[ $target == ruler8k_stream49* || $target == ruler8k_stream50* ]]; then
          seed=${target#ruler8k_stream} seed=${seed%_status}
          DIR=$S/ruler8k_seed${seed}_streaming LENGTH=8192 SEED=$seed SAMPLES=12 BUDGETS=128,256,512,1024
          METHODS="full,${GRID#streamingllm,}" LOGS=${LOGS:-/tmp/ripplekv_smollm2_streaming_8k$seed}
        elif [[ $target == ruler4k_r8mm4[678]* ]]; then
          seed=${target#ruler4k_r8mm} seed=${seed%_status}
          DIR=$S/ruler4k_seed${seed}_r8mm SEED=$seed BUDGETS=128,256,512,1024 METHODS="full,ripple@profile=$PLF,ratio=8"
          if [ "$seed" = 48 ]; then SAMPLES=10; fi
          LOGS=${LOGS:-/tmp/ripplekv_smollm2_streaming_r8mm$seed}
        fi
        source scripts/results/confirm_run.sh
        if [[ $target == *_status ]]; then confirm_main status; else confirm_main; fi
      ) ;;
    ruler4k_all_check|ruler4k_all_pairs)
      if [ ! -d "$S/ruler4k_seed46/runs" ]; then
        echo "smollm2_streaming.sh: $target needs $S/ruler4k_seed46/runs: run the target ruler4k_all first" >&2; exit 2
      fi
      if [ "$target" = ruler4k_all_check ]; then  # analysis 1: the full and StreamingLLM runs in both folders
        .venv/bin/python scripts/results/decode_agreement.py --labels ruler4k_streaming ruler4k_seed46 \
          "$S/ruler4k_streaming/runs" "$S/ruler4k_seed46/runs" | tee "$S/ruler4k_seed46/agreement_streaming.md"
      else  # analysis 3: StreamingLLM's selector minus SnapKV's, the same budgets, across the two folders
        selector_pairs "$S/ruler4k_streaming/runs" "$S/ruler4k_seed46/runs" "$S/ruler4k_seed46/selector_pairs.md" 512 1024
      fi ;;
    ruler4k_low_check)  # the added block's analysis 1: the full runs of both folders
      if [ ! -d "$S/ruler4k_seed46_low/runs" ]; then
        echo "smollm2_streaming.sh: $target needs $S/ruler4k_seed46_low/runs: run the target ruler4k_low first" >&2; exit 2
      fi
      .venv/bin/python scripts/results/decode_agreement.py --labels ruler4k_seed46 ruler4k_seed46_low \
        "$S/ruler4k_seed46/runs" "$S/ruler4k_seed46_low/runs" | tee "$S/ruler4k_seed46_low/agreement_full.md" ;;
    ruler4k_stream_low_check|ruler4k_stream_low_pairs|ruler4k_every47_check|ruler4k_every47_pairs)
      # ruler4k_stream_low's and ruler4k_every47's analyses 2 and 3: a StreamingLLM-selector folder
      # (T) and a SnapKV-selector folder (E) on the same prompts; A and B: the agreement's order
      if [[ $target == ruler4k_stream_low* ]]; then
        T=ruler4k_streaming_low E=ruler4k_seed46_low A=ruler4k_seed46_low B=ruler4k_streaming_low
        makers="ruler4k_stream_low and ruler4k_low" out=ruler4k_streaming_low agreement=agreement.md budgets=(128 256)
      else
        T=ruler4k_streaming_seed47 E=ruler4k_seed47 A=ruler4k_streaming_seed47 B=ruler4k_seed47
        makers="ruler4k_every47 and ruler4k47" out=ruler4k_seed47 agreement=agreement_streaming.md budgets=(512 1024)
      fi
      if [ ! -d "$S/$T/runs" ] || [ ! -d "$S/$E/runs" ]; then
        echo "smollm2_streaming.sh: $target needs $S/$T/runs and $S/$E/runs: run the targets $makers first" >&2; exit 2
      fi
      if [[ $target == *_check ]]; then
        .venv/bin/python scripts/results/decode_agreement.py --labels "$A" "$B" \
          "$S/$A/runs" "$S/$B/runs" | tee "$S/$out/$agreement"
      else
        selector_pairs "$S/$T/runs" "$S/$E/runs" "$S/$out/selector_pairs.md" "${budgets[@]}"
      fi ;;
    ruler4k_pooled4647|ruler4k_pooled464748)  # ruler4k_every47's analysis 4 and ruler4k_every48's analysis 2
      sets=(ruler4k_seed46 ruler4k_seed46_low ruler4k_seed47)
      if [ "$target" = ruler4k_pooled464748 ]; then sets+=(ruler4k_seed48); fi
      for set in "${sets[@]}"; do
        if [ ! -f "$S/$set/tables/summary.json" ]; then
          echo "smollm2_streaming.sh: $target needs $S/$set scored ($S/$set/tables/summary.json): run the target that makes it first (ruler4k_all, ruler4k_low, ruler4k_every47, ruler4k_every48)" >&2; exit 2
        fi
      done
      runs=()
      for set in "${sets[@]}"; do mapfile -t -O "${#runs[@]}" runs < <(variants "$set"); done
      P=$S/$target
      "$BIN" table --pool --resamples 100000 --runs "${runs[@]}" --out "$P/tables"
      .venv/bin/python scripts/plot_results.py --summary "$P/tables/summary.json" --out "$P/plots" ;;
    ruler4k_r8mm4[678]_check|ruler4k_r8mm4[678]_tables)
      # the ruler4k_r8mm46, ruler4k_r8mm47 and ruler4k_r8mm48 blocks' analyses: E, the every-method
      # set (seed 46's budgets 128 and 256 are in ruler4k_seed46_low)
      seed=${target#ruler4k_r8mm} seed=${seed%_*}
      E=ruler4k_seed$seed M=$S/ruler4k_seed${seed}_r8mm
      if [ ! -f "$M/tables/summary.json" ] || [ ! -d "$S/$E/runs" ]; then
        echo "smollm2_streaming.sh: $target needs $M scored and $S/$E/runs: run the target ruler4k_r8mm$seed and the every-method targets first (seed 46: ruler4k_all and ruler4k_low; 47 and 48: ruler4k_every47 and ruler4k_every48)" >&2; exit 2
      fi
      if [[ $target == *_check ]]; then
        .venv/bin/python scripts/results/decode_agreement.py --labels "$E" "${E}_r8mm" \
          "$S/$E/runs" "$M/runs" | tee "$M/agreement_full.md"
      else
        runs=("$S/$E/runs")
        if [ "$seed" = 46 ]; then mapfile -t -O 1 runs < <(variants ruler4k_seed46_low); fi
        for b in 128 256 512 1024; do runs+=("$M/runs/${RP}_ratio=8_b$b"); done
        "$BIN" table --resamples 100000 --runs "${runs[@]}" --out "$M/joint/tables"
        pairs=()
        for b in 128 256 512 1024; do
          r4=$S/$E/runs
          if [ "$seed" = 46 ] && [ "$b" -le 256 ]; then r4=$S/ruler4k_seed46_low/runs; fi
          pairs+=("$M/runs/${RP}_ratio=8_b$b" "$r4/${RP}_ratio=4_b$b")
        done
        .venv/bin/python scripts/results/run_pair.py "${pairs[@]}" | tee "$M/joint/r8_minus_r4.md"
      fi ;;
    ruler8k_stream49_check|ruler8k_stream49_tables|ruler8k_stream50_check|ruler8k_stream50_tables)
      # the ruler8k_stream49 block's analyses 1 and 2, and the ruler8k_stream50 block's analysis 1
      seed=${target#ruler8k_stream} seed=${seed%_*}
      E=$S/ruler8k_seed$seed M=$S/ruler8k_seed${seed}_streaming
      if [ ! -f "$M/tables/summary.json" ] || [ ! -d "$E/runs" ]; then
        echo "smollm2_streaming.sh: $target needs $M scored and $E/runs: run ruler8k_stream$seed and scripts/results/smollm2_confirm8k.sh$([ "$seed" = 50 ] && echo ' seed50') first" >&2; exit 2
      fi
      if [[ $target == *_check ]]; then
        .venv/bin/python scripts/results/decode_agreement.py --labels ruler8k_seed$seed ruler8k_seed${seed}_streaming \
          "$E/runs" "$M/runs" | tee "$M/agreement_full.md"
      else
        runs=("$E/runs")
        mapfile -t -O 1 runs < <(variants ruler8k_seed${seed}_streaming)
        "$BIN" table --resamples 100000 --runs "${runs[@]}" --out "$M/joint/tables"
        UNIFORM=$E/runs selector_pairs "$M/runs" "$E/runs" "$M/joint/selector_pairs.md" 128 256 512 1024
      fi ;;
    ruler8k_stream_pooled4950)  # the ruler8k_stream50 block's analysis 2
      runs=()
      for set in ruler8k_seed49 ruler8k_seed50 ruler8k_seed49_streaming ruler8k_seed50_streaming; do
        if [ ! -f "$S/$set/tables/summary.json" ]; then
          echo "smollm2_streaming.sh: $target needs $S/$set scored ($S/$set/tables/summary.json): run smollm2_confirm8k.sh (seed 49), smollm2_confirm8k.sh seed50, ruler8k_stream49 and ruler8k_stream50 first" >&2; exit 2
        fi
        mapfile -t -O "${#runs[@]}" runs < <(variants "$set")
      done
      "$BIN" table --pool --resamples 100000 --runs "${runs[@]}" --out "$S/ruler8k_streaming_pooled4950/tables" ;;
    ruler4k_seed46_tables)  # the added block's analysis 2: budgets 128 to 1024 in one table
      if [ ! -f "$S/ruler4k_seed46_low/tables/summary.json" ] || [ ! -f "$S/ruler4k_seed46/tables/summary.json" ]; then
        echo "smollm2_streaming.sh: $target needs both runs scored ($S/ruler4k_seed46{,_low}/tables): run the targets ruler4k_all and ruler4k_low first" >&2; exit 2
      fi
      runs=("$S/ruler4k_seed46/runs")
      mapfile -t -O 1 runs < <(variants ruler4k_seed46_low)
      "$BIN" table --resamples 100000 --runs "${runs[@]}" --out "$S/ruler4k_seed46_all/tables"
      .venv/bin/python scripts/plot_results.py --summary "$S/ruler4k_seed46_all/tables/summary.json" \
        --out "$S/ruler4k_seed46_all/plots" ;;
    *) echo "smollm2_streaming.sh: unknown target '$target' (fidelity, fidelity_tables, fidelity_check, ruler4k, ruler4k_status, ruler4k_all, ruler4k_all_status, ruler4k_all_check, ruler4k_all_pairs, ruler4k_low, ruler4k_low_status, ruler4k_low_check, ruler4k_seed46_tables, ruler4k47, ruler4k47_status, ruler4k_stream_low, ruler4k_stream_low_status, ruler4k_stream_low_check, ruler4k_stream_low_pairs, ruler4k_every47, ruler4k_every47_status, ruler4k_every47_check, ruler4k_every47_pairs, ruler4k_pooled4647, ruler4k_every48, ruler4k_every48_status, ruler4k_pooled464748, ruler4k_r8mm47, ruler4k_r8mm47_status, ruler4k_r8mm47_check, ruler4k_r8mm47_tables, ruler4k_r8mm48, ruler4k_r8mm48_status, ruler4k_r8mm48_check, ruler4k_r8mm48_tables, ruler8k_stream49, ruler8k_stream49_status, ruler8k_stream49_check, ruler8k_stream49_tables, ruler4k_r8mm46, ruler4k_r8mm46_status, ruler4k_r8mm46_check, ruler4k_r8mm46_tables, ruler8k_stream50, ruler8k_stream50_status, ruler8k_stream50_check, ruler8k_stream50_tables or ruler8k_stream_pooled4950)" >&2; exit 2 ;;
  esac
done
