#!/usr/bin/env bash
# End-to-end cases on the virtual cluster (slurm/testbed/testbed.sh, brought up and down by the
# ctest fixture around these cases). Each case submits a real batch job with
# `shakedown slurm submit --wait` and checks what the job left: traces, run.json, the
# analyzer's verdict. Needs root; exits 77 (ctest: skipped) otherwise.
#
#   cluster_case.sh CASE   with CASE one of: quick-srun, quick-mpirun, rank-killed, rate-limited,
#                          testbed-refuses-foreign
# Environment (set by tests/slurm/CMakeLists.txt): TESTBED, SLURM_CLI, SHAKEDOWN, ANALYZER, RUNS.
set -euo pipefail

case_name=${1:?usage: cluster_case.sh CASE}
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the virtual cluster needs root (network namespaces, slurmd); CI runs as root"
  exit 77
fi
eval "$("$TESTBED" env)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

fail() { echo "FAIL: $*" >&2; exit 1; }
check() { echo "ok: $*"; }

# Only the nodes' eth0 leads to the other nodes (the host's own interfaces are not theirs). The
# virtual nodes share this machine's cores: ranks must yield while they wait, or a ping-pong
# partner waits for the scheduler's time slice (milliseconds instead of microseconds).
readonly OMPI_TCP="--mca btl self,tcp --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 --mca mpi_yield_when_idle 1"
# For srun --mpi=pmix the same through the environment, which sbatch and srun pass on.
use_ompi_tcp_environment() {
  export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
  export OMPI_MCA_mpi_yield_when_idle=1
}
THRESHOLDS=$(dirname "$(readlink -f "$0")")/virtual_cluster_thresholds.yaml
readonly THRESHOLDS

out=$RUNS/$case_name
rm -rf "$out"
mkdir -p "$out"

# submit SUITE LAUNCHER [extra cli words...]: sets job_id, run_folder, job_status, job_seconds, job_log
submit() {
  local suite=$1 launcher=$2
  shift 2
  local started=$SECONDS output
  set +e
  output=$("$SLURM_CLI" slurm submit --wait --nodes 3 --partition debug --time 8 --suite "$suite" --out "$out" \
    --launcher "$launcher" --shakedown "$SHAKEDOWN" --analyzer "$ANALYZER" --analyzer-args "--thresholds $THRESHOLDS" \
    "$@" 2>&1)
  job_status=$?
  set -e
  job_seconds=$((SECONDS - started))
  echo "$output"
  job_id=$(sed -n 's/.*submitted job \([0-9]*\).*/\1/p' <<<"$output")
  [ -n "$job_id" ] || fail "no job id in: $output"
  run_folder=$out/$suite-job$job_id
  job_log=$out/slurm-shakedown-$suite-$job_id.out
  echo "--- job $job_id log ($job_seconds s, exit $job_status):"
  cat "$job_log" || true
  echo "---"
}

expect_traces_from_every_rank() {
  for rank in 0 1 2; do
    [ -s "$run_folder/rank-0000$rank.h5" ] || fail "no trace from rank $rank in $run_folder"
  done
  check "traces from ranks 0, 1, 2"
}

expect_manifest() {
  local manifest=$run_folder/run.json
  [ -s "$manifest" ] || fail "no run.json"
  grep -q "\"job_id\": \"$job_id\"" "$manifest" || fail "run.json lacks Slurm job id $job_id"
  grep -q '"partition": "debug"' "$manifest" || fail "run.json lacks the partition"
  grep -q '"nodelist": "node\[1-3\]"' "$manifest" || fail "run.json lacks the node list"
  for node in node1 node2 node3; do
    grep -q "\"name\": \"$node\"" "$manifest" || fail "run.json has no node $node"
  done
  check "run.json: Slurm job $job_id, partition debug, nodes node[1-3]"
}

case "$case_name" in
  quick-srun | quick-mpirun)
    launcher=${case_name#quick-}
    if [ "$launcher" = srun ]; then
      use_ompi_tcp_environment
      submit quick srun
    else
      submit quick mpirun --launcher-args "$OMPI_TCP"
    fi
    [ "$job_status" -eq 0 ] || fail "job exit code $job_status (the analyzer's), expected 0"
    expect_traces_from_every_rank
    expect_manifest
    grep -q '"pass": 3' "$run_folder/summary.json" || fail "not every node PASS: $(cat "$run_folder/summary.json")"
    check "summary.json: 3 of 3 nodes PASS, job took $job_seconds s"
    ;;

  rank-killed)
    # Rank 1 (node2) kills itself when mpi_pingpong starts; stream ran before it everywhere.
    cat >"$out/abort.yaml" <<'YAML'
