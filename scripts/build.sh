#!/usr/bin/env bash
# Configures and builds shakedown into ${SHAKEDOWN_BUILD_DIR:-build} (Release, Ninja): everything,
# or the targets SHAKEDOWN_BUILD_TARGETS names ("shakedown shakedown-analyze": what a run needs).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SHAKEDOWN_BUILD_DIR:-build}
# The release default compiles CUDA for five GPU generations; here (CI, the README) only the H200's
# sm_90, unless the caller names architectures.
architectures=(-DCMAKE_CUDA_ARCHITECTURES=90)
for argument in "$@"; do
  case "$argument" in -DCMAKE_CUDA_ARCHITECTURES=*) architectures=() ;; esac
done
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${architectures[@]}" "$@"
fi
read -r -a targets <<<"${SHAKEDOWN_BUILD_TARGETS:-}"
cmake --build "$build" -j "$(nproc)" ${targets[@]+--target "${targets[@]}"}
