#!/usr/bin/env bash
# Builds shakedown for Hopper (sm_90) here and packs the driver, the analyzer, the GPU-facing
# test binaries and the GPU tuning probes (bench/gpu/*_probe.cu: shakedown_kernel_probe,
# shakedown_stencil_probe, shakedown_gemm_probe, shakedown_attention_probe; with a CUDA Kokkos also bench/gpu/kokkos_probe.cpp:
# shakedown_kokkos_probe) with their runtime into .device-rt/rt.tar.xz for the GPU host
# (../shared/device/bundle-runtime.sh does the packing; binaries land in /tmp/rt/bin there).
#
# SHAKEDOWN_KOKKOS_ROOT=PREFIX (a Kokkos + Kokkos Kernels with the CUDA backend, as
# bench/gpu/build-kokkos-cuda.sh installs into /opt/kokkos-cuda) builds against that Kokkos
# instead of Debian's Serial one, in build-kokkos-cuda unless SHAKEDOWN_BUILD_DIR says
# otherwise: one binary then runs stream, stencil3d and dgemm_fp64 with backend native and
# backend kokkos on the GPU (run-on-gpu-host.sh kokkos). Kokkos is linked statically: the
# bundle carries no Kokkos shared library.
set -euo pipefail
cd "$(dirname "$0")/../.."
kokkos=()
if [ -n "${SHAKEDOWN_KOKKOS_ROOT:-}" ]; then
  [ -f "$SHAKEDOWN_KOKKOS_ROOT/lib/cmake/Kokkos/KokkosConfig.cmake" ] ||
    { echo "SHAKEDOWN_KOKKOS_ROOT=$SHAKEDOWN_KOKKOS_ROOT has no lib/cmake/Kokkos/KokkosConfig.cmake" >&2; exit 2; }
  # A CUDA Kokkos links the CUDA driver into every test binary that uses Kokkos, and this machine
  # has none: list their tests when ctest runs them (on the GPU host), not at build time.
  kokkos=(-DKokkos_ROOT="$SHAKEDOWN_KOKKOS_ROOT" -DKokkosKernels_ROOT="$SHAKEDOWN_KOKKOS_ROOT"
    -DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST)
  build=${SHAKEDOWN_BUILD_DIR:-build-kokkos-cuda}
else
  build=${SHAKEDOWN_BUILD_DIR:-build}
fi
summary=$(cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSHAKEDOWN_WITH_CUDA=ON -DSHAKEDOWN_WITH_NCCL=ON "${kokkos[@]}")
grep -E '^--   (CUDA|KOKKOS) ' <<<"$summary" || true
probes=(shakedown_kernel_probe shakedown_stencil_probe shakedown_gemm_probe shakedown_attention_probe)
# The Kokkos probe (bench/gpu/kokkos_probe.cpp) exists only when the Kokkos found has CUDA.
if grep -Eq '^--   KOKKOS +ON .*devices: [^ ]*CUDA' <<<"$summary"; then
  probes+=(shakedown_kokkos_probe)
fi
cmake --build "$build" -j "${SHAKEDOWN_BUILD_JOBS:-$(nproc)}" --target shakedown shakedown-analyze inventory_tests telemetry_tests shakedown_fake_nvml \
  "${probes[@]}"
mkdir -p .device-rt
bash ../shared/device/bundle-runtime.sh .device-rt/rt.tar.xz "$build/src/driver/shakedown" \
  "$build/analysis/shakedown-analyze" "$build/tests/inventory/inventory_tests" \
  "$build/tests/telemetry/telemetry_tests" "$build"/tests/telemetry/libshakedown_fake_nvml.so \
  "${probes[@]/#/$build/bench/gpu/}"
ls -l .device-rt/rt.tar.xz
