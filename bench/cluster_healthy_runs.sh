#!/usr/bin/env bash
# Healthy virtual-cluster runs in a row ("no drain on a healthy cluster"): brings the
# 4-node testbed up (slurm/testbed/testbed.sh), submits N allpairs (or tcp_bandwidth) jobs on
# node[1-4] the way an operator would (`shakedown slurm submit --wait`, the job's own confirmation step included),
# and prints per run the verdict, the drain lines, the per-sample noise and the lowest link and
# node ratios the analyzer saw; then takes the testbed down. Root only.
# Usage: bash bench/cluster_healthy_runs.sh BUILD_DIR [RUNS] [ALLPAIRS_ROUNDS] [TEST]
#   TEST: allpairs (default) or tcp_bandwidth (eth0, 4 streams, 1 s: its matrix's localization)
set -euo pipefail
build=$(readlink -f "${1:?build folder}")
runs=${2:-10}
rounds=${3:-1}
test=${4:-allpairs}
case "$test" in allpairs | tcp_bandwidth) ;; *) echo "TEST must be allpairs or tcp_bandwidth, got '$test'" >&2; exit 2 ;; esac
here=$(dirname "$(readlink -f "$0")")
testbed=$here/../slurm/testbed/testbed.sh
[ "$(id -u)" -eq 0 ] || { echo "needs root (the virtual cluster)" >&2; exit 2; }
trap '"$testbed" down >/dev/null' EXIT
"$testbed" up 4 >/dev/null
eval "$("$testbed" env)"
shared=$("$testbed" shared-dir)
stage=$shared/bin
mkdir -p "$stage"
install -m 755 "$build/src/driver/shakedown" "$build/analysis/shakedown-analyze" "$build/tests/slurm/shakedown-slurm-cli" "$stage/"
install -m 644 "$here/../tests/slurm/cluster/virtual_cluster_thresholds.yaml" "$stage/"
out=$shared/runs/healthy
rm -rf "$out"
mkdir -p "$out"
cat >"$out/allpairs.yaml" <<YAML
params:
  allpairs: {bandwidth_bytes: 1048576, bandwidth_window: 4, bandwidth_iterations: 5, bandwidth_warmup: 1,
             latency_iterations: 50, latency_warmup: 5, rounds: $rounds}
  tcp_bandwidth: {interfaces: [eth0], streams: 4, seconds: 1, round_trips: 100}
YAML
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
export OMPI_MCA_mpi_yield_when_idle=1 UCX_TLS=tcp UCX_NET_DEVICES=eth0
echo "| run | job s | exit | verdict | drained | confirmation | noise per sample | lowest flagged link ratio | lowest node ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
for run in $(seq "$runs"); do
  started=$SECONDS
  set +e
  output=$("$stage/shakedown-slurm-cli" slurm submit --wait --nodes 4 --nodelist 'node[1-4]' --partition debug --time 8 \
    --suite pairwise --out "$out" --launcher srun --shakedown "$stage/shakedown" --analyzer "$stage/shakedown-analyze" \
    --analyzer-args "--thresholds $stage/virtual_cluster_thresholds.yaml" --config "$out/allpairs.yaml" \
    --run-args "--tests $test" 2>&1)
  status=$?
  set -e
  job=$(sed -n 's/.*submitted job \([0-9]*\).*/\1/p' <<<"$output")
  folder=$out/pairwise-job$job
  log=$out/slurm-shakedown-pairwise-$job.out
  confirmation=$(grep -q "confirming before drain" "$log" 2>/dev/null && echo "ran" || echo "-")
  python3 - "$folder" "$run" "$((SECONDS - started))" "$status" "$confirmation" "$test" <<'PY'
import json, sys
folder, run, seconds, status, confirmation, test = sys.argv[1:]
try:
    summary = json.load(open(f"{folder}/summary.json"))
except OSError:
    print(f"| {run} | {seconds} | {status} | (no summary.json) | | {confirmation} | | | |")
    sys.exit(0)
drained = [line.split()[2].split("=")[1] for line in open(f"{folder}/drain.txt") if line.startswith("scontrol")]
links = (summary.get("localization") if test == "allpairs" else (summary.get("other_localizations") or [None])[0]) or {}
noise = (links.get("noise") or {}).get("measured_sigma")
flagged = links.get("flagged_links", [])
link_ratio = f"{min(l['ratio'] for l in flagged):.2f} ({len(flagged)} flagged)" if flagged else "none flagged"
node_ratio = min((n["ratio"] for n in links.get("node_stats", [])), default=float("nan"))
print(f"| {run} | {seconds} | {status} | {summary['verdict']} | {','.join(drained) or 'none'} | {confirmation} | "
      f"{100 * noise:.1f} % | {link_ratio} | {node_ratio:.2f} |" if noise is not None else
      f"| {run} | {seconds} | {status} | {summary['verdict']} | {','.join(drained) or 'none'} | {confirmation} | - | - | - |")
PY
done
