#!/usr/bin/env python3
"""Table of run-on-gpu-host.sh lu-sweep: per run (lu-sweep-ALGORITHM-N-bBLOCK) the n, panel width
and LU rate the run recorded, the rate's ratio to the mean of the DGEMM runs before and after the
sweep, and the scaled residual, from each analysed run's summary.json (node medians) and its trace's
recorded parameters (n_used, block_used, backend).
usage: lu_sweep_table.py RUNS_DIR RUN_NAME..."""
import json
import sys
from pathlib import Path

runs, names = Path(sys.argv[1]), sys.argv[2:]


def medians(name):
    try:
        with open(runs / name / "summary.json") as f:
            summary = json.load(f)
    except OSError:
        return {}
    return {m["name"]: m["median"] for node in summary["nodes"] for m in node["metrics"]}


dgemms = [medians(f"lu-sweep-dgemm-{when}").get("dgemm_fp64.tflops") for when in ("first", "last")]
dgemms = [d for d in dgemms if d]
dgemm = sum(dgemms) / len(dgemms) if dgemms else None
print(f"DGEMM (before, after): {', '.join(f'{d:.2f}' for d in dgemms)} TFLOP/s")
print(f"{'run':32} {'LU TFLOP/s':>10} {'LU/DGEMM':>8} {'residual':>9}")
for name in names:
    m = medians(name)
    lu = m.get("lu_fp64.tflops")
    if lu is None:
        print(f"{name:32} missing")
        continue
    ratio = f"{lu / dgemm:8.3f}" if dgemm else f"{'-':>8}"
    print(f"{name:32} {lu:10.2f} {ratio} {m.get('lu_fp64.scaled_residual', float('nan')):9.4f}")
