#!/usr/bin/env bash
# End-to-end cases on the virtual cluster (slurm/testbed/testbed.sh, brought up and down by the
# ctest fixture around these cases). Each case submits a real batch job with
# `shakedown slurm submit --wait` and checks what the job left: traces, run.json, the
# analyzer's verdict. Needs root; exits 77 (ctest: skipped) otherwise.
#
#   cluster_case.sh CASE   with CASE one of: quick-srun, quick-mpirun, rank-killed, rate-limited,
#                          two-slow-links, two-disjoint-links, one-direction, mid-run-slowdown, tcp-shaped, tcp-beside-iperf3, congestion-shaped, train-shaped, mtu-mismatch, testbed-refuses-foreign, dead-node,
#                          stopped-rank, time-limit, account-qos
# The testbed has 4 nodes; the cases run on node[1-3] unless they say otherwise (NODES=4).
# Environment (set by tests/slurm/CMakeLists.txt): TESTBED, SLURM_CLI, SHAKEDOWN, ANALYZER.
#
# The binaries, the thresholds and the run folders are put in the testbed's shared folder, as on
# a real cluster's shared file system: the build folder may live where the nodes cannot see it
# (each node has its own /tmp, and CI may clone under /tmp).
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
# UCX likewise: the virtual nodes share one kernel, so UCX finds shared memory and cross-memory
# attach "between nodes", which real nodes never have; over TCP on eth0 its traffic takes the
# nodes' own links, as ucx_perf's node-to-node pairs should.
readonly OMPI_TCP="--mca btl self,tcp --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 --mca mpi_yield_when_idle 1 -x UCX_TLS=tcp -x UCX_NET_DEVICES=eth0"
# For srun --mpi=pmix the same through the environment, which sbatch and srun pass on.
use_ompi_tcp_environment() {
  export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
  export OMPI_MCA_mpi_yield_when_idle=1 UCX_TLS=tcp UCX_NET_DEVICES=eth0
}
shared=$("$TESTBED" shared-dir)
stage=$shared/bin
mkdir -p "$stage"
install -m 755 "$SHAKEDOWN" "$ANALYZER" "$SLURM_CLI" "$stage/"
install -m 644 "$(dirname "$(readlink -f "$0")")/virtual_cluster_thresholds.yaml" "$stage/"
SHAKEDOWN=$stage/$(basename "$SHAKEDOWN")
ANALYZER=$stage/$(basename "$ANALYZER")
SLURM_CLI=$stage/$(basename "$SLURM_CLI")
readonly SHAKEDOWN ANALYZER SLURM_CLI THRESHOLDS=$stage/virtual_cluster_thresholds.yaml

out=$shared/runs/$case_name
rm -rf "$out"
mkdir -p "$out"

# submit SUITE LAUNCHER [extra cli words...]: sets job_id, run_folder, job_status, job_seconds,
# job_log and submit_output (what the submit command printed). On node[1-$NODES], default 3.
submit() {
  local suite=$1 launcher=$2 nodes=${NODES:-3}
  shift 2
  local started=$SECONDS output
  set +e
  output=$("$SLURM_CLI" slurm submit --wait --nodes "$nodes" --nodelist "node[1-$nodes]" --partition debug --time 8 \
    --suite "$suite" --out "$out" \
    --launcher "$launcher" --shakedown "$SHAKEDOWN" --analyzer "$ANALYZER" --analyzer-args "--thresholds $THRESHOLDS" \
    "$@" 2>&1)
  job_status=$?
  set -e
  job_seconds=$((SECONDS - started))
  submit_output=$output
  echo "$output"
  job_id=$(sed -n 's/.*submitted job \([0-9]*\).*/\1/p' <<<"$output")
  [ -n "$job_id" ] || fail "no job id in: $output"
  run_folder=$out/$suite-job$job_id
  job_log=$out/slurm-shakedown-$suite-$job_id.out
  echo "--- job $job_id log ($job_seconds s, exit $job_status):"
  cat "$job_log" || true
  echo "---"
}

# A job whose run never started (exit 3, no run folder) is submitted once more, said so in the log:
# Open MPI's TCP wire-up across a shaped link can fail before shakedown starts (a connect() that
# returns EINPROGRESS, then a crash in the launcher's error path), and 1 in about 25 jobs under srun
# loses a rank to a SIGSEGV at start-up before the run folder exists (a call through a null pointer
# caught by UCX's handler; its cause is not found). Neither is the verdict under test.
resubmit_if_not_started() {
  if [ "$job_status" -eq 3 ] && [ ! -d "$run_folder" ]; then
    echo "retrying: the run did not start (job exit 3, no run folder): $(grep -m1 -E 'Segmentation fault|failed to TCP connect|error' "$job_log" || true)"
    submit "$@"
  fi
}

# allpairs_job [ROUNDS [ITERATIONS]]: the allpairs test alone on node[1-4] under srun (1 MiB
# messages, window 4, ITERATIONS of them per measurement), submitted once more if its run did not
# start; sets what submit sets.
allpairs_job() {
  local rounds=${1:-1} iterations=${2:-5}
  use_ompi_tcp_environment
  cat >"$out/allpairs.yaml" <<YAML
params:
  allpairs: {rounds: $rounds, bandwidth_bytes: 1048576, bandwidth_window: 4, bandwidth_iterations: $iterations,
             bandwidth_warmup: 1, latency_iterations: 50, latency_warmup: 5}
YAML
  export NODES=4
  submit pairwise srun --config "$out/allpairs.yaml" --run-args "--tests allpairs"
  resubmit_if_not_started pairwise srun --config "$out/allpairs.yaml" --run-args "--tests allpairs"
}

