#!/usr/bin/env bash
# Real runs on the virtual cluster for the schedule simulator's --check (docs/benchmarks.md
# "Schedules by simulation"): brings the 4-node testbed up (slurm/testbed/testbed.sh), submits
# allpairs,mpi_pingpong,congestion jobs the way an operator would (`shakedown slurm submit
# --wait`, srun, TCP on the nodes' eth0) in each layout and allpairs scope below, then one
# scope-nodes allpairs job with node2's link shaped (the node-level matrix must name node2), and
# takes the testbed down again (trap). Prints each job's run folder, exit code and verdict; the
# run folders stay under OUT for `shakedown-schedule --check`. Root only.
# Usage: bash bench/schedule_cluster_runs.sh BUILD_DIR OUT
set -euo pipefail
build=$(readlink -f "${1:?build folder}")
out=${2:?output folder (outside /tmp: every virtual node has its own /tmp)}
here=$(dirname "$(readlink -f "$0")")
testbed=$here/../slurm/testbed/testbed.sh
[ "$(id -u)" -eq 0 ] || { echo "needs root (the virtual cluster)" >&2; exit 2; }
case "$(readlink -m "$out")" in /tmp/*) echo "OUT must not be under /tmp" >&2; exit 2 ;; esac
trap '"$testbed" down >/dev/null' EXIT
"$testbed" up 4 >/dev/null
eval "$("$testbed" env)"
shared=$("$testbed" shared-dir)
stage=$shared/bin
mkdir -p "$stage" "$out"
install -m 755 "$build/src/driver/shakedown" "$build/analysis/shakedown-analyze" "$build/tests/slurm/shakedown-slurm-cli" "$stage/"
install -m 644 "$here/../tests/slurm/cluster/virtual_cluster_thresholds.yaml" "$stage/"
runs=$shared/runs/schedule
rm -rf "$runs"
mkdir -p "$runs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
export OMPI_MCA_mpi_yield_when_idle=1 UCX_TLS=tcp UCX_NET_DEVICES=eth0

# job NAME NODES RANKS_PER_NODE SCOPE TESTS: one job, its run folder copied to OUT/NAME.
job() {
  local name=$1 nodes=$2 per_node=$3 scope=$4 tests=$5 output status id started=$SECONDS
  cat >"$runs/$name.yaml" <<YAML
params:
  allpairs: {bandwidth_bytes: 1048576, bandwidth_window: 4, bandwidth_iterations: 5, bandwidth_warmup: 1,
             latency_iterations: 50, latency_warmup: 5, scope: $scope}
YAML
  set +e
  output=$("$stage/shakedown-slurm-cli" slurm submit --wait --nodes "$nodes" --nodelist "node[1-$nodes]" --partition debug \
    --time 8 --ranks-per-node "$per_node" --suite pairwise --out "$runs" --launcher srun --shakedown "$stage/shakedown" \
    --analyzer "$stage/shakedown-analyze" --analyzer-args "--thresholds $stage/virtual_cluster_thresholds.yaml" \
    --config "$runs/$name.yaml" --run-args "--tests $tests --no-telemetry" 2>&1)
  status=$?
  set -e
  id=$(sed -n 's/.*submitted job \([0-9]*\).*/\1/p' <<<"$output")
  rm -rf "${out:?}/$name"
  if [ -n "$id" ] && [ -d "$runs/pairwise-job$id" ]; then
    cp -r "$runs/pairwise-job$id" "$out/$name"
    cp "$runs/slurm-shakedown-pairwise-$id.out" "$out/$name.log" 2>/dev/null || true
  fi
  local verdict
  verdict=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["verdict"], s["counts"]["nodes"])' \
    "$out/$name/summary.json" 2>/dev/null || echo "(no summary.json)")
  echo "$name: $nodes nodes x $per_node ranks, scope $scope, job $id, exit $status, $((SECONDS - started)) s, verdict $verdict"
}

comm_tests=allpairs,mpi_pingpong,congestion
job c4x1-ranks 4 1 ranks "$comm_tests"
job c4x2-ranks 4 2 ranks "$comm_tests"
job c4x2-nodes 4 2 nodes "$comm_tests"
job c3x2-nodes 3 2 nodes "$comm_tests"
"$testbed" limit-rate node2 50mbit
job c4x2-nodes-node2-slow 4 2 nodes allpairs
"$testbed" clear-faults
