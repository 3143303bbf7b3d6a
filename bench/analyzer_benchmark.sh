#!/usr/bin/env bash
# The analyzer benchmark of docs/benchmarks.md: generates synthetic runs (once; they are kept in
# WORK_DIR, with the generator's time in gen-N.txt) and times `shakedown-analyze --jobs J` on each
# with /usr/bin/time -v. Each run has one slow node (node 3) and one power-capped GPU (node 5,
# GPU 2), so the analysis does its whole work: thresholds, fleet references, localization of the
# slow ranks, telemetry explanations of two nodes, and every output (summary.json, junit.xml,
# report.html, drain.txt).
# Usage: bench/analyzer_benchmark.sh BUILD_DIR WORK_DIR [RANKS ...]   (default ranks: 4096 16384 81920)
# Environment: RANKS_PER_NODE (default 8: 10,240 nodes x 8 at 81,920), JOBS (reader processes to
# compare, default "1 2"), REPEATS (default 3), GEN_JOBS (the generator's writer processes, default 2).
# Peak RSS is /usr/bin/time's (the largest single process) and, beside it, the sum over the analyzer
# and its reader processes sampled every 0.2 s from /proc (what the machine must hold).
set -euo pipefail
build=$(realpath "$1")
work=$2
shift 2
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(4096 16384 81920)
per_node=${RANKS_PER_NODE:-8}
jobs_list=(${JOBS:-1 2})
repeats=${REPEATS:-3}
gen_jobs=${GEN_JOBS:-2}
mkdir -p "$work"
cd "$work"

# Resident KiB of a process and its children, summed: the analyzer forks its readers.
tree_rss_kib() {
  local pid=$1 total=0 child
  total=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  for child in $(cat "/proc/$pid/task/"*/children 2>/dev/null); do
    total=$((total + $(tree_rss_kib "$child")))
  done
  echo "${total:-0}"
}

echo "host: $(hostname), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(date -u +%FT%TZ)"
for n in "${ranks[@]}"; do
  if [ ! -f "r$n/run.json" ]; then
    /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB peak" -o "gen-$n.txt" \
      "$build/bench/shakedown-synthetic-run" "r$n" --ranks "$n" --ranks-per-node "$per_node" --slow-node 3 \
      --throttled-gpu 5,2 --jobs "$gen_jobs"
    echo "  generated with --jobs $gen_jobs: $(cat "gen-$n.txt"), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  fi
  echo "ranks $n ($per_node per node): $(du -sh "r$n" | cut -f1) on disk"
  for jobs in "${jobs_list[@]}"; do
    for attempt in $(seq "$repeats"); do
      before=$(cut -d' ' -f1 /proc/loadavg)
      set +e
      /usr/bin/time -v -o "time-$n-j$jobs.txt" "$build/analysis/shakedown-analyze" "r$n" --quiet --jobs "$jobs" \
        --summary "summary-$n-j$jobs.json" >/dev/null &
      timer=$!
      peak_tree=0
      while kill -0 "$timer" 2>/dev/null; do
        analyzer=$(cat "/proc/$timer/task/"*/children 2>/dev/null | awk '{print $1; exit}')
        if [ -n "$analyzer" ]; then
          now=$(tree_rss_kib "$analyzer")
          [ "$now" -gt "$peak_tree" ] && peak_tree=$now
        fi
        sleep 0.2
      done
      wait "$timer"
      code=$?
      set -e
      after=$(cut -d' ' -f1 /proc/loadavg)
      awk -v n="$n" -v jobs="$jobs" -v code="$code" -v tree="$peak_tree" -v load="$before -> $after" -F': ' '
        /Elapsed/ {split($2, t, ":"); wall = t[1] * 60 + t[2]}
        /User time/ {user = $2} /System time/ {sys = $2}
        /Maximum resident/ {rss = $2 / 1024}
        END {printf "  ranks %6d  -j%d  wall %7.2f s  cpu %7.2f s (user %.2f, sys %.2f)  peak rss %6.1f MiB (all processes %6.1f MiB)  exit %d  load %s\n",
             n, jobs, wall, user + sys, user, sys, rss, tree / 1024, code, load}' "time-$n-j$jobs.txt"
    done
  done
  # The same judgement whatever the number of reader processes: summary.json but its time stamp.
  first="summary-$n-j${jobs_list[0]}.json"
  for jobs in "${jobs_list[@]:1}"; do
    if cmp -s <(grep -v '"analyzed_utc"' "$first") <(grep -v '"analyzed_utc"' "summary-$n-j$jobs.json"); then
      echo "  summary.json of -j${jobs_list[0]} and -j$jobs: identical but for analyzed_utc"
    else
      echo "  summary.json of -j${jobs_list[0]} and -j$jobs DIFFER"
    fi
  done
done