watchdog: {deadline_s: 60, grace_s: 5}
faults:
  - {kind: abort, test: mpi_pingpong, rank: 1}
YAML
    use_ompi_tcp_environment
    submit quick srun --config "$out/abort.yaml" --run-args "--tests stream,mpi_pingpong"
    [ "$job_status" -eq 3 ] || fail "job exit code $job_status, expected 3 (incomplete run)"
    [ "$job_seconds" -le 90 ] || fail "the job took $job_seconds s, beyond the 60 s watchdog deadline + grace"
    check "job ended in $job_seconds s with the analyzer's exit code 3"
    grep -A6 '"problem"' "$run_folder/summary.json" >/dev/null || fail "summary.json lists no incomplete rank"
    grep -B3 -A3 '"rank": 1' "$run_folder/summary.json" | grep -q '"problem"' ||
      fail "summary.json does not name rank 1 as incomplete: $(cat "$run_folder/summary.json")"
    grep -qi "rank 1" "$job_log" || fail "the analyzer's report does not name rank 1"
    check "the analyzer names rank 1 as missing"
    for rank in 0 2; do
      [ -s "$run_folder/rank-0000$rank.h5" ] || fail "no trace from surviving rank $rank"
      h5dump -a /tests/stream/status "$run_folder/rank-0000$rank.h5" | grep -q '"pass"' ||
        fail "rank $rank's finished stream test is not readable as pass"
    done
    check "ranks 0 and 2 kept their finished stream results"
    ;;

  rate-limited)
    # node2's link shaped to 50 Mbit/s both ways, then the all-pairs link matrix: node2 must fail
    # with a reason naming the link rate, appear in drain.txt, and no healthy node be flagged.
    trap '"$TESTBED" clear-faults' EXIT
    "$TESTBED" limit-rate node2 50mbit
    use_ompi_tcp_environment
    cat >"$out/allpairs.yaml" <<'YAML'
params:
  allpairs: {bandwidth_bytes: 1048576, bandwidth_window: 4, bandwidth_iterations: 5, bandwidth_warmup: 1,
             latency_iterations: 50, latency_warmup: 5}
YAML
    submit pairwise srun --config "$out/allpairs.yaml" --run-args "--tests allpairs"
    [ "$job_status" -eq 1 ] || fail "job exit code $job_status, expected 1 (node2 fails)"
    grep -q '"pass": 2' "$run_folder/summary.json" || fail "healthy nodes were flagged: $(cat "$run_folder/summary.json")"
    grep -q '"fail": 1' "$run_folder/summary.json" || fail "no node failed"
    [ -s "$run_folder/drain.txt" ] || fail "no drain.txt"
    grep -q '^scontrol update NodeName=node2 State=DRAIN Reason="shakedown: .*' "$run_folder/drain.txt" ||
      fail "drain.txt does not drain node2: $(cat "$run_folder/drain.txt")"
    [ "$(grep -c '^scontrol' "$run_folder/drain.txt")" -eq 1 ] || fail "drain.txt drains more than node2"
    check "node2 fails on its link rate and is the only line in drain.txt"
    ;;

  testbed-refuses-foreign)
    # Another state folder did not make the running testbed's bridge: `up` must refuse and
    # touch nothing.
    other=$RUNS/foreign-state
    rm -rf "$other"
    if SHAKEDOWN_TESTBED_DIR=$other "$TESTBED" up 3 >"$out/refusal.log" 2>&1; then
      SHAKEDOWN_TESTBED_DIR=$other "$TESTBED" down || true
      fail "up with a foreign state folder did not refuse"
    fi
    grep -q "bridge sdtb0 exists and is not ours: refusing" "$out/refusal.log" || fail "$(cat "$out/refusal.log")"
    [ ! -e "$other" ] || fail "the refused up left $other behind"
    "$TESTBED" up 3 || fail "up on the running testbed is not idempotent"
    "$TESTBED" status | grep -c "slurmd running" | grep -qx 3 || fail "not 3 slurmd running after a second up"
    check "foreign up refused, second up idempotent"
    ;;

  *) fail "unknown case '$case_name'" ;;
esac