# tcp_job [SECONDS]: the tcp_bandwidth test alone on node[1-4] under srun, on eth0 (4 streams,
# SECONDS each direction and both at once), submitted once more if its run did not start.
tcp_job() {
  local seconds=${1:-1}
  use_ompi_tcp_environment
  cat >"$out/tcp.yaml" <<YAML
params:
  tcp_bandwidth: {interfaces: [eth0], streams: 4, seconds: $seconds, round_trips: 100}
YAML
  export NODES=4
  submit pairwise srun --config "$out/tcp.yaml" --run-args "--tests tcp_bandwidth"
  resubmit_if_not_started pairwise srun --config "$out/tcp.yaml" --run-args "--tests tcp_bandwidth"
}

expect_traces_from_every_rank() {
  for rank in 0 1 2; do
    [ -s "$run_folder/traces/00000-00999/rank-0000$rank.h5" ] || fail "no trace from rank $rank in $run_folder"
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

# attribute FILE PATH: one HDF5 string attribute's value, quotes and h5dump's frame removed.
attribute() {
  h5dump -a "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): "\(.*\)"$/\1/p'
}

# ucx_perf ran node to node over the nodes' own network (TCP across the namespaces): validated
# on every rank, each rank's partners on other nodes, and UCX chose tcp.
expect_ucx_across_nodes() {
  for rank in 0 1 2; do
    local trace=$run_folder/traces/00000-00999/rank-0000$rank.h5 status transports pairs
    status=$(attribute "$trace" /tests/ucx_perf/status)
    [ "$status" = pass ] || fail "ucx_perf on rank $rank: '$status'"
    transports=$(attribute "$trace" /tests/ucx_perf/parameters/transports)
    [[ "$transports" == *tcp* ]] || fail "ucx_perf on rank $rank used '$transports', not tcp between nodes"
    pairs=$(attribute "$trace" /tests/ucx_perf/parameters/pairs_run)
    [ "$pairs" = "0-1 (inter-node), 1-2 (inter-node), 2-0 (inter-node)" ] ||
      fail "ucx_perf on rank $rank ran '$pairs', not the node ring 0-1, 1-2, 2-0 across nodes"
  done
  check "ucx_perf node to node on 3 ranks, validated, transports: $(attribute "$run_folder/traces/00000-00999/rank-00000.h5" /tests/ucx_perf/parameters/transports)"
}

# submit_in_background MINUTES CONFIG TESTS: a 3-node srun job of the quick suite's TESTS with
# CONFIG, `submit --wait` in the background (submit_pid, its output in $out/submit.log), for a
# case that acts on the job while it runs; end_background_submit waits for it and sets
# job_status, job_seconds, run_folder and job_log as submit does.
submit_in_background() {
  use_ompi_tcp_environment
  background_started=$SECONDS
  "$SLURM_CLI" slurm submit --wait --nodes 3 --nodelist 'node[1-3]' --partition debug --time "$1" --suite quick \
    --out "$out" --launcher srun --shakedown "$SHAKEDOWN" --analyzer "$ANALYZER" \
    --analyzer-args "--thresholds $THRESHOLDS" --config "$2" --run-args "--tests $3" >"$out/submit.log" 2>&1 &
  submit_pid=$!
}

# The job id submit printed, once there is one ("" before).
background_job_id() {
  sed -n 's/.*submitted job \([0-9]*\).*/\1/p' "$out/submit.log"
}

end_background_submit() {
  set +e
  wait "$submit_pid"
  job_status=$?
  set -e
  job_seconds=$((SECONDS - background_started))
  cat "$out/submit.log"
  run_folder=$out/quick-job$job_id
  job_log=$out/slurm-shakedown-quick-$job_id.out
  echo "--- job $job_id log ($job_seconds s, exit $job_status):"
  cat "$job_log" || true
  echo "---"
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
    expect_ucx_across_nodes
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
      [ -s "$run_folder/traces/00000-00999/rank-0000$rank.h5" ] || fail "no trace from surviving rank $rank"
      h5dump -a /tests/stream/status "$run_folder/traces/00000-00999/rank-0000$rank.h5" | grep -q '"pass"' ||
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
    resubmit_if_not_started pairwise srun --config "$out/allpairs.yaml" --run-args "--tests allpairs"
    [ "$job_status" -eq 1 ] || fail "job exit code $job_status, expected 1 (node2 fails)"
    grep -q '"pass": 2' "$run_folder/summary.json" || fail "healthy nodes were flagged: $(cat "$run_folder/summary.json")"
    grep -q '"fail": 1' "$run_folder/summary.json" || fail "no node failed"
    [ -s "$run_folder/drain.txt" ] || fail "no drain.txt"
    grep -q '^scontrol update NodeName=node2 State=DRAIN Reason="shakedown: .*' "$run_folder/drain.txt" ||
      fail "drain.txt does not drain node2: $(cat "$run_folder/drain.txt")"
    [ "$(grep -c '^scontrol' "$run_folder/drain.txt")" -eq 1 ] || fail "drain.txt drains more than node2"
    grep -q "shakedown: confirming before drain: tests allpairs again on 3 node(s)" "$job_log" ||
      fail "no confirmation step measured node2's links again"
    grep -q "1 FAIL(s) measured again and confirmed (they drain)" "$job_log" || fail "the final analysis did not confirm node2"
    check "node2 fails on its link rate, confirmed by a second measurement, and is the only line in drain.txt"
    ;;

  two-slow-links)
    # The links node4<->node1 and node4<->node2 shaped to 100 Mbit/s, node4<->node3 and every
    # other link left alone: node4 is the common end of both slow links (and fine to node3), so
    # it alone drains, named as the common end, once a confirmation step measured those links
    # again; node1, node2 and node3 pass.
    trap '"$TESTBED" clear-faults' EXIT
    "$TESTBED" limit-link node4 node1 100mbit
    "$TESTBED" limit-link node4 node2 100mbit
    allpairs_job
    [ "$job_status" -eq 1 ] || fail "job exit code $job_status, expected 1 (node4 fails)"
    # node1-3 must not FAIL; on 4 ranks sharing 2 cores their own links may WARN.
    grep -q '"fail": 1' "$run_folder/summary.json" || fail "not node4 alone failed: $(cat "$run_folder/summary.json")"
    grep -q "slow node: node4 is the common end of 2 slow links" "$job_log" ||
      fail "the report does not name node4 as the common end of the two slow links"
    # The confirmation step must measure node4 and the far ends of its slow links again. On 4
    # nodes sharing 2 cores a healthy link (node1<->node3, measured here at 0.68-0.69 of its
    # reference, 0.74-0.80 again) can fall below the FAIL line once; its nodes are then measured
    # again too and end "not reproduced", which is what the confirmation is for: the drain
    # assertions below still require node4 alone.
    confirmed_nodes=$(sed -n 's/^shakedown: confirming before drain: tests allpairs again on [0-9]* node(s) (\([^)]*\)).*/\1/p' \
      "$job_log" | head -n 1)
    for node in node1 node2 node4; do
      [[ ",$confirmed_nodes," == *",$node,"* ]] ||
        fail "no confirmation step on node4 and the far ends of its slow links (confirmed: ${confirmed_nodes:-none})"
    done
    grep -q '^scontrol update NodeName=node4 State=DRAIN Reason="shakedown: allpairs: slow node: node4 is the common end' \
      "$run_folder/drain.txt" || fail "drain.txt does not drain node4: $(cat "$run_folder/drain.txt")"
    [ "$(grep -c '^scontrol' "$run_folder/drain.txt")" -eq 1 ] || fail "drain.txt drains more than node4: $(cat "$run_folder/drain.txt")"
    check "node4 named the common end of node4<->node1 and node4<->node2, confirmed, alone in drain.txt" \
      "($(grep -o '"pass": [0-9]*' "$run_folder/summary.json" | head -1) of the others)"
    ;;

  two-disjoint-links)
    # node1<->node2 and node3<->node4 shaped to 100 Mbit/s, no node common to both: two links,
    # each named, no group or node invented from them, and nothing drained (a link is replaced,
    # not its nodes). Two rounds: the testbed's single shots can read a healthy link at 0.65.
    trap '"$TESTBED" clear-faults' EXIT
    "$TESTBED" limit-link node1 node2 100mbit
    "$TESTBED" limit-link node3 node4 100mbit
    allpairs_job 2
    [ "$job_status" -eq 1 ] || fail "job exit code $job_status, expected 1 (the two links fail)"
    for link in 'node1<->node2' 'node3<->node4'; do
      grep -q "slow link $link" "$job_log" || fail "the report does not name the link $link"
    done
    # Their ring-shift neighbours' links can read low beside them (0.54-0.61 of 0.8-1.06 GB/s
    # here): links too, or a WARN on a node, never a group or a drain.
    ! grep -q "slow group" "$job_log" || fail "a group was invented: $(grep -m3 'slow group' "$job_log")"
    ! grep -q '^scontrol' "$run_folder/drain.txt" || fail "two links drained a node: $(cat "$run_folder/drain.txt")"
    check "node1<->node2 and node3<->node4 named as two links, no group, nothing drained"
    ;;

  one-direction)
    # Only what node1 sends to node2 shaped to 200 Mbit/s (the reverse, and node1's other links,
    # untouched): the link FAILs as that direction, named node1->node2 with the reverse beside it,
    # not halved into a two-way figure or absorbed into a WARN on a node; a link drains neither end.
    trap '"$TESTBED" clear-faults' EXIT
    "$TESTBED" limit-direction node1 node2 200mbit
    allpairs_job
    # The window test sends node1->node2 at least 6 windows of 4 MiB. A run whose traffic did not
    # pass the shaping says nothing of the verdict (a fresh-clone CI run once read that link at
    # full rate): it is measured once more, and named as the testbed's fault if it happens again.
    shaped=$("$TESTBED" shaped-bytes node1 node2)
    if [ "$shaped" -lt 4194304 ]; then
      echo "retrying: node1's shaping toward node2 carried $shaped bytes:"
      "$TESTBED" exec node1 tc -s class show dev eth0
      "$TESTBED" exec node1 tc filter show dev eth0
      "$TESTBED" clear-faults
      "$TESTBED" limit-direction node1 node2 200mbit
      allpairs_job
      shaped=$("$TESTBED" shaped-bytes node1 node2)
      [ "$shaped" -ge 4194304 ] || fail "testbed: node1's shaping toward node2 carried $shaped bytes twice: the fault was not in the path"
    fi
    [ "$job_status" -eq 1 ] ||
      fail "job exit code $job_status, expected 1 (the link node1->node2 fails; $shaped bytes went through its shaping)"
    grep -q "slow link node1->node2 (one direction; the reverse" "$job_log" ||
      fail "the report does not name the direction node1->node2: $(grep -m3 'slow ' "$job_log" || true)"
    ! grep -q '^scontrol' "$run_folder/drain.txt" || fail "a one-direction link drained a node: $(cat "$run_folder/drain.txt")"
    ! grep -q "slow node: node1\b\|slow node: node2\b" "$job_log" ||
      fail "the slow direction was taken for a slow node: $(grep -m3 'slow node' "$job_log")"
    check "node1->node2 named as one direction of the link ($shaped bytes through its shaping), nothing drained" \
      "($(grep -o '"fail": [0-9]*' "$run_folder/summary.json" | head -1) nodes on the link)"
    ;;

  mid-run-slowdown)
    # node3's link shaped to 1 Gbit/s both ways (about a fifth of a healthy link here) 1 s into an
    # 8-round allpairs on 4 nodes (healthy rounds here take 0.3-0.7 s): its later rounds are slow,
    # its earlier ones healthy. node3 must be named, confirmed and drained alone, "degraded during
    # the run" from the round it slowed in; before, the pooled noise took its two parts for a
    # spread of 100 % and every node passed.
    trap '"$TESTBED" clear-faults' EXIT
    (
      for _ in $(seq 1200); do
        if grep -qs '"current": {' "$out"/pairwise-job*/progress.json; then  # allpairs, the one test, runs
          sleep 1
          "$TESTBED" limit-rate node3 1gbit
          exit 0
        fi
        sleep 0.2
      done
    ) &
    shaper_pid=$!
    allpairs_job 8 20
    wait "$shaper_pid" || true
    [ "$job_status" -eq 1 ] || fail "job exit code $job_status, expected 1 (node3 fails)"
    grep -q "slow node: all 3 of node3's inter-node links are slow" "$job_log" ||
      fail "node3 is not named a slow node: $(grep -m3 'slow \|Verdict' "$job_log" || true)"
    grep -q "degraded during the run: slow from round" "$job_log" ||
      fail "node3 is not said to have degraded during the run"
    grep -q '^scontrol update NodeName=node3 State=DRAIN' "$run_folder/drain.txt" ||
      fail "drain.txt does not drain node3: $(cat "$run_folder/drain.txt")"
    [ "$(grep -c '^scontrol' "$run_folder/drain.txt")" -eq 1 ] || fail "drain.txt drains more than node3: $(cat "$run_folder/drain.txt")"
    check "node3, shaped during the run, named $(grep -o -m1 'slow from rounds\? [0-9-]* of [0-9]*' "$job_log"), drained alone"
    ;;

  tcp-shaped)
    # node2's link shaped to 200 Mbit/s both ways, then tcp_bandwidth on node[1-4]: node2 must be
    # named a slow node on eth0 from the TCP link matrix, confirmed by the job's confirmation step
    # (tcp_bandwidth again on node2 and its peers), alone in drain.txt; the other nodes pass.
    trap '"$TESTBED" clear-faults' EXIT
    "$TESTBED" limit-rate node2 200mbit
    tcp_job
    [ "$job_status" -eq 1 ] || fail "job exit code $job_status, expected 1 (node2 fails)"
    grep -q "tcp_bandwidth: eth0: slow node: all 3 of node2's inter-node links are slow" "$job_log" ||
      fail "the report does not name node2 a slow node on eth0"
    grep -q "shakedown: confirming before drain: tests tcp_bandwidth again" "$job_log" ||
      fail "no confirmation step measured node2's TCP links again"
    grep -q '"fail": 1' "$run_folder/summary.json" || fail "not node2 alone failed: $(cat "$run_folder/summary.json")"
    grep -q '^scontrol update NodeName=node2 State=DRAIN Reason="shakedown: tcp_bandwidth: eth0: slow node: all 3 of node2' \
      "$run_folder/drain.txt" || fail "drain.txt does not drain node2: $(cat "$run_folder/drain.txt")"
    [ "$(grep -c '^scontrol' "$run_folder/drain.txt")" -eq 1 ] || fail "drain.txt drains more than node2: $(cat "$run_folder/drain.txt")"
    check "node2 named a slow node on eth0 from the TCP matrix, confirmed, alone in drain.txt"
    ;;

  tcp-beside-iperf3)
    # tcp_bandwidth beside iperf3 (Debian's) on the same ordered pairs, same schedule and stream
    # count: iperf3, the job, iperf3 again; per pair our figure over the median of iperf3's two.
    # The virtual nodes' TCP is bound by the 2 shared cores, not by a wire, so single pairs scatter
    # (docs/benchmarks.md has the figures: medians 0.91-1.10 in 8 runs); CI asserts a median ratio
    # over the 12 pairs of 0.8, which a test doing more work per byte than iperf3 would miss.
    command -v iperf3 >/dev/null || fail "iperf3 is not installed (scripts/install-deps.sh installs it)"
    pairs="$(dirname "$(readlink -f "$0")")/../../../bench/tcp_iperf3_pairs.sh"
    compare="$(dirname "$(readlink -f "$0")")/../../../bench/tcp_beside_iperf3.py"
    bash "$pairs" "$TESTBED" 4 4 2 >"$out/iperf3-before.txt"
    tcp_job 2
    bash "$pairs" "$TESTBED" 4 4 2 >"$out/iperf3-after.txt"
    [ "$job_status" -eq 0 ] || fail "job exit code $job_status on a healthy cluster"
    python3 "$compare" "$run_folder" 0.8 "$out/iperf3-before.txt" "$out/iperf3-after.txt" ||
      fail "tcp_bandwidth's median pair is below 0.8 of iperf3's"
    check "tcp_bandwidth beside iperf3 on the 12 ordered pairs: $(tail -n 1 <<<"$(python3 "$compare" "$run_folder" 0 "$out/iperf3-before.txt" "$out/iperf3-after.txt")")"
    ;;

  congestion-shaped)
    # node2's link shaped to 50 Mbit/s both ways, then the congestion test on 4 nodes x 2 ranks
    # (3 random rings per phase): the slow link degrades its ring neighbours' figures as much as
    # node2's own, and node2 alone must be named (FAIL), the 3 other nodes pass, and whatever
    # drains is node2 (the confirmation step may drain it; its TCP wire-up across the shaped link
    # can fail, as in rate-limited, and then nothing drains).
    trap '"$TESTBED" clear-faults' EXIT
    "$TESTBED" limit-rate node2 50mbit
    use_ompi_tcp_environment
    export NODES=4
    submit quick srun --ranks-per-node 2 --run-args "--tests congestion"
    resubmit_if_not_started quick srun --ranks-per-node 2 --run-args "--tests congestion"
    [ "$job_status" -eq 1 ] || fail "job exit code $job_status, expected 1 (node2 fails)"
    # The final verdict (the last table of the job's log: after the confirmation step, if one ran)
    # is asserted. Under CI's parallel ctest the congestors' CPU noise has put another node at FAIL
    # in the first analysis (270x), not reproduced by the confirmation (a WARN), and a ring
    # neighbour at WARN in the confirmation's figures (9.85x): a WARN drains nothing.
    final_table=$(awk '/^NODE +RANKS/ { table = "" } { table = table $0 "\n" } END { printf "%s", table }' "$job_log")
    grep -q '"fail": 1' "$run_folder/summary.json" || fail "not exactly one node failed: $(cat "$run_folder/summary.json")"
    grep -qE "^node2 +2-3 +FAIL .*node2's links (are slow even without the congestors|degrade under load)" <<<"$final_table" ||
      fail "node2 is not the node named"
    if grep '^scontrol' "$run_folder/drain.txt" | grep -qv 'NodeName=node2 '; then
      fail "drain.txt drains another node: $(cat "$run_folder/drain.txt")"
    fi
    if grep -qE "^node[134] +[0-9]-[0-9] +FAIL" <<<"$final_table"; then fail "a node other than node2 FAILs"; fi
    check "node2 named alone for its links under congestion; no other node FAILs; drain.txt: $(grep -c '^scontrol' "$run_folder/drain.txt") line(s), node2's"
    ;;

  train-shaped)
    # node2's link shaped to 50 Mbit/s both ways, then train_step on 4 nodes x 1 rank (a small
    # custom stack: the gradients are 0.3 MB): node2's network link is far below the fabric's
    # median in its all-reduces with the other leaders; node2 alone is named, confirmed by the
    # job's confirmation step and drained; the three other nodes pass.
    trap '"$TESTBED" clear-faults' EXIT
    "$TESTBED" limit-rate node2 50mbit
    use_ompi_tcp_environment
    cat >"$out/train.yaml" <<'YAML'
