#!/usr/bin/env bash
# Set up (idempotent), build, fetch SmolLM2-135M-Instruct (its parity tests are in the default
# run), and run the test suite. Long tests (ctest label `long`, e.g. Qwen2.5-Coder-1.5B parity,
# which needs `scripts/get_model.sh qwen2.5-coder-1.5b-instruct` first) are left out; run them
# with `ctest --test-dir build -L long`.
#
#   scripts/test.sh [CTEST ARGS...]              # the default run (also .ci/run)
#   scripts/test.sh --sanitize [CTEST ARGS...]   # the same tests built with ASan + UBSan in
#                                                # build-sanitize/ (a second full build, ~3x slower)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
  shift
  export RIPPLEKV_BUILD_DIR=${RIPPLEKV_BUILD_DIR:-$PWD/build-sanitize}
  export RIPPLEKV_CMAKE_ARGS="-DRIPPLEKV_SANITIZE=ON ${RIPPLEKV_CMAKE_ARGS:-}"
  # detect_leaks=0: LibTorch keeps process-lifetime allocations (operator registries, thread
  # pools) that LeakSanitizer would report at every exit; they are not ripplekv's. Everything
  # else stops the test at the first report.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:check_initialization_order=1:strict_init_order=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi
scripts/setup.sh
scripts/get_model.sh smollm2-135m-instruct >/dev/null
scripts/get_ruler_data.sh >/dev/null
ctest --test-dir "${RIPPLEKV_BUILD_DIR:-build}" -LE '^long$' --output-on-failure -j "$(nproc)" "$@"
