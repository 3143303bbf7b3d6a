#!/usr/bin/env bash
# congestion end to end with the real driver and analyzer: 4 ranks on this node under mpirun.
# A healthy run is not flagged (the analyzer exits 0: no FAIL; WARN is allowed, as on any loaded
# machine); rank 2 sleeping before each congested-phase send FAILs the node by name (exit 1).
# With fewer cores than ranks, a rank waits for a core as often as for the network, and beside
# any other load a healthy p50 impact of 488x was seen: there both runs are judged with bands
# 100x/1000x instead of the product's 4x/10x, and the planted sleep is 20 ms instead of 1 ms
# (a healthy p50 here is a few microseconds, so that is an impact of several thousand).
# usage: congestion_e2e.sh SHAKEDOWN SHAKEDOWN_ANALYZE MPIEXEC [MPIEXEC_FLAGS...]
set -euo pipefail
shakedown=$1 analyze=$2
shift 2
mpiexec=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node=$(hostname)

run() {  # name, config text
    printf '%s\n' "$2" > "$work/$1.yaml"
    "${mpiexec[@]}" -np 4 "$shakedown" run --tests congestion --config "$work/$1.yaml" --out "$work" --name "$1" \
        --no-telemetry --progress lines > "$work/$1.run.txt" 2>&1
}

# The congestion findings of a run, one line each: "LEVEL node reason".
findings() {
    python3 -c '
import json, sys
summary = json.load(open(sys.argv[1]))
for node in summary["nodes"]:
    for finding in node.get("findings", []):
        if finding.get("test") == "congestion":
            print(finding["level"], node["node"], finding["reason"])
' "$work/$1/summary.json"
}

judge=()
delay=0.001
if [ "$(nproc)" -lt 4 ]; then
    printf 'metrics: {}\ncongestion: {warn_impact: 100, fail_impact: 1000}\n' > "$work/oversubscribed.yaml"
    judge=(--thresholds "$work/oversubscribed.yaml")
    delay=0.02
    echo "$(nproc) cores for 4 ranks: bands 100x/1000x, planted sleep ${delay} s"
fi

run healthy 'params: {congestion: {latency_iterations: 100}}'
status=0
"$analyze" "$work/healthy" "${judge[@]}" > "$work/healthy.txt" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    echo "FAIL: a healthy congestion run gave exit $status"; cat "$work/healthy.txt"; exit 1
fi
echo "healthy: exit 0; congestion findings: $(findings healthy | wc -l)"

run delayed 'params: {congestion: {latency_iterations: 100}}
faults: [{kind: delay, test: congestion, rank: 2, seconds: '"$delay"'}]'
status=0
"$analyze" "$work/delayed" "${judge[@]}" > "$work/delayed.txt" 2>&1 || status=$?
if [ "$status" -ne 1 ]; then
    echo "FAIL: the delayed run gave exit $status, wanted 1"; cat "$work/delayed.txt"; exit 1
fi
found=$(findings delayed)
echo "delayed: exit 1; $found"
if ! grep -q "^fail $node $node's links degrade under load: its p50 ring latency is" <<< "$found"; then
    echo "FAIL: no congestion FAIL naming $node"; exit 1
fi
echo PASS