params:
  train_step: {model: custom, hidden: 64, ffn: 128, heads: 4, kv_heads: 2, layers: 2, sequence: 64, steps: 4,
               warmup_steps: 1, allreduce_repetitions: 3}
YAML
    export NODES=4
    submit quick srun --config "$out/train.yaml" --run-args "--tests train_step"
    resubmit_if_not_started quick srun --config "$out/train.yaml" --run-args "--tests train_step"
    [ "$job_status" -eq 1 ] || fail "job exit code $job_status, expected 1 (node2 fails)"
    grep -q '"fail": 1' "$run_folder/summary.json" || fail "not exactly one node failed: $(cat "$run_folder/summary.json")"
    grep -q "slow network link: node2's all-reduces with other nodes' leaders" "$job_log" ||
      fail "the report does not name node2's network link"
    grep -q "shakedown: confirming before drain: tests train_step again on 4 node(s)" "$job_log" ||
      fail "no confirmation step measured node2's link again with its peers"
    grep -q '^scontrol update NodeName=node2 State=DRAIN Reason="shakedown: train_step: slow network link' \
      "$run_folder/drain.txt" || fail "drain.txt does not drain node2: $(cat "$run_folder/drain.txt")"
    [ "$(grep -c '^scontrol' "$run_folder/drain.txt")" -eq 1 ] || fail "drain.txt drains more than node2: $(cat "$run_folder/drain.txt")"
    check "node2's link named by train_step, confirmed, alone in drain.txt"
    ;;

  mtu-mismatch)
    # node2's link (both veth ends) at 9000 while node1 and node3 stay at 1500: network_mtu must
    # fail node2 alone, naming the MTU, and drain.txt must drain node2 only.
    trap '"$TESTBED" clear-faults' EXIT
    "$TESTBED" mtu node2 9000
    echo "params: {network_mtu: {interface: eth0}}" >"$out/mtu.yaml"
    submit quick mpirun --launcher-args "$OMPI_TCP" --config "$out/mtu.yaml" --run-args "--tests network_mtu"
    [ "$job_status" -eq 1 ] || fail "job exit code $job_status, expected 1 (node2 fails)"
    grep -q '"pass": 2' "$run_folder/summary.json" || fail "healthy nodes were flagged: $(cat "$run_folder/summary.json")"
    grep -q '"fail": 1' "$run_folder/summary.json" || fail "no node failed"
    [ "$(attribute "$run_folder/traces/00000-00999/rank-00001.h5" /tests/network_mtu/status)" = fail ] || fail "node2's network_mtu did not fail"
    grep -q "node2: eth0 MTU 9000 differs from the other nodes' 1500" "$job_log" ||
      fail "the report does not name node2's MTU 9000 against 1500"
    grep -q '^scontrol update NodeName=node2 State=DRAIN Reason="shakedown: .*' "$run_folder/drain.txt" ||
      fail "drain.txt does not drain node2: $(cat "$run_folder/drain.txt" 2>/dev/null)"
    [ "$(grep -c '^scontrol' "$run_folder/drain.txt")" -eq 1 ] || fail "drain.txt drains more than node2"
    check "node2's MTU 9000 against 1500 named, node2 alone in drain.txt"
    ;;

  testbed-refuses-foreign)
    # Another state folder did not make the running testbed's bridge: `up` must refuse and
    # touch nothing.
    other=$(dirname "$shared")-foreign
    rm -rf "$other"
    if SHAKEDOWN_TESTBED_DIR=$other "$TESTBED" up 4 >"$out/refusal.log" 2>&1; then
      SHAKEDOWN_TESTBED_DIR=$other "$TESTBED" down || true
      fail "up with a foreign state folder did not refuse"
    fi
    grep -q "bridge sdtb0 exists and is not ours: refusing" "$out/refusal.log" || fail "$(cat "$out/refusal.log")"
    [ ! -e "$other" ] || fail "the refused up left $other behind"
    "$TESTBED" up 4 || fail "up on the running testbed is not idempotent"
    "$TESTBED" status | grep -c "slurmd running" | grep -qx 4 || fail "not 4 slurmd running after a second up"
    check "foreign up refused, second up idempotent"
    ;;

  dead-node)
    # node3's slurmd is killed mid-job (its rank runs on, hung in mpi_pingpong): Slurm finds node3
    # not responding and marks it down. The job must not be cancelled or requeued: the step
    # dies, the script records Slurm's node states, the analyzer writes its verdict (3,
    # incomplete run), and both the job's log and `submit --wait` name node3.
    trap '"$TESTBED" revive node3' EXIT
    cat >"$out/hang.yaml" <<'YAML'
