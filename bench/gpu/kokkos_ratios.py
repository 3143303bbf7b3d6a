#!/usr/bin/env python3
"""Table of kokkos/native ratios from run-on-gpu-host.sh kokkos: summary.json of the
kokkos-native-N and kokkos-kokkos-N runs (interleaved rounds), medians per round, then the
median ratio with its targets.  usage: kokkos_ratios.py RUNS_DIR ROUNDS"""
import json
import statistics
import sys
from pathlib import Path

runs, rounds = Path(sys.argv[1]), int(sys.argv[2])
# metric, what it is, target for kokkos/native (None: shown only)
rows = [
    ("stream.copy_gbs", "STREAM copy GB/s", None),
    ("stream.scale_gbs", "STREAM scale GB/s", None),
    ("stream.add_gbs", "STREAM add GB/s", None),
    ("stream.triad_gbs", "STREAM triad GB/s", 0.95),
    ("stream.dot_gbs", "STREAM dot GB/s", None),
    ("dgemm_fp64.tflops", "DGEMM TFLOP/s", 0.98),
    ("stencil3d.gcells_per_s", "stencil Gcells/s", None),
]


def metrics(name):
    path = runs / name / "summary.json"
    try:
        summary = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        print(f"{name}: no summary.json ({error})")
        return {}, []
    values, waived = {}, []
    for node in summary.get("nodes", []):
        for metric in node.get("metrics", []):
            values[metric["name"]] = metric["median"]
        waived += [f'{w["test"]}: {w["reason"]}' for w in node.get("waived", [])]
    return values, waived


native, kokkos = [], []
for i in range(1, rounds + 1):
    for side, store in (("native", native), ("kokkos", kokkos)):
        values, waived = metrics(f"kokkos-{side}-{i}")
        store.append(values)
        for line in waived:
            print(f"kokkos-{side}-{i} waived {line}")

print(f"\n{'metric':<22} {'native':>10} {'kokkos':>10} {'kokkos/native':>14} {'target':>8}  per round")
for key, label, target in rows:
    pairs = [(n[key], k[key]) for n, k in zip(native, kokkos) if key in n and key in k and n[key] > 0]
    if not pairs:
        print(f"{label:<22} {'-':>10} {'-':>10} {'-':>14}")
        continue
    ratios = [k / n for n, k in pairs]
    ratio = statistics.median(ratios)
    verdict = "" if target is None else (" ok" if ratio >= target else " BELOW")
    print(f"{label:<22} {statistics.median(n for n, _ in pairs):>10.4g} {statistics.median(k for _, k in pairs):>10.4g} "
          f"{ratio:>14.3f} {'' if target is None else f'>= {target}':>8}{verdict}  {' '.join(f'{r:.3f}' for r in ratios)}")
# The stencil's own target is its bandwidth bound (triad), not the native stencil.
for side, store in (("native", native), ("kokkos", kokkos)):
    fractions = [v["stencil3d.bandwidth_bound_fraction"] for v in store if "stencil3d.bandwidth_bound_fraction" in v]
    if fractions:
        target = "  (target kokkos >= 0.80)" if side == "kokkos" else ""
        print(f"stencil {side} fraction of its triad bound: {statistics.median(fractions):.3f}{target}  "
              f"per round {' '.join(f'{f:.3f}' for f in fractions)}")
