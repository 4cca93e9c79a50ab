#!/usr/bin/env bash
# Set up (idempotent), build, and run the test suite. Long tests (ctest label `long`) are left
# out; run them with `ctest --test-dir build -L long`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir "${RIPPLEKV_BUILD_DIR:-build}" -LE '^long$' --output-on-failure -j "$(nproc)" "$@"
