#!/usr/bin/env python3
"""The analyzer's energy figures beside the same figures computed by hand from nvidia-smi.

Usage: energy_check.py NVIDIA_SMI_CSV SUMMARY_JSON...

NVIDIA_SMI_CSV is `nvidia-smi --query-gpu=timestamp,index,power.draw,power.draw.average,
power.draw.instant --format=csv,noheader,nounits -lms 100` run beside the shakedown runs (its
timestamps are the host's local time, which must be UTC). For every energy entry of every
summary.json, the mean of each nvidia-smi power column over the entry's timed phase, the ratio of
the analyzer's mean power to it, and the joules per unit recomputed from it."""
import csv
import datetime
import json
import sys


def read_smi(path):
    rows = []
    with open(path) as f:
        for fields in csv.reader(f):
            if len(fields) < 5:
                continue
            try:
                stamp = datetime.datetime.strptime(fields[0].strip(), "%Y/%m/%d %H:%M:%S.%f")
                t = stamp.replace(tzinfo=datetime.timezone.utc).timestamp()
                values = [float(v) if v.strip() not in ("[N/A]", "N/A", "") else None for v in fields[2:5]]
            except ValueError:
                continue
            rows.append((t, int(fields[1]), values))
    return rows


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def main():
    smi = read_smi(sys.argv[1])
    names = ["power.draw", "power.draw.average", "power.draw.instant"]
    print(f"nvidia-smi rows: {len(smi)}")
    print("| run | test | phase s | shakedown W (source) | readings W | " + " | ".join(f"nvidia-smi {n} W (n)" for n in names)
          + " | ratio to power.draw | J per unit, shakedown | J per unit from power.draw |")
    print("|---" * (7 + len(names)) + "|")
    for path in sys.argv[2:]:
        summary = json.load(open(path))
        for entry in summary.get("energy", []):
            if entry["phase_start_utc"] is None:
                continue
            start, end = entry["phase_start_utc"], entry["phase_end_utc"]
            gpu = entry["gpu"] if entry["gpu"] is not None else 0
            inside = [values for t, index, values in smi if start <= t <= end and index == gpu]
            means = [mean([v[i] for v in inside]) for i in range(3)]
            ours = entry["power_w"]
            ratio = ours / means[0] if ours and means[0] else None
            per_unit = ", ".join(f"{j:.4g} J/{u}" for u, j in entry["joules_per_unit"].items()) or "-"
            hand = ", ".join(f"{j / ours * means[0]:.4g} J/{u}" for u, j in entry["joules_per_unit"].items()) if ratio else "-"
            print(f"| {summary['run_id']} | {entry['test']} | {end - start:.2f} | "
                  f"{ours if ours is None else round(ours, 1)} ({entry['power_source'] or entry['not_measured']}) | "
                  f"{entry['power_readings_w'] if entry['power_readings_w'] is None else round(entry['power_readings_w'], 1)} | "
                  + " | ".join(f"{m if m is None else round(m, 1)} ({len(inside)})" for m in means)
                  + f" | {ratio if ratio is None else round(ratio, 4)} | {per_unit} | {hand} |")


if __name__ == "__main__":
    main()
