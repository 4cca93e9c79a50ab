#!/usr/bin/env bash
# Model benchmark: ripplekv vs HF transformers (same torch, same threads, same machine, same
# environment), one process per (implementation, shape, dtype) so peak memory is per
# configuration. For each model shape (random weights) it prints:
#   - prefill tokens/s and % of the measured matrix-multiply peak (MFU on a GPU),
#   - decode ms/token and % of the memory bound (weights + KV cache read once per token at the
#     read bandwidth ripplekv_bench measures; % of HBM bandwidth on a GPU),
#   - the step time of a batch of V = 1, 4, 16, 25 variant rows (the engine's batched decode),
#   - peak RSS.
#
#   scripts/bench.sh                                   # tinyllama, smollm2, qwen2.5-1.5b at 2048, 8192
#   SHAPES=smollm2 LENGTHS=2048 DTYPES=bfloat16 scripts/bench.sh
#   ROUNDS=3 SHAPES=smollm2 scripts/bench.sh           # the two sides alternate 3 times
# With ROUNDS > 1 the two programs take turns, and each figure is the best of the rounds
# (prefill tok/s, decode ms/token) or their median (the batched step and its ratio to one
# row): on a VM whose speed drifts by 2x within minutes, one run of each side after the other
# measures the drift as much as the code.
#   DEVICE=cuda scripts/bench.sh
# Needs scripts/setup.sh first (the .venv with torch and transformers, and the build) and the
# benchmark program: cmake --build build --target ripplekv_bench.
set -euo pipefail
cd "$(dirname "$0")/.."
SHAPES=${SHAPES:-tinyllama,smollm2,qwen2.5-1.5b}
LENGTHS=${LENGTHS:-2048,8192}
DTYPES=${DTYPES:-float32,bfloat16}
THREADS=${THREADS:-$(nproc)}
DEVICE=${DEVICE:-cpu}
VARIANTS=${VARIANTS:-1,4,16,25}
REPEATS=${REPEATS:-3}   # prefills timed per length, fastest reported (both sides)
ROUNDS=${ROUNDS:-1}     # alternations of the two sides
PY=${PY:-.venv/bin/python}
BENCH=${BENCH:-build/ripplekv_bench}
if [ ! -x "$BENCH" ]; then
  echo "bench.sh: $BENCH is missing: run scripts/setup.sh, then cmake --build build --target ripplekv_bench (or set BENCH=)" >&2
  exit 2
fi
if ! command -v "$PY" > /dev/null; then
  echo "bench.sh: $PY is missing: run scripts/setup.sh (it makes the .venv with torch and transformers), or set PY=" >&2
  exit 2
