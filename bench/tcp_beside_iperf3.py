#!/usr/bin/env python3
"""tcp_bandwidth's figure per ordered node pair beside iperf3's on the same pairs (bench/tcp_iperf3_pairs.sh
output, one or more passes). Prints a Markdown table and the median ratio; exits 1 when that median is
below MIN_RATIO.

Usage: tcp_beside_iperf3.py RUN_FOLDER MIN_RATIO IPERF3_LINES_FILE...
"""
import json
import re
import statistics
import subprocess
import sys


def matrix_rows(run_folder):
    """Rank 0's tcp_bandwidth samples as dicts, read with h5dump (HDF5's own tool)."""
    manifest = json.load(open(f"{run_folder}/run.json"))
    trace = f"{run_folder}/{manifest['ranks'][0]['trace']}"
    text = subprocess.run(["h5dump", "-d", "/tests/tcp_bandwidth/samples", "-w", "0", trace],
                          check=True, capture_output=True, text=True).stdout
    columns = re.findall(r'H5T_IEEE_F64LE "(\w+)";', text)
    values = [float(v) for v in re.findall(r"^\s*(-?[0-9.e+-]+|nan|inf),?\s*$", text.split("DATA {", 1)[1], re.M)]
    rows = [dict(zip(columns, values[i:i + len(columns)])) for i in range(0, len(values), len(columns))]
    node_of = {rank["rank"]: rank["node"] for rank in manifest["ranks"]}
    return [(node_of[int(r["src"])], node_of[int(r["dst"])], r["bandwidth_gbs"] * 8.0) for r in rows]


def main():
    run_folder, min_ratio, files = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    ours, theirs = {}, {}
    for src, dst, gbits in matrix_rows(run_folder):
        ours.setdefault((src, dst), []).append(gbits)
    for name in files:
        for line in open(name):
            src, dst, gbits = line.split()
            theirs.setdefault((src, dst), []).append(float(gbits))
    print("| pair | tcp_bandwidth Gbit/s | iperf3 Gbit/s | ratio |")
    print("|---|---|---|---|")
    ratios = []
    for pair in sorted(ours):
        if pair not in theirs:
            sys.exit(f"iperf3 did not measure {pair[0]} -> {pair[1]}")
        mine, reference = statistics.median(ours[pair]), statistics.median(theirs[pair])
        ratios.append(mine / reference)
        print(f"| {pair[0]} -> {pair[1]} | {mine:.2f} | {reference:.2f} | {ratios[-1]:.2f} |")
    median = statistics.median(ratios)
    print(f"median ratio {median:.3f} over {len(ratios)} pairs (lowest {min(ratios):.2f}, highest {max(ratios):.2f})")
    sys.exit(0 if median >= min_ratio else 1)


if __name__ == "__main__":
    main()
