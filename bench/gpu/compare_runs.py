#!/usr/bin/env python3
"""Prints every metric two analysed runs share, with the ratio B/A (their summary.json node medians).
Used for the passive-health overhead: A with the sources, B without (bench/gpu/run-on-gpu-host.sh)."""
import json
import sys


def medians(run):
    with open(f"{run}/summary.json") as f:
        summary = json.load(f)
    return {m["name"]: m["median"] for node in summary["nodes"] for m in node["metrics"]}


a, b = medians(sys.argv[1]), medians(sys.argv[2])
print(f"{'metric':48} {'A':>12} {'B':>12} {'B/A':>7}")
for name in sorted(set(a) & set(b)):
    if a[name]:
        print(f"{name:48} {a[name]:12.5g} {b[name]:12.5g} {b[name] / a[name]:7.3f}")
