#!/usr/bin/env bash
# iperf3, the reference for tcp_bandwidth, between the virtual cluster's nodes in tcp_bandwidth's
# schedule: rounds in which each node is in one pair (the circle method, as comm::every_pair_rounds),
# every pair of a round at once, the lower node's direction first, then the higher one's. Prints
# one line per ordered pair: "FROM TO GBITS" (iperf3's receiver figure, sum over the streams).
# Usage: bash bench/tcp_iperf3_pairs.sh TESTBED NODES STREAMS SECONDS   (root; the testbed up)
set -euo pipefail
testbed=${1:?testbed.sh} nodes=${2:?node count} streams=${3:?streams} seconds=${4:?seconds}
readonly port=5299
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run_direction "A B" ...: each A sends to its B, all at once.
run_direction() {
  local pair a b
  for pair in "$@"; do
    read -r a b <<<"$pair"
    "$testbed" exec "node$b" iperf3 -s -1 -B "$("$testbed" address "node$b")" -p "$port" >/dev/null 2>&1 &
  done
  sleep 0.5  # the servers listening
  for pair in "$@"; do
    read -r a b <<<"$pair"
    "$testbed" exec "node$a" iperf3 -c "$("$testbed" address "node$b")" -p "$port" -P "$streams" -t "$seconds" -J \
      >"$work/$a-$b.json" &
  done
  wait
  for pair in "$@"; do
    read -r a b <<<"$pair"
    python3 - "$work/$a-$b.json" "node$a" "node$b" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
if "error" in report:
    sys.exit(f"iperf3 {sys.argv[2]} -> {sys.argv[3]}: {report['error']}")
print(sys.argv[2], sys.argv[3], report["end"]["sum_received"]["bits_per_second"] / 1e9)
PY
  done
}

slots=$((nodes + nodes % 2))
turning=$((slots - 1))
for round in $(seq 0 $((turning - 1))); do
  forward=() backward=()
  add() {
    local a=$(($1 + 1)) b=$(($2 + 1))
    [ "$1" -lt "$nodes" ] && [ "$2" -lt "$nodes" ] || return 0
    [ "$a" -lt "$b" ] || { local t=$a; a=$b; b=$t; }
    forward+=("$a $b")
    backward+=("$b $a")
  }
  add "$round" $((slots - 1))
  for step in $(seq 1 $((slots / 2 - 1))); do
    add $(((round + step) % turning)) $(((round - step + turning) % turning))
  done
  run_direction "${forward[@]}"
  run_direction "${backward[@]}"
done
