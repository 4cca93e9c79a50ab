#!/usr/bin/env bash
# RULER tables of SmolLM2 pooled over both sample sets (seed 42 and seed 43: 110 samples per
# length), for the methods run on both: `ripplekv table --pool` over the seed-42 and seed-43
# run folders, leaving out the seed-42-only variants (the `merged` profile, r = 1.5, the
# h2o/streamingllm selectors with ripple budgets), whose rows could not be paired with the
# pooled ones. Budget 64 is on seed 42 only, for every method.
#   scripts/results/ruler_pooled.sh [4k|8k ...]      (default: both)
# Environment: BIN (default build/ripplekv).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
R=results/smollm2-135m-instruct
lengths=("$@")
[ ${#lengths[@]} -eq 0 ] && lengths=(4k 8k)
for length in "${lengths[@]}"; do
  case $length in
    4k) seed42=$R/ruler/runs; seed43=$R/ruler4k_seed43/runs ;;
    8k) seed42=$R/ruler8k/runs; seed43=$R/ruler8k_seed43/runs ;;
    *) echo "ruler_pooled.sh: unknown length $length (4k or 8k)" >&2; exit 2 ;;
  esac
  runs=()
  for dir in "$seed42"/* "$seed43"/*; do
    name=$(basename "$dir")
    case $name in
      full | snapkv_b* | pyramidkv_b* | streamingllm_b* | h2o_b* | cake_b* | squeeze_b*) runs+=("$dir") ;;
      ripple@profile=*layer_mean_eps0.1_seed0_texts0-7.json_ratio=2_b* | \
        ripple@profile=*layer_mean_eps0.1_seed0_texts0-7.json_ratio=4_b*) runs+=("$dir") ;;
    esac
  done
  "$BIN" table --pool --runs "${runs[@]}" --out "$R/ruler${length}_pooled/tables"
  .venv/bin/python scripts/plot_results.py --summary "$R/ruler${length}_pooled/tables/summary.json" \
    --out "$R/ruler${length}_pooled/plots"
done