watchdog: {deadline_s: 150, grace_s: 5}
faults:
  - {kind: hang, test: mpi_pingpong, rank: 2}
YAML
    use_ompi_tcp_environment
    # Once the run has started (run.json written at start), kill node3's slurmd.
    (
      for _ in $(seq 240); do
        if compgen -G "$out/quick-job*/run.json" >/dev/null; then
          sleep 3
          exec "$TESTBED" kill-slurmd node3
        fi
        sleep 0.5
      done
      echo "FAIL: the run never started" >&2
      exit 1
    ) &
    killer=$!
    submit quick srun --config "$out/hang.yaml" --run-args "--tests stream,mpi_pingpong" --wait-timeout 600
    wait "$killer" || fail "node3's slurmd was not killed"
    [ "$job_status" -eq 3 ] || fail "job exit code $job_status, expected 3 (incomplete run: node3 died)"
    [ "$job_seconds" -le 240 ] || fail "the job took $job_seconds s"
    check "job ended in $job_seconds s with the analyzer's exit code 3"
    [ -s "$run_folder/summary.json" ] || fail "no summary.json: the analyzer did not run"
    grep -q '^node3 down' "$run_folder/slurm_nodes.txt" ||
      fail "slurm_nodes.txt does not have node3 down: $(cat "$run_folder/slurm_nodes.txt" 2>/dev/null)"
    grep -q 'Slurm reports node node3 down' "$job_log" || fail "the job's log does not name node3"
    grep -q 'Slurm reported node node3 down' <<<"$submit_output" || fail "submit --wait does not name node3"
    check "node3 named down in slurm_nodes.txt, the job's log and submit's output"
    grep -q "Slurm marked node3 down" "$job_log" || fail "the analyzer's verdict does not name node3"
    grep -q '^scontrol update NodeName=node3 State=DRAIN' "$run_folder/drain.txt" ||
      fail "drain.txt does not drain node3: $(cat "$run_folder/drain.txt" 2>/dev/null)"
    check "the verdict names node3 from Slurm's node states and drains it"
    ! compgen -G "$out/quick-job$job_id-*" >/dev/null || fail "a second attempt ran: $(ls -d "$out/quick-job$job_id"-*)"
    ! grep -q 'exists already' "$job_log" || fail "the job met its own run folder"
    check "no requeue, no second attempt"
    ;;

  stopped-rank)
    # Rank 2 (node3) freezes itself (SIGSTOP, watchdog included) as p2p starts: the other ranks'
    # watchdogs end the job at the 30 s deadline, and the analyzer names node3 as the rank that
    # stopped (the others waited for it) and drains node3 alone; node1 and node2 are incomplete.
    cat >"$out/stop.yaml" <<'YAML'
