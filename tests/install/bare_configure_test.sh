#!/usr/bin/env bash
# Regression for c754387: a bare `cmake -S . -B DIR` (no options, CMAKE_CUDA_ARCHITECTURES left to
# the project's default of five architectures) failed because the list's semicolons split the CUDA
# feature entry of the configure summary. Configures a fresh folder (never builds there), expects
# exit 0 and the CUDA line to list the architectures with commas; removes the folder afterwards.
# Usage: bare_configure_test.sh CMAKE SOURCE_DIR WORK_PARENT
set -u
cmake_exe=$1 source_dir=$2 parent=$3
work=$(mktemp -d "$parent/bare-configure.XXXXXX") || { echo "FAIL: cannot make a folder under $parent"; exit 1; }
trap 'rm -rf "$work"' EXIT

# Nothing from the calling build may choose the architectures: CUDAARCHS would seed the cache.
env -u CUDAARCHS -u CMAKE_GENERATOR -u CMAKE_BUILD_TYPE "$cmake_exe" -S "$source_dir" -B "$work/build" \
  > "$work/configure.log" 2>&1
code=$?
if [[ $code -ne 0 ]]; then
  echo "FAIL: the bare configure exited $code:"; tail -40 "$work/configure.log"; exit 1
fi
cuda_line=$(grep -E '^--   CUDA ' "$work/configure.log")
echo "CUDA feature line: ${cuda_line:-<none>}"
if [[ "$cuda_line" =~ ^--\ \ \ CUDA\ +OFF ]]; then
  echo "SKIP: no CUDA toolkit here, so no architecture list to check"; exit 77
fi
expected="architectures 80-real, 89-real, 90-real, 100-real, 120"
if [[ "$cuda_line" != *"$expected" ]]; then
  echo "FAIL: the CUDA line does not end with '$expected'"; exit 1
fi
if grep -q 'CMAKE_CUDA_ARCHITECTURES:.*=90$' "$work/build/CMakeCache.txt"; then
  echo "FAIL: the fresh cache holds a single architecture"; exit 1
fi
echo "ok: bare configure exited 0 and the CUDA line lists the five default architectures"
