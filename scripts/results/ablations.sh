#!/usr/bin/env bash
# The SmolLM2 profiler ablations of issue 14: runs each sweep in configs/sweeps/ablations/
# (ratio, statistic, normalisation, perturbed positions, KL direction, noise mode, eps) and
# tables it. RippleKV's on-the-fly profiles are shared between the sweeps (one folder), so
# each distinct profiling setting is measured once. Resumable: rerun to finish a killed run.
#
#   scripts/results/ablations.sh                 # every ablation
#   scripts/results/ablations.sh ratio score     # some of them
# Environment: THREADS (LibTorch threads, default all cores), OUT (default
# results/smollm2-135m-instruct/ablations), BIN (default build/ripplekv), MODEL (default: the
# checkpoint scripts/get_model.sh fetches), NOISE and PROFILE_DTYPE (default: the sweep files',
# relative noise and a profile in the run's dtype, bfloat16, which results/.../ablations was
# measured with). Today's profiling defaults instead, layer_mean noise and a float32 profile
# (the noise sweep keeps its three modes and takes only the dtype):
#   NOISE=layer_mean PROFILE_DTYPE=float32 \
#     OUT=results/smollm2-135m-instruct/ablations_layer_mean_f32 scripts/results/ablations.sh
# and the ratio sweep with the old relative noise but a float32 profile (the noise sweep of
# ablations_layer_mean_f32 made that profile; PROFILE_CACHE, default OUT/profiles, reuses it):
#   NOISE=relative PROFILE_DTYPE=float32 OUT=results/smollm2-135m-instruct/ablations_relative_f32 \
#     PROFILE_CACHE=results/smollm2-135m-instruct/ablations_layer_mean_f32/profiles \
#     scripts/results/ablations.sh ratio
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/ripplekv}
OUT=${OUT:-results/smollm2-135m-instruct/ablations}
MODEL=${MODEL:-$(scripts/get_model.sh smollm2-135m-instruct | tail -1)}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then names=(ratio score normalize positions direction noise eps); fi
for n in "${names[@]}"; do
  file=configs/sweeps/ablations/smollm2_$n.ini
  if [ ! -f "$file" ]; then
    echo "ablations.sh: no sweep file $file (names: ratio score normalize positions direction noise eps)" >&2
    exit 2
  fi
  overrides=()
  if [ -n "${NOISE:-}" ] && [ "$n" != noise ]; then overrides+=(--set method.ripple.noise="$NOISE"); fi
  if [ -n "${PROFILE_DTYPE:-}" ]; then overrides+=(--set method.ripple.profile_dtype="$PROFILE_DTYPE"); fi
  start=$(date +%s)
  "$BIN" sweep --config "$file" --set model="$MODEL" ${THREADS:+--set threads=$THREADS} "${overrides[@]}" \
    --set method.ripple.profile_cache="${PROFILE_CACHE:-$OUT/profiles}" --out "$OUT/$n"
  echo "ablations.sh: $n took $(( $(date +%s) - start )) s" | tee -a "$OUT/wall_times.txt"
  "$BIN" table --runs "$OUT/$n" --out "$OUT/$n/tables"
done