watchdog: {grace_s: 5, deadlines: {p2p: 30}}
params:
  p2p: {min_bytes: 1, max_bytes: 1024, iterations_small: 100, warmup_small: 5, bw_iterations_small: 5, bw_warmup_small: 1}
faults:
  - {kind: stop, test: p2p, rank: 2}
YAML
    use_ompi_tcp_environment
    submit pairwise srun --config "$out/stop.yaml" --run-args "--tests stream,p2p"
    [ "$job_status" -eq 3 ] || fail "job exit code $job_status, expected 3 (incomplete run)"
    [ "$job_seconds" -le 120 ] || fail "the job took $job_seconds s, beyond the 30 s deadline + grace"
    grep -q "node3 rank 2 stopped progressing in p2p" "$job_log" || fail "the report does not name node3 rank 2"
    [ -s "$run_folder/drain.txt" ] || fail "no drain.txt"
    grep -q '^scontrol update NodeName=node3 State=DRAIN Reason="shakedown: .*' "$run_folder/drain.txt" ||
      fail "drain.txt does not drain node3: $(cat "$run_folder/drain.txt")"
    [ "$(grep -c '^scontrol' "$run_folder/drain.txt")" -eq 1 ] || fail "drain.txt drains more than node3: $(cat "$run_folder/drain.txt")"
    check "node3 rank 2 named as stopped in $job_seconds s, node3 alone in drain.txt"
    ;;

  time-limit)
    # The job's time limit is cut to 2 minutes while rank 2 hangs in mpi_pingpong (its watchdog
    # would wait 10 minutes): the step limit the script was generated with (10 min less the
    # reserve) no longer helps, but Slurm's warning signal (#SBATCH --signal=B:USR1@60) reaches
    # the script's trap, which stops the step; the analyzer judges what ran (exit 3, stream
    # readable as pass) before Slurm's limit would have ended the job TIMEOUT (submit: 4).
    cat >"$out/hang.yaml" <<'YAML'
