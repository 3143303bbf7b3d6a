#!/usr/bin/env bash
# The README's second command (and what CI runs): install what is missing, build everything
# with the tests, run every test with ctest, then build the trace reader (what the analyzer
# uses to read files from other machines) under AddressSanitizer + UBSan and run its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bash scripts/build.sh
ctest --test-dir "${SHAKEDOWN_BUILD_DIR:-build}" --output-on-failure -j 2 "$@"

# The analyzer reads files from other machines: its reader runs under the sanitizers (the
# analyzer's parsers are fuzzed under ASan too: docs/analyzer.md).
asan=${SHAKEDOWN_ASAN_DIR:-build-asan}
if [ ! -f "$asan/build.ninja" ]; then
  cmake --preset asan -B "$asan" >/dev/null
fi
cmake --build "$asan" -j "$(nproc)" --target trace_tests
ctest --test-dir "$asan" --output-on-failure -L trace -j 2
