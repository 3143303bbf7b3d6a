#!/usr/bin/env bash
# Tracing + telemetry overhead on the host STREAM triad and MPI ping-pong figures: the same
# tests run alternately with the telemetry sampler on (10 Hz) and off (--no-telemetry), ROUNDS
# times each, in one session, so drift in the machine's load hits both sides alike. Prints the
# median of each side and their ratio. Traces are written in both cases (between tests, never
# inside a measured window).
#   bash bench/telemetry_overhead.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat >"$out/config.yaml" <<'YAML'
params:
  stream: {array_mib: 64, repetitions: 10}
  mpi_pingpong: {sizes: "8", iterations_small: 5000, warmup_small: 100}
YAML
metric() {  # metric RUN TEST NAME: the value from rank 0's trace
  h5dump -d "/tests/$2/metrics" "$1/traces/00000-00999/rank-00000.h5" | awk -v name="\"$3\"," '$1 == name {getline; getline; gsub(",", ""); print $1; exit}'
}
for round in $(seq "$rounds"); do
  for mode in on off; do
    flag=(); [ "$mode" = off ] && flag=(--no-telemetry)
    mpirun -np 2 --oversubscribe --allow-run-as-root "$build/src/driver/shakedown" run --tests stream,mpi_pingpong \
      --config "$out/config.yaml" --out "$out" --name "$mode-$round" "${flag[@]}" >/dev/null 2>&1
    echo "$mode $(metric "$out/$mode-$round" stream stream.triad_gbs) $(metric "$out/$mode-$round" mpi_pingpong mpi_pingpong.latency_us)"
  done
done | tee "$out/figures.txt"
python3 - "$out/figures.txt" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
for index, name in ((1, "stream.triad_gbs (higher is better)"), (2, "mpi_pingpong.latency_us (lower is better)")):
    on = statistics.median(float(r[index]) for r in rows if r[0] == "on")
    off = statistics.median(float(r[index]) for r in rows if r[0] == "off")
    print(f"{name}: telemetry on {on:.4g}, off {off:.4g}, on/off {on / off:.4f}")
PY