watchdog: {deadline_s: 600, grace_s: 5}
faults:
  - {kind: hang, test: mpi_pingpong, rank: 2}
YAML
    submit_in_background 10 "$out/hang.yaml" stream,mpi_pingpong
    job_id=
    for _ in $(seq 100); do
      job_id=$(background_job_id)
      [ -n "$job_id" ] && [ "$(squeue -h -j "$job_id" -o %T 2>/dev/null)" = RUNNING ] && break
      sleep 0.5
    done
    [ -n "$job_id" ] || fail "no job id: $(cat "$out/submit.log")"
    scontrol update JobId="$job_id" TimeLimit=2 || fail "scontrol could not shorten job $job_id's limit"
    check "job $job_id's time limit cut to 2 minutes while it runs"
    end_background_submit
    [ "$job_status" -eq 3 ] || fail "job exit code $job_status, expected the analyzer's 3 (4: Slurm ended it TIMEOUT first)"
    [ "$job_seconds" -lt 125 ] || fail "the job took $job_seconds s, past its 2-minute limit"
    grep -q "Slurm signalled USR1" "$job_log" || fail "the job's trap never saw Slurm's USR1"
    grep -q "the run step was stopped by Slurm's signal" "$job_log" || fail "the step was not stopped by the signal"
    grep -q "analyzer exit code 3" "$job_log" || fail "no analysis in the job's log"
    [ -s "$run_folder/summary.json" ] || fail "no summary.json"
    for rank in 0 1 2; do
      h5dump -a /tests/stream/status "$run_folder/traces/00000-00999/rank-0000$rank.h5" | grep -q '"pass"' ||
        fail "rank $rank's finished stream test is not readable as pass"
    done
    check "Slurm's USR1 stopped the hung step after $job_seconds s, the analyzer judged it (exit 3), stream pass on every rank"
    ;;

  scancel)
    # A running job cancelled with scancel while every rank is in a long test (rank 0's DGEMM
    # repetitions are delayed; the others wait for it at each repetition): each rank takes the
    # SIGTERM through its listener, whichever of its threads the kernel hands it to, and records
    # it (trace aborted, "ended by signal 15"), progress.json and run.json say aborted, and the
    # analyzer calls the run cancelled: the finished test judged, nothing drained, exit 3.
    cat >"$out/slow.yaml" <<'YAML'
