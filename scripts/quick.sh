#!/usr/bin/env bash
# The README's first command: install what is missing, build, run the quick suite with
# 2 MPI ranks on this machine, analyze the run and print the per-node verdict. Only what a run
# needs: the packages to build and run (not the tests' Slurm, Chromium or clang) and the two
# programs (the tests are built by scripts/test.sh, in the same build folder).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh build
SHAKEDOWN_BUILD_TARGETS="shakedown shakedown-analyze" bash scripts/build.sh
build=${SHAKEDOWN_BUILD_DIR:-build}
ranks=${SHAKEDOWN_RANKS:-2}
out=${SHAKEDOWN_OUT:-shakedown-runs}

root_flags=()
[ "$(id -u)" -eq 0 ] && root_flags=(--allow-run-as-root)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
mpirun -np "$ranks" --oversubscribe "${root_flags[@]}" --mca btl self,vader,tcp \
  "$build/src/driver/shakedown" run --suite quick --out "$out" "$@" | tee "$log"
run_status=${PIPESTATUS[0]}
set -e
run=$(sed -n 's/^run folder: //p' "$log" | tail -n 1)
if [ -z "$run" ]; then
  echo "shakedown: the run did not get as far as a run folder (exit $run_status)" >&2
  exit "$run_status"
fi
echo
"$build/analysis/shakedown-analyze" "$run"
