#!/usr/bin/env bash
# checkpoint_io beside fio (Debian's package) on the same target, pattern and rank count,
# interleaved round by round so both see the same disk state:
# - the checkpoint: N writers at once, each its own file of SHARD_MIB in BLOCK_KIB transfers,
#   O_DIRECT, fsync at the end; then the same files read back (fio: numjobs=N, rw=write with
#   end_fsync=1, then rw=read; group_reporting's bandwidth is every job's bytes over the slowest
#   job's time, as shakedown's job_save_gbs / job_restore_gbs are);
# - the training input: every writer's FILES files of FILE_KIB read whole in a random order
#   (fio: nrfiles, bs = filesize, file_service_type=random, openfiles=1, so each read opens its
#   file as shakedown's does; files/s against job_sample_reads_per_s).
# Prints per rank count the median over rounds of each figure and shakedown / fio.
# fio's psync job moves every block through one buffer of its own; shakedown writes from the shard in
# memory and reads into it, as a checkpoint does. Where the storage treats the two alike the figures
# agree; a virtual disk that does not (docs/benchmarks.md) gives several writers more from distinct memory.
# Usage: bash bench/checkpoint_fio_comparison.sh BUILD_DIR TARGET_DIR [ROUNDS] [RANKS...]
# Environment: SHARD_MIB (256), BLOCK_KIB (1024), FILES (256), FILE_KIB (128); SHAKEDOWN and
# SHAKEDOWN_ANALYZE name the binaries where they are not in BUILD_DIR (a runtime bundle's bin).
set -euo pipefail
build=${1:?build folder}
target=${2:?a folder on the storage to measure}
rounds=${3:-3}
rank_counts=(1 2 4)
[ $# -gt 3 ] && rank_counts=("${@:4}")
shard_mib=${SHARD_MIB:-256}
block_kib=${BLOCK_KIB:-1024}
files=${FILES:-256}
file_kib=${FILE_KIB:-128}
driver=${SHAKEDOWN:-$build/src/driver/shakedown}
analyzer=${SHAKEDOWN_ANALYZE:-$build/analysis/shakedown-analyze}
out=$(mktemp -d "$target/checkpoint-fio.XXXXXX")
trap 'rm -rf "$out"' EXIT
root_flags=()
[ "$(id -u)" -eq 0 ] && root_flags=(--allow-run-as-root)
cat >"$out/c.yaml" <<YAML
params:
  checkpoint_io: {target: '$out', shard_mib: $shard_mib, block_kib: $block_kib, sample_files: $files, sample_kib: $file_kib}
YAML
results="$out/results.txt"
: >"$results"
for ranks in "${rank_counts[@]}"; do
  for round in $(seq 1 "$rounds"); do
    fio_dir="$out/fio"
    mkdir -p "$fio_dir"
    # fallocate=none: fio preallocates a new file by default, which shakedown's writer does not.
    common=(--directory="$fio_dir" --numjobs="$ranks" --group_reporting --output-format=json --ioengine=psync --direct=1
      --fallocate=none)
    fio --name=save "${common[@]}" --rw=write --size="${shard_mib}M" --bs="${block_kib}k" --end_fsync=1 >"$out/save.json"
    fio --name=save "${common[@]}" --rw=read --size="${shard_mib}M" --bs="${block_kib}k" >"$out/restore.json"
    rm -rf "$fio_dir"/*
    fio --name=samples "${common[@]}" --rw=write --nrfiles="$files" --filesize="${file_kib}k" --bs="${file_kib}k" \
      --fsync=1 >/dev/null
    fio --name=samples "${common[@]}" --rw=read --nrfiles="$files" --filesize="${file_kib}k" --bs="${file_kib}k" \
      --file_service_type=random --openfiles=1 >"$out/samples.json"
    rm -rf "$fio_dir"
    name="r$ranks-$round"
    mpirun -np "$ranks" "${root_flags[@]}" --oversubscribe "$driver" run --tests checkpoint_io \
      --config "$out/c.yaml" --no-telemetry --out "$out" --name "$name" --progress lines >/dev/null
    "$analyzer" "$out/$name" >/dev/null
    python3 - "$out" "$name" "$ranks" >>"$results" <<'PY'
import json, sys
out, name, ranks = sys.argv[1], sys.argv[2], sys.argv[3]
def fio(file, side, key):
    job = json.load(open(f"{out}/{file}.json"))["jobs"][0][side]
    return job[key]
metrics = {m["name"]: m["median"] for node in json.load(open(f"{out}/{name}/summary.json"))["nodes"] for m in node["metrics"]}
print(ranks, fio("save", "write", "bw_bytes") * 1e-9, metrics["checkpoint_io.job_save_gbs"],
      fio("restore", "read", "bw_bytes") * 1e-9, metrics["checkpoint_io.job_restore_gbs"],
      fio("samples", "read", "iops"), metrics["checkpoint_io.job_sample_reads_per_s"])
PY
    rm -rf "${out:?}/$name"
  done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
print("ranks  fio_save_GBs  sd_save_GBs  ratio  fio_restore_GBs  sd_restore_GBs  ratio  fio_samples_per_s  sd_samples_per_s  ratio")
for ranks in sorted({row[0] for row in rows}, key=int):
    med = lambda i: statistics.median(float(row[i]) for row in rows if row[0] == ranks)
    print(f"{ranks:>5} {med(1):>13.3f} {med(2):>12.3f} {med(2)/med(1):>6.2f} {med(3):>16.3f} {med(4):>15.3f} {med(4)/med(3):>6.2f}"
          f" {med(5):>18.0f} {med(6):>17.0f} {med(6)/med(5):>6.2f}")
PY
