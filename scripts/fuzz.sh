#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, AddressSanitizer + UndefinedBehaviorSanitizer,
# torch-free parsers only) in build-fuzz/ and runs each for SECONDS (default 60) from the
# committed seeds in tests/fuzz/corpus/<target>/, growing a working corpus in
# build-fuzz/corpus/<target>/. Prints the executions per target; a crash, sanitizer report,
# leak or timeout leaves its input in build-fuzz/findings/<target>/ and makes the script fail.
#
#   scripts/fuzz.sh            # every target, 60 s each
#   scripts/fuzz.sh 600        # 10 minutes each
#   scripts/fuzz.sh 30 ini jsonl
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(safetensors_header config_json generation_config tokenizer_json jsonl profile_json ini llama2c_header)
BUILD=${RIPPLEKV_FUZZ_BUILD_DIR:-build-fuzz}

# clang with its libFuzzer runtime, and the Debian packages the parsers use (no LibTorch here).
PACKAGES=(clang libclang-rt-14-dev cmake pkg-config libsentencepiece-dev libfmt-dev nlohmann-json3-dev libpcre2-dev
          libutf8proc-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
    -DRIPPLEKV_WITH_TORCH=OFF -DRIPPLEKV_BUILD_TESTS=OFF -DRIPPLEKV_FUZZ=ON >/dev/null
fi
cmake --build "$BUILD" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${TARGETS[@]}") >/dev/null

status=0
printf '%-20s %12s %10s %8s  %s\n' target executions exec/s corpus result
for t in "${TARGETS[@]}"; do
  corpus=$BUILD/corpus/$t findings=$BUILD/findings/$t
  mkdir -p "$corpus" "$findings" "$BUILD/tmp-$t"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  log=$BUILD/findings/$t.log
  if TMPDIR=$BUILD/tmp-$t "$BUILD/fuzz/fuzz_$t" "$corpus" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
       -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/" >"$log" 2>&1; then
    result=ok
  else
    result="FINDING (see $log and $findings/)"
    status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  printf '%-20s %12s %10s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$(ls "$corpus" | wc -l)" "$result"
done
exit $status
