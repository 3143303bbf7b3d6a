#!/usr/bin/env python3
"""Table of run-on-gpu-host.sh lu-lookahead: per run (lu-cusolver-N and lu-lookahead-N alternating,
then the block sweep) the LU rate, DGEMM's rate in the same run, LU/DGEMM and the scaled residual,
from each analysed run's summary.json (node medians); then lookahead/cusolver per round.
usage: lu_lookahead_table.py RUNS_DIR ROUNDS"""
import json
import statistics
import sys
from pathlib import Path

runs, rounds = Path(sys.argv[1]), int(sys.argv[2])


def medians(name):
    try:
        with open(runs / name / "summary.json") as f:
            summary = json.load(f)
    except OSError as error:
        return {"error": str(error)}
    return {m["name"]: m["median"] for node in summary["nodes"] for m in node["metrics"]}


names = [f"lu-{algorithm}-{i}" for i in range(1, rounds + 1) for algorithm in ("cusolver", "lookahead")]
names += ["lu-lookahead-block512", "lu-lookahead-block2048", "lu-lookahead-small", "lu-lookahead-one-panel"]
print(f"{'run':26} {'LU TFLOP/s':>10} {'min':>7} {'max':>7} {'DGEMM':>7} {'LU/DGEMM':>8} {'residual':>9}")
ratios = {"cusolver": [], "lookahead": []}
for name in names:
    m = medians(name)
    if "error" in m:
        print(f"{name:26} missing: {m['error']}")
        continue
    lu, dgemm = m.get("lu_fp64.tflops"), m.get("dgemm_fp64.tflops")
    ratio = lu / dgemm if lu and dgemm else None
    for algorithm in ratios:
        if name.startswith(f"lu-{algorithm}-") and name[-1].isdigit() and "block" not in name and ratio:
            ratios[algorithm].append((lu, ratio))

    def show(value, width, digits):
        return f"{value:{width}.{digits}f}" if value is not None else f"{'-':>{width}}"

    print(f"{name:26} {show(lu, 10, 2)} {show(m.get('lu_fp64.tflops_min'), 7, 2)} {show(m.get('lu_fp64.tflops_max'), 7, 2)} "
          f"{show(dgemm, 7, 2)} {show(ratio, 8, 3)} {show(m.get('lu_fp64.scaled_residual'), 9, 4)}")
for algorithm, values in ratios.items():
    if values:
        print(f"{algorithm}: median LU {statistics.median(v[0] for v in values):.2f} TFLOP/s, "
              f"median LU/DGEMM {statistics.median(v[1] for v in values):.3f} over {len(values)} rounds")
if ratios["cusolver"] and ratios["lookahead"]:
    speedup = statistics.median(v[0] for v in ratios["lookahead"]) / statistics.median(v[0] for v in ratios["cusolver"])
    print(f"lookahead/cusolver LU rate: {speedup:.3f} (target LU/DGEMM >= 0.80)")