faults:
  - {kind: delay, test: dgemm_fp64, rank: 0, seconds: 5}
params: {dgemm_fp64: {device: host, n: 128, repetitions: 20}}
YAML
    submit_in_background 8 "$out/slow.yaml" stream,dgemm_fp64
    job_id=
    running=
    for _ in $(seq 240); do
      job_id=${job_id:-$(background_job_id)}
      if [ -n "$job_id" ] && grep -q '"key": "dgemm_fp64"' "$out/quick-job$job_id/progress.json" 2>/dev/null; then
        running=yes
        break
      fi
      sleep 0.5
    done
    [ -n "$running" ] || fail "job '$job_id' never reached dgemm_fp64: $(cat "$out/submit.log")"
    sleep 2
    scancel "$job_id" || fail "scancel $job_id failed"
    check "job $job_id cancelled with scancel while its ranks ran dgemm_fp64"
    end_background_submit
    for rank in 0 1 2; do
      trace=$run_folder/traces/00000-00999/rank-0000$rank.h5
      [ "$(attribute "$trace" /status)" = aborted ] || fail "rank $rank's trace is '$(attribute "$trace" /status)', not aborted"
      [ "$(attribute "$trace" /tests/stream/status)" = pass ] || fail "rank $rank's finished stream is not pass"
    done
    grep -q '"state": "aborted"' "$run_folder/progress.json" || fail "progress.json: $(cat "$run_folder/progress.json")"
    grep -q 'ended by signal 15' "$run_folder/progress.json" || fail "progress.json does not name the signal"
    grep -q '"status": "aborted"' "$run_folder/run.json" || fail "run.json does not say aborted"
    check "every rank's trace aborted; progress.json and run.json: aborted, signal 15 named"
    set +e
    analysis=$("$ANALYZER" "$run_folder" --thresholds "$THRESHOLDS" --no-html --summary "$out/summary.json" \
      --junit "$out/junit.xml" --drain "$out/drain.txt" 2>&1)
    analysis_status=$?
    set -e
    echo "$analysis"
    [ "$analysis_status" -eq 3 ] || fail "analyzer exit $analysis_status, expected 3 (incomplete: cancelled)"
    grep -q "cancelled: 3 of 3 rank(s) ended by a signal they recorded" <<<"$analysis" || fail "the analysis does not call it cancelled"
    grep -q "run cancelled (3 of 3 ranks judged)" <<<"$analysis" || fail "the verdict line does not say cancelled"
    for rank in 0 1 2; do  # each trace's last event, as the analyzer reads it
      grep -q "aborted: rank $rank ended by signal 15 (Terminated) in dgemm_fp64" <<<"$analysis" ||
        fail "rank $rank's trace does not say signal 15 ended it in dgemm_fp64"
    done
    grep -q '"problem": "cancelled"' "$out/summary.json" || fail "summary.json has no cancelled entry"
    ! grep -q "^scontrol" "$out/drain.txt" || fail "a cancelled job drained: $(cat "$out/drain.txt")"
    check "analyzer: run cancelled, stream judged, nothing drained (exit 3)"
    ;;

  account-qos)
    # -A and --qos reach Slurm as #SBATCH lines. The virtual cluster has no accounting
    # (AccountingStorageType=accounting_storage/none, no slurmdbd), so Slurm checks neither
    # against associations, and keeps no QOS at all (scontrol shows QOS=(null)): this shows that
    # sbatch accepted the script with those lines, that the controller recorded the account, and
    # that the job ran to its verdict, not that an account or QOS limit was enforced.
    use_ompi_tcp_environment
    submit quick srun -A acceptance --qos normal --sbatch-args="--comment shakedown-acceptance" --run-args "--tests stream"
    script=$(sed -n 's/.*script \([^,]*\),.*/\1/p' <<<"$submit_output")
    grep -qx '#SBATCH --account=acceptance' "$script" || fail "no #SBATCH --account line in $script"
    grep -qx '#SBATCH --qos=normal' "$script" || fail "no #SBATCH --qos line in $script"
    grep -qx '#SBATCH --comment shakedown-acceptance' "$script" || fail "no pass-through #SBATCH --comment line in $script"
    [ "$job_status" -eq 0 ] || fail "job exit code $job_status, expected 0"
    [ -s "$run_folder/summary.json" ] || fail "no summary.json"
    account=$(scontrol show job -o "$job_id" 2>/dev/null | sed -n 's/.* Account=\([^ ]*\).*/\1/p')
    qos=$(scontrol show job -o "$job_id" 2>/dev/null | sed -n 's/.* QOS=\([^ ]*\).*/\1/p')
    comment=$(scontrol show job -o "$job_id" 2>/dev/null | sed -n 's/.* Comment=\([^ ]*\).*/\1/p')
    echo "scontrol: Account=${account:-?} QOS=${qos:-?} Comment=${comment:-?}"
    [ "$account" = acceptance ] || fail "Slurm recorded account '$account', not acceptance"
    [ "$comment" = shakedown-acceptance ] || fail "the --sbatch-args line did not reach Slurm: Comment='$comment'"
    check "sbatch accepted --account=acceptance --qos=normal and the pass-through --comment, Slurm recorded Account=$account QOS=${qos:-?} Comment=$comment, verdict 0"
    ;;

  *) fail "unknown case '$case_name'" ;;
esac
