#!/usr/bin/env bash
# The analyzer benchmark of docs/benchmarks.md: generates synthetic runs (once; they are kept in
# WORK_DIR) and times `shakedown-analyze` on each three times with /usr/bin/time -v. Each run has
# one slow node (node 3) and one power-capped GPU (node 5, GPU 2), so the analysis does its whole
# work: thresholds, fleet references, localization of the slow ranks, telemetry explanations of
# two nodes, and every output (summary.json, junit.xml, report.html, drain.txt).
# Usage: bench/analyzer_benchmark.sh BUILD_DIR WORK_DIR [RANKS ...]   (default ranks: 256 1024 4096)
set -euo pipefail
build=$(realpath "$1")
work=$2
shift 2
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(256 1024 4096)
mkdir -p "$work"
cd "$work"

echo "host: $(hostname), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(date -u +%FT%TZ)"
for n in "${ranks[@]}"; do
  if [ ! -f "r$n/run.json" ]; then
    "$build/bench/shakedown-synthetic-run" "r$n" --ranks "$n" --ranks-per-node 4 --slow-node 3 --throttled-gpu 5,2
  fi
  echo "ranks $n: $(du -sh "r$n" | cut -f1) on disk, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  for attempt in 1 2 3; do
    set +e
    /usr/bin/time -v -o "time-$n.txt" "$build/analysis/shakedown-analyze" "r$n" --quiet --summary "summary-$n.json" >/dev/null
    code=$?
    set -e
    awk -v n="$n" -v code="$code" -F': ' '
      /Elapsed/ {split($2, t, ":"); wall = t[1] * 60 + t[2]}
      /User time/ {user = $2} /System time/ {sys = $2}
      /Maximum resident/ {rss = $2 / 1024}
      END {printf "  ranks %5d  wall %6.2f s  cpu %6.2f s (user %.2f, sys %.2f)  peak rss %5.1f MiB  exit %d\n",
           n, wall, user + sys, user, sys, rss, code}' "time-$n.txt"
  done
done
