#!/usr/bin/env bash
# A bounded libFuzzer pass (part of the README's test command): the trace reader, run.json, the
# config and the thresholds/topology parsers, each fed a fixed number of inputs with a fixed seed
# from the seed corpus in analysis/fuzz/corpus (new inputs go to a scratch folder; the corpus
# stays as it is), so the same build fuzzes the same inputs on every machine and CI cannot turn red
# at random; FUZZ_RUNS_SCALE multiplies the counts for a longer search. A crash, an ASan report or
# an input that takes 10 s (a hang) fails the script. Clang only (clang-14 from
# scripts/install-deps.sh); the whole tree is built with -fsanitize=fuzzer-no-link,address.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SHAKEDOWN_FUZZ_DIR:-build-fuzz}
scale=${FUZZ_RUNS_SCALE:-1}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DSHAKEDOWN_BUILD_FUZZERS=ON -DSHAKEDOWN_BUILD_TESTS=OFF -DSHAKEDOWN_WITH_CUDA=OFF -DSHAKEDOWN_WITH_NCCL=OFF \
    -DSHAKEDOWN_WITH_KOKKOS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" >/dev/null
fi
targets=(trace_reader run_manifest config thresholds)
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/shakedown_fuzz_}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
corpus_of() {
  case $1 in
    trace_reader) echo trace ;;
    *) echo "$1" ;;
  esac
}
# About 10-20 s each on the 2-core development VM.
runs_of() {
  case $1 in
    trace_reader) echo $((8000 * scale)) ;;
    run_manifest) echo $((200000 * scale)) ;;
    config) echo $((10000 * scale)) ;;
    thresholds) echo $((20000 * scale)) ;;
  esac
}
for target in "${targets[@]}"; do
  mkdir -p "$scratch/$target"
  # HDF5's free lists and caches look like leaks at exit although nothing is lost per input.
  ASAN_OPTIONS=detect_leaks=0 "$build/analysis/fuzz/shakedown_fuzz_$target" -seed=1 -runs="$(runs_of "$target")" -timeout=10 \
    -rss_limit_mb=4096 -artifact_prefix="$scratch/" -print_final_stats=1 "$scratch/$target" \
    "analysis/fuzz/corpus/$(corpus_of "$target")" 2>"$scratch/$target.log" ||
    { tail -40 "$scratch/$target.log"; echo "fuzz: $target failed (artifacts: ${scratch}, kept)"; trap - EXIT; exit 1; }
  echo "fuzz: $target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/$target.log" | grep -o '[0-9]*$') inputs (seed 1), no crash, no hang"
done