fi
# Same environment for both sides: glibc keeps freed memory instead of returning it (fresh
# pages are slow on this VM), and the OpenBLAS overrides set on this machine are dropped.
run() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736 "$@"; }
out=$(mktemp)
for s in ${SHAPES//,/ }; do
  for d in ${DTYPES//,/ }; do
    for _ in $(seq 1 "$ROUNDS"); do
      run "$BENCH" --shape "$s" --lengths "$LENGTHS" --dtypes "$d" --threads "$THREADS" --device "$DEVICE" \
        --variants "$VARIANTS" --prefill-repeats "$REPEATS" --budgets "" | tee -a "$out"
      run "$PY" scripts/bench/bench_hf.py --shape "$s" --lengths "$LENGTHS" --dtypes "$d" --threads "$THREADS" \
        --device "$DEVICE" --variants "$VARIANTS" --prefill-repeats "$REPEATS" | tee -a "$out"
    done
  done
done
"$PY" - "$out" "$DEVICE" <<'PYEOF'
import statistics
import sys
rows, peaks, batch = {}, {}, {}
for line in open(sys.argv[1]):
    if not line.startswith("RESULT"):
        continue
    kv = dict(x.split("=", 1) for x in line.split()[1:])
    impl, shape, dtype = kv["impl"], kv["shape"], kv["dtype"]
    if "matmul_peak_gflops" in kv:
        peaks.setdefault((shape, dtype), kv)  # the first round's probes
    elif "tokens" in kv:
        old = rows.setdefault((impl, shape, dtype, int(kv["tokens"])), kv)
        if old is not kv:  # another round: the best prefill and the best decode of the rounds
            if float(kv["prefill_tok_s"]) > float(old["prefill_tok_s"]):
                for f in ("prefill_tok_s", "pct_of_peak"):
                    if f in kv:
                        old[f] = kv[f]
            if float(kv["decode_ms"]) < float(old["decode_ms"]):
                for f in ("decode_ms", "pct_of_bound", "decode_bound_ms"):
                    if f in kv:
                        old[f] = kv[f]
            if "peak_rss_mib" in kv:
                old["peak_rss_mib"] = str(max(float(old["peak_rss_mib"]), float(kv["peak_rss_mib"])))
    elif "rows" in kv:
        batch.setdefault((impl, shape, dtype, int(kv["rows"])), []).append(kv)
# The batched step: the median of the rounds, and of their ratios to one row.
for key, runs in batch.items():
    batch[key] = dict(runs[0], step_ms=f"{statistics.median(float(r['step_ms']) for r in runs):.2f}",
                      x_one_row=f"{statistics.median(float(r['x_one_row']) for r in runs):.2f}")
gpu = sys.argv[2] != "cpu"
peak_name, bw_name = ("MFU", "% of HBM bandwidth") if gpu else ("% of matmul peak", "% of memory bound")
for (shape, dtype), p in sorted(peaks.items()):
    widened = " (of float32 products: ripplekv widens bfloat16 ones on this CPU)" if "matmul_peak_dtype" in p else ""
    print(f"\n### {shape} {dtype}: measured matmul peak {p['matmul_peak_gflops']} GFLOP/s{widened}, "
          f"read bandwidth {p['read_gbs']} GB/s, weights {p['weight_mib']} MiB")
    print(f"| tokens | prefill tok/s ripplekv | HF | ratio | {peak_name} ripplekv / HF "
          f"| decode ms/tok ripplekv | HF | speed-up | {bw_name} ripplekv / HF | peak RSS MiB ripplekv / HF |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(k for k in rows if k[:3] == ("ripplekv", shape, dtype)):
        r, h = rows[key], rows.get(("hf",) + key[1:])
        if not h:
            continue
        pr = float(r["prefill_tok_s"]) / float(h["prefill_tok_s"])
        dr = float(h["decode_ms"]) / float(r["decode_ms"])
        hf_pct = float(r["pct_of_peak"]) / pr
        hf_bound = 100 * float(r["decode_bound_ms"]) / float(h["decode_ms"])
        print(f"| {key[3]} | {r['prefill_tok_s']} | {h['prefill_tok_s']} | {pr:.2f}x | {r['pct_of_peak']}% / {hf_pct:.0f}% "
              f"| {r['decode_ms']} | {h['decode_ms']} | {dr:.2f}x | {r['pct_of_bound']}% / {hf_bound:.0f}% "
              f"| {r['peak_rss_mib']} / {h['peak_rss_mib']} |")
    vs = sorted(k[3] for k in batch if k[:3] == ("ripplekv-batch", shape, dtype))
    if vs:
        print(f"\n| V rows (batched variant decode, ~{batch[('ripplekv-batch', shape, dtype, vs[0])]['budget']} tokens each) "
              "| ripplekv step ms (x one row) | HF step ms (x one row) |")
        print("|---|---|---|")
        for v in vs:
            r, h = batch[("ripplekv-batch", shape, dtype, v)], batch.get(("hf-batch", shape, dtype, v))
            hs = f"{h['step_ms']} ({h['x_one_row']}x)" if h else "-"
            print(f"| {v} | {r['step_ms']} ({r['x_one_row']}x) | {hs} |")
PYEOF
rm -f "$out"
