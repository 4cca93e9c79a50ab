#!/usr/bin/env bash
# How a profile's KL scales with eps: a small perturbation's KL grows as eps^2, so the mean KL
# at eps 0.05 and 0.2 should be 1/4 and 4 times eps 0.1's. A ratio far from that means part of
# each KL does not come from the perturbation (e.g. rounding in a low-precision forward pass).
#
#   scripts/results/eps_scaling.sh MODEL_NAME DTYPE OUT_DIR [TEXTS]     (TEXTS default 2)
#
# Profiles the first TEXTS multi_news texts (512 tokens, layer_mean noise, seed 0) at eps 0.05,
# 0.1 and 0.2 in DTYPE, then prints each eps's mean KL over layers relative to eps 0.1's and the
# Spearman correlation of the layer rankings. Resumable: a finished profile is kept.
# Env: THREADS (default 0 = all cores), BIN (default build/ripplekv).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 3 ] || { echo "usage: $0 MODEL_NAME DTYPE OUT_DIR [TEXTS]" >&2; exit 2; }
NAME=$1 DTYPE=$2 OUT=$3 TEXTS=${4:-2}
BIN=${BIN:-$ROOT/build/ripplekv}
CAL=$ROOT/../shared/data/longbench/raw/multi_news.jsonl
[ -x "$BIN" ] || { echo "error: $BIN is missing; build first (scripts/test.sh builds it)" >&2; exit 1; }
MODEL=$("$ROOT/scripts/get_model.sh" "$NAME" | tail -1)
mkdir -p "$OUT"
for eps in 0.1 0.05 0.2; do
  f=$OUT/${DTYPE}_eps${eps}_texts${TEXTS}.json
  [ -s "$f" ] && continue
  "$BIN" profile --model "$MODEL" --dtype "$DTYPE" --threads "${THREADS:-0}" --calibration "$CAL" --samples "$TEXTS" \
    --max-tokens 512 --noise layer_mean --eps "$eps" --out "$f.tmp.json" > /dev/null
  mv "$f.tmp.csv" "${f%.json}.csv"
  mv "$f.tmp.json" "$f"
done
"$ROOT/.venv/bin/python" - "$OUT" "$DTYPE" "$TEXTS" <<'PY'
import json, sys
import numpy as np
from scipy.stats import spearmanr
out, dtype, texts = sys.argv[1:]
mean = {e: np.array([l["mean"] for l in json.load(open(f"{out}/{dtype}_eps{e}_texts{texts}.json"))["layers"]])
        for e in ("0.05", "0.1", "0.2")}
lines = [f"{dtype}, {texts} texts: mean KL relative to eps 0.1 (eps^2 scaling: 0.25 and 4)"]
for e in ("0.05", "0.2"):
    lines.append(f"  eps {e}: {mean[e].mean() / mean['0.1'].mean():.2f}, Spearman with eps 0.1 {spearmanr(mean[e], mean['0.1'])[0]:.3f}")
print("\n".join(lines))
open(f"{out}/{dtype}_texts{texts}.txt", "w").write("\n".join(lines) + "\n")
PY
