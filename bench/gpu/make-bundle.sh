#!/usr/bin/env bash
# Builds shakedown for Hopper (sm_90) here and packs the driver, the analyzer, the GPU-facing
# test binaries and the GPU tuning probes (bench/gpu/*_probe.cu: shakedown_kernel_probe,
# shakedown_stencil_probe, shakedown_gemm_probe) with their runtime into .device-rt/rt.tar.xz
# for the GPU host (../shared/device/bundle-runtime.sh does the packing; binaries land in
# /tmp/rt/bin there).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${SHAKEDOWN_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSHAKEDOWN_WITH_CUDA=ON -DSHAKEDOWN_WITH_NCCL=ON >/dev/null
probes=(shakedown_kernel_probe shakedown_stencil_probe shakedown_gemm_probe)
cmake --build "$build" -j "$(nproc)" --target shakedown shakedown-analyze inventory_tests telemetry_tests shakedown_fake_nvml \
  "${probes[@]}"
mkdir -p .device-rt
bash ../shared/device/bundle-runtime.sh .device-rt/rt.tar.xz "$build/src/driver/shakedown" \
  "$build/analysis/shakedown-analyze" "$build/tests/inventory/inventory_tests" \
  "$build/tests/telemetry/telemetry_tests" "$build"/tests/telemetry/libshakedown_fake_nvml.so \
  "${probes[@]/#/$build/bench/gpu/}"
