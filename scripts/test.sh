#!/usr/bin/env bash
# The README's second command (and what CI runs): install what is missing, build everything
# with the tests, run every test with ctest, then a CPU-only AddressSanitizer + UBSan build of
# the trace reader, the analyzer and the driver and their tests, and a bounded fuzzing pass (below).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bash scripts/build.sh
ctest --test-dir "${SHAKEDOWN_BUILD_DIR:-build}" --output-on-failure -j 2 "$@"

# Under AddressSanitizer + UBSan, on a CPU-only build (CUDA and Kokkos off): the trace reader
# and the analyzer (loader, rules, reports), which read files from other machines (their parsers
# are fuzzed under ASan too: docs/analyzer.md), and the driver on the configs written for the GPU
# host (a config for a CUDA build must be accepted by a CPU build).
asan=${SHAKEDOWN_ASAN_DIR:-build-asan}
if [ ! -f "$asan/build.ninja" ]; then
  cmake --preset asan -B "$asan" >/dev/null
fi
cmake --build "$asan" -j "$(nproc)" --target trace_tests shakedown_analysis_tests gpu_identity_tests shakedown \
  shakedown-analyze shakedown-synthetic-run shakedown_e2e_tests
ctest --test-dir "$asan" --output-on-failure -j 2 -L "trace|analysis" -LE mpi
# Open MPI's components leak at exit and are unloaded by then, so LeakSanitizer cannot name them
# for a suppression: under mpirun only memory errors are checked, leaks in the tests above.
ASAN_OPTIONS=detect_leaks=0 ctest --test-dir "$asan" --output-on-failure -j 2 -R "analysis_gpu_identity|BuildIndependence"

# A bounded, seeded libFuzzer pass over the parsers of files that come from other machines or
# operators (trace reader, run.json, config, thresholds/topology): scripts/fuzz.sh.
bash scripts/fuzz.sh
