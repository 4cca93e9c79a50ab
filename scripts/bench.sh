#!/usr/bin/env bash
# Model benchmark: ripplekv vs HF transformers (same torch, same threads, same machine), one
# process per (implementation, dtype) so peak memory is per configuration. Prints a table with
# prefill tokens/s, decode ms/token, peak RSS and the ratios, plus prefill GFLOP/s against the
# measured matmul peak.
#
#   scripts/bench.sh                       # lengths 512,2048,8192; float32 and bfloat16
#   LENGTHS=512,2048 DTYPES=float32 scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
LENGTHS=${LENGTHS:-512,2048,8192}
DTYPES=${DTYPES:-float32,bfloat16}
THREADS=${THREADS:-$(nproc)}
DEVICE=${DEVICE:-cpu}
LAYERS=${LAYERS:-22}   # 22 = TinyLlama-1.1B
PY=${PY:-.venv/bin/python}
BENCH=${BENCH:-build/ripplekv_bench}
# Same environment for both sides: glibc keeps freed memory instead of returning it (fresh
# pages are slow on this VM), and the OpenBLAS overrides set on this machine are dropped.
run() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736 "$@"; }
out=$(mktemp)
for d in ${DTYPES//,/ }; do
  run "$BENCH" --lengths "$LENGTHS" --dtypes "$d" --threads "$THREADS" --device "$DEVICE" --layers "$LAYERS" | tee -a "$out"
  run "$PY" scripts/bench/bench_hf.py --lengths "$LENGTHS" --dtypes "$d" --threads "$THREADS" --device "$DEVICE" --layers "$LAYERS" | tee -a "$out"
done
"$PY" - "$out" <<'PYEOF'
import sys
rows = {}
for line in open(sys.argv[1]):
    if not line.startswith("RESULT") or "tokens=" not in line:
        if line.startswith("RESULT impl=ripplekv") and "matmul_peak" in line:
            kv = dict(x.split("=") for x in line.split()[1:])
            rows[("peak", kv["dtype"])] = kv["matmul_peak_gflops"]
        continue
    kv = dict(x.split("=") for x in line.split()[1:])
    rows[(kv["impl"], kv["dtype"], int(kv["tokens"]))] = kv
print("\n| dtype | tokens | prefill tok/s ripplekv | HF | ratio | prefill GFLOP/s (% of matmul peak) | decode ms/tok ripplekv | HF | speed-up | peak RSS MiB ripplekv / HF |")
print("|---|---|---|---|---|---|---|---|---|---|")
for key in sorted(k for k in rows if k[0] == "ripplekv"):
    _, d, t = key
    r, h = rows[key], rows.get(("hf", d, t))
    if not h:
        continue
    pr = float(r["prefill_tok_s"]) / float(h["prefill_tok_s"])
    dr = float(h["decode_ms"]) / float(r["decode_ms"])
    print(f"| {d} | {t} | {r['prefill_tok_s']} | {h['prefill_tok_s']} | {pr:.2f}x | {r['prefill_gflops']} ({r['pct_of_peak']}% of {rows.get(('peak', d), '?')}) "
          f"| {r['decode_ms']} | {h['decode_ms']} | {dr:.2f}x | {r['peak_rss_mib']} / {h['peak_rss_mib']} |")
PYEOF
rm -f "$out"
