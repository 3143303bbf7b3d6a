#!/usr/bin/env bash
# The run side at scale (docs/benchmarks.md "The run side at scale").
#   bench/run_side_scale.sh BUILD OUT flushes [RANKS...]   the quick suite (small sizes) on 2 and 4 ranks
#                                                         (default) with bench/trace_flush_probe.c
#                                                         preloaded: files, folders, bytes and HDF5
#                                                         flushes per rank per test
#   bench/run_side_scale.sh BUILD OUT barriers [RANKS...] one cheap test on 16..256 oversubscribed ranks
#                                                         (default 16 32 64 128 256), --no-telemetry:
#                                                         run.json's manifest_cost (barrier, gather,
#                                                         write, bytes), wall time, peak memory; stops
#                                                         at the first size that fails and says why
# OUT must not exist (nothing is overwritten). Prints one line per run.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BUILD OUT flushes|barriers [RANKS...]" >&2; exit 2; }
build=$1 out=$2 mode=$3
shift 3
shakedown=$build/src/driver/shakedown
[ -x "$shakedown" ] || { echo "$0: no $shakedown" >&2; exit 2; }
[ ! -e "$out" ] || { echo "$0: $out exists; not overwriting it" >&2; exit 2; }
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
mpirun=(mpirun --oversubscribe --allow-run-as-root --mca btl self,vader,tcp)

case $mode in
flushes)
  ranks=("$@")
  [ $# -gt 0 ] || ranks=(2 4)
  cc -O2 -shared -fPIC -I/usr/include/hdf5/serial "$here/trace_flush_probe.c" -o "$out/trace_flush_probe.so" \
    -ldl -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5
  cat >"$out/small.yaml" <<'EOF'
params:
  stream: {array_mib: 4, repetitions: 3}
  dgemm_fp64: {n: 192, repetitions: 2}
  stencil3d: {local_n: 24, steps: 4, triad_mib: 4, triad_repetitions: 2}
  cg_fp64: {local_n: 12, triad_mib: 4, triad_repetitions: 2}
  mpi_pingpong: {sizes: "8,1024", iterations_small: 200, warmup_small: 5, batch: 20}
EOF
  for n in "${ranks[@]}"; do
    mkdir -p "$out/log-np$n"
    "${mpirun[@]}" -np "$n" -x LD_PRELOAD="$out/trace_flush_probe.so" -x TRACE_FLUSH_LOG="$out/log-np$n/flush" \
      "$shakedown" run --suite quick --config "$out/small.yaml" --out "$out" --name "quick-np$n" >"$out/quick-np$n.log" 2>&1 ||
      echo "np $n: shakedown exited $? (a test failed or was refused on this VM: the trace writer's figures still count)"
    python3 - "$out/quick-np$n" "$out/log-np$n" "$n" <<'EOF'
import json, os, sys, collections
run, logs, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
manifest = json.load(open(os.path.join(run, "run.json")))
tests = len(manifest["tests"])
flushes = collections.defaultdict(list)  # trace file -> sizes after each flush
for name in os.listdir(logs):
    for line in open(os.path.join(logs, name)):
        path, size = line.rsplit(" ", 1)
        if path.endswith(".h5"): flushes[os.path.realpath(path)].append(int(size))
folders = files = 0; most = 0
for root, dirs, names in os.walk(run):
    folders += len(dirs); files += len(names); most = max(most, len(names) + len(dirs))
print(f"np {n}: {tests} tests; run folder: {files} files in {folders} sub-folders, at most {most} entries in one folder")
for entry in manifest["ranks"]:
    path = os.path.realpath(os.path.join(run, entry["trace"]))
    sizes = flushes.get(path, [])
    final = os.path.getsize(path)
    # The constructor's flush (header, config, inventory) and finish()'s are not per test.
    per_test = (len(sizes) - 2) / tests if sizes else float("nan")
    grown = (final - sizes[0]) / tests if sizes else float("nan")
    print(f"  rank {entry['rank']} ({entry['trace']}, local rank {entry['local_rank']}): {final} B, "
          f"{len(sizes)} flushes; at start {sizes[0] if sizes else 0} B; per test {per_test:.2f} flushes, {grown:.0f} B")
EOF
  done
  ;;
barriers)
  ranks=("$@")
  [ $# -gt 0 ] || ranks=(16 32 64 128 256)
  cat >"$out/tiny.yaml" <<'EOF'
params:
  mpi_pingpong: {sizes: "8", iterations_small: 20, warmup_small: 2, batch: 10}
EOF
  for n in "${ranks[@]}"; do
    start=$(date +%s.%N)
    set +e
    /usr/bin/time -f "%M" -o "$out/np$n.rss" timeout 540 "${mpirun[@]}" -np "$n" "$shakedown" run --tests mpi_pingpong \
      --no-telemetry --config "$out/tiny.yaml" --out "$out" --name "np$n" >"$out/np$n.log" 2>&1
    status=$?
    set -e
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if [ "$status" -ne 0 ] || [ ! -f "$out/np$n/run.json" ]; then
      echo "np $n: FAILED (exit $status after ${wall} s); last lines:"; tail -5 "$out/np$n.log"; break
    fi
    python3 - "$out/np$n/run.json" "$n" "$wall" "$(cat "$out/np$n.rss")" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1])); c = m["manifest_cost"]; n = int(sys.argv[2])
print(f"np {n}: wall {float(sys.argv[3]):.1f} s (largest process's peak RSS {int(sys.argv[4]) / 1024:.0f} MiB); "
      f"barrier {c['barrier_s'] * 1e3:.3f} ms, gather {c['gather_s'] * 1e3:.3f} ms, run.json write {c['write_s'] * 1e3:.3f} ms, "
      f"{c['bytes']} B ({c['bytes'] / n:.0f} B per rank)")
EOF
  done
  ;;
*) echo "$0: mode '$mode' is not flushes or barriers" >&2; exit 2 ;;
esac
