#!/usr/bin/env bash
# shakedown's p2p against the OSU micro-benchmarks 7.4 on the same 2 ranks, interleaved round by
# round (OSU latency, bw, bibw, then shakedown p2p with the same iterations and window), so both
# see the same machine state. Prints, per message size, the median over rounds of each figure
# and shakedown / OSU. OSU is built outside the repo:
#   tar -xzf "$THIRD_PARTY"/osu-micro-benchmarks-7.4.tar.gz -C /tmp/osu   (the shared source archives)
#   (cd /tmp/osu/osu-micro-benchmarks-7.4 && ./configure CC=mpicc CXX=mpicxx && make -C c/mpi/pt2pt)
# Usage: bash bench/osu_comparison.sh BUILD_DIR OSU_PT2PT_DIR [ROUNDS] [OUT_DIR]
# OSU reports the mean half round trip of its loop; shakedown's latency is the median of its
# batch means (iterations / 100 per batch).
set -euo pipefail
build=${1:?build folder}
osu=${2:?OSU c/mpi/pt2pt/standard folder}
rounds=${3:-5}
out=${4:-$(mktemp -d /tmp/osu-comparison.XXXXXX)}
mkdir -p "$out"
root_flags=()
[ "$(id -u)" -eq 0 ] && root_flags=(--allow-run-as-root)
launch=(mpirun -np 2 "${root_flags[@]}" --mca btl self,vader)
for round in $(seq 1 "$rounds"); do
  "${launch[@]}" "$osu/osu_latency" -m 1:4194304 >"$out/latency-$round.txt"
  "${launch[@]}" "$osu/osu_bw" -m 1:4194304 >"$out/bw-$round.txt"
  "${launch[@]}" "$osu/osu_bibw" -m 1:4194304 >"$out/bibw-$round.txt"
  "${launch[@]}" "$build/src/driver/shakedown" run --tests p2p --no-telemetry --out "$out" --name "p2p-$round" \
    --progress lines >/dev/null
  h5dump -d /tests/p2p/samples -y -w 0 "$out/p2p-$round/traces/00000-00999/rank-00000.h5" >"$out/p2p-$round.txt"
done
python3 - "$out" "$rounds" <<'PY'
import math, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def osu(kind, r):
    rows = {}
    for line in open(f"{out}/{kind}-{r}.txt"):
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit(): rows[int(parts[0])] = float(parts[1])
    return rows
def shakedown(r):  # h5dump text of the samples: one {...} block of 9 numbers per row, columns as p2p declares
    text = open(f"{out}/p2p-{r}.txt").read()
    rows = {}
    for block in text[text.index("   DATA {") + 9:].split("}")[:-1]:
        numbers = re.findall(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)", block)
        if len(numbers) != 9: continue
        size, peer, intra, lmin, lmed, lp99, bw, bibw, rate = map(float, numbers)
        size = 1 << round(math.log2(size))  # h5dump prints 1048576 as 1.04858e+06; the sweep is powers of 2
        rows[size] = (lmed, bw * 1e3, bibw * 1e3)  # GB/s -> MB/s, as OSU prints
    return rows
sizes = sorted(shakedown(1))
print("size_B  osu_lat_us  sd_lat_us  ratio  osu_bw_MBs  sd_bw_MBs  ratio  osu_bibw_MBs  sd_bibw_MBs  ratio")
for size in sizes:
    med = lambda xs: statistics.median(xs)
    ol = med([osu("latency", r)[size] for r in range(1, rounds + 1)])
    ob = med([osu("bw", r)[size] for r in range(1, rounds + 1)])
    obb = med([osu("bibw", r)[size] for r in range(1, rounds + 1)])
    sl = med([shakedown(r)[size][0] for r in range(1, rounds + 1)])
    sb = med([shakedown(r)[size][1] for r in range(1, rounds + 1)])
    sbb = med([shakedown(r)[size][2] for r in range(1, rounds + 1)])
    print(f"{size:>7} {ol:>10.2f} {sl:>10.2f} {sl/ol:>6.2f} {ob:>11.1f} {sb:>10.1f} {sb/ob:>6.2f} {obb:>13.1f} {sbb:>12.1f} {sbb/obb:>6.2f}")
PY
echo "raw outputs: $out"
