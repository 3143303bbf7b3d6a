#!/usr/bin/env bash
# train_step on the 4-node virtual cluster (slurm/testbed/testbed.sh), the way an operator runs it:
# `shakedown slurm submit --wait` on node[1-4], the job's own confirmation step included. RUNS
# jobs, healthy or with one node's link shaped (SHAPE=node2:50mbit); per job the exit code, the
# verdict, what drained, the job's efficiency against its prediction, the node-link figures and
# the step scatter. Root only; brings the testbed up and down.
# Usage: bash bench/cluster_train_runs.sh BUILD_DIR [RUNS] [RANKS_PER_NODE] [SHAPE]
set -euo pipefail
build=$(readlink -f "${1:?build folder}")
runs=${2:-5}
per_node=${3:-1}
shape=${4:-}
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
out=$shared/runs/train
rm -rf "$out"
mkdir -p "$out"
cat >"$out/train.yaml" <<'YAML'
params:
  train_step: {model: custom, hidden: 64, ffn: 128, heads: 4, kv_heads: 2, layers: 2, sequence: 64, steps: 4,
               warmup_steps: 1, allreduce_repetitions: 3}
YAML
[ -n "$shape" ] && "$testbed" limit-rate "${shape%%:*}" "${shape#*:}" >/dev/null
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
export OMPI_MCA_mpi_yield_when_idle=1 UCX_TLS=tcp UCX_NET_DEVICES=eth0
echo "| run | job s | exit | verdict | drained | job efficiency / predicted | node links min / median (GB/s) | step scatter (median) | findings |"
echo "|---|---|---|---|---|---|---|---|---|"
for run in $(seq "$runs"); do
  started=$SECONDS
  set +e
  output=$("$stage/shakedown-slurm-cli" slurm submit --wait --nodes 4 --nodelist 'node[1-4]' --partition debug --time 8 \
    --suite quick --ranks-per-node "$per_node" --out "$out" --launcher srun --shakedown "$stage/shakedown" \
    --analyzer "$stage/shakedown-analyze" --analyzer-args "--thresholds $stage/virtual_cluster_thresholds.yaml" \
    --config "$out/train.yaml" --run-args "--tests train_step" 2>&1)
  status=$?
  set -e
  job=$(sed -n 's/.*submitted job \([0-9]*\).*/\1/p' <<<"$output")
  folder=$out/quick-job$job
  summary=$folder/summary.json
  if [ -s "$summary" ]; then
    row=$(python3 - "$summary" <<'PY'
import json, sys, statistics
s = json.load(open(sys.argv[1]))
w = s.get("workload") or {}
job = [r for r in w.get("scaling", []) if r["scope"].startswith("job")]
eff = f'{job[0]["efficiency"]:.3g} / {job[0]["predicted"]:.3g}' if job else "-"
found = []
for node in s.get("nodes", []):
    for f in node.get("findings", []):
        found.append(f'{node["node"]} {f["level"]} {f.get("code")}: {f["reason"][:90]}')
print(f'{s["verdict"]} | {eff} | {"; ".join(found) or "-"}')
PY
)
    links=$("$stage/shakedown-analyze" export "$folder" --format csv 2>/dev/null |
      awk -F, '$6=="train_step.node_link_gbs"{print $8} ' | sort -g | awk '{a[NR]=$1} END{if(NR) printf "%.3g / %.3g", a[1], a[int((NR+1)/2)]; else printf "-"}')
    noise=$("$stage/shakedown-analyze" export "$folder" --format csv 2>/dev/null |
      awk -F, '$6=="train_step.step_noise"{print $8}' | sort -g | awk '{a[NR]=$1} END{if(NR) printf "%.3g", a[int((NR+1)/2)]; else printf "-"}')
  else
    row="no summary | - | -"; links="-"; noise="-"
  fi
  drained=$(grep -o 'NodeName=[a-z0-9]*' "$folder/drain.txt" 2>/dev/null | sed 's/NodeName=//' | paste -sd, - || true)
  verdict=${row%% | *}; rest=${row#* | }; eff=${rest%% | *}; findings=${rest#* | }
  echo "| $run | $((SECONDS - started)) | $status | $verdict | ${drained:-none} | $eff | $links | $noise | $findings |"
done
