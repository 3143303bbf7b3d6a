#!/usr/bin/env bash
# Runs shakedown's GPU work on the GPU host from a runtime bundle made here:
#   bash bench/gpu/make-bundle.sh            # here: builds (sm_90, probes too) and packs .device-rt/rt.tar.xz
#   bash bench/gpu/run-on-gpu-host.sh PART...  # there: PART = kernels | comm | probe | health | all
#                                               | gemm-probe | gemm-timeline | stencil-probe (tuning probes)
#                                               | checks (tuned kernels on odd shapes)
#                                               | ladder-spread (the ladder alone, 3 runs each cool-down)
#                                               | stencil-auto (halo_path auto on 1, 2 and 4 ranks)
#                                               | stencil-shared (auto with ranks sharing GPUs)
#                                               | remeasure (1 GPU: kernels again, stencil 100 steps, h2d)
#                                               | verdict (the quick suite on 1 rank, then 2 ranks sharing GPU 0)
#                                               | lu (lu_fp64 beside dgemm_fp64 per GPU, a planted corruption,
#                                                 the host LU over 4 ranks)
#                                               | lu-lookahead (1 GPU, n 48384: gpu_algorithm cusolver and lookahead
#                                                 alternating, LU_ROUNDS (2) rounds, then lookahead with block 512 and
#                                                 2048, small n, one panel and a planted corruption; a table by
#                                                 bench/gpu/lu_lookahead_table.py)
#                                               | lu-sweep (1 GPU: cusolver and lookahead at each n of LU_SWEEP_N
#                                                 (48384 65536 81920 94208), one repetition, DGEMM before and after,
#                                                 or the runs LU_SWEEP_RUNS names ("lookahead:94208:512 ...");
#                                                 a table by bench/gpu/lu_sweep_table.py)
#                                               | kokkos (1 GPU: stream, stencil3d, dgemm_fp64 with backend native
#                                                 and backend kokkos, alternating, 3 rounds; a kokkos/native table.
#                                                 Needs a bundle made with SHAKEDOWN_KOKKOS_ROOT=/opt/kokkos-cuda)
#                                               | kokkos-probe (1 GPU, < 60 s: Kokkos STREAM launch variants and
#                                                 stencil MDRange tiles / policies against a plain CUDA triad,
#                                                 bench/gpu/kokkos_probe.cpp; same bundle as kokkos)
#                                               | cg (cg_fp64 beside stream on 1 GPU, a planted halo corruption,
#                                                 2 GPUs with halo_path auto (nccl) and host)
#                                               | fp64 (1 GPU: the FP64 tests of the full suite together, dgemm_fp64,
#                                                 lu_fp64, cg_fp64, gemm_ladder with the emulated rungs, analysed
#                                                 with the FP64 capability section as markdown; lu_fp64 at n 48384)
#                                               | health2-1gpu (the same on one GPU: memtest healthy and planted, then
#                                                 the quick suite with and without telemetry.passive_health)
#                                               | health-overhead (1 GPU: the quick suite with and without
#                                                 telemetry.passive_health, alternating, HEALTH_ROUNDS pairs)
#                                               | health2 (NVML health sources and PCIe AER read for real, every value
#                                                 or the NVML return code; gpu_memtest over 90 % of free HBM, 2 GPUs,
#                                                 rank 1 with a planted flipped bit)
#                                               | train (train_step on 1 GPU beside PyTorch's step of the same layers
#                                                 (bench/gpu/train_step_torch.py), TRAIN_ROUNDS rounds interleaved; then
#                                                 the batched-GEMM attention beside torch's explicit one, and a planted
#                                                 corrupted gradient; cuDNN from PyTorch's packages)
#                                               | calibrate (1 GPU: the reference runs of a part's calibration: the
#                                                 quick suite 3 times, DGEMM with small integers 3 times; shakedown-
#                                                 analyze calibrate reads them) | calibrate-fp64 (the full suite's FP64
#                                                 tests 3 times, for the same)
#                                               | calibration-check (1 GPU: runs judged against that calibration: the
#                                                 quick suite twice, the FP64 tests once, a planted slow DGEMM)
#                                               | host-bounds (one host rank's stencil and CG at local_n 128 and 256,
#                                                 and against a 2 GiB triad: cache-resident or not)
#                                               | science-host (stencil3d and cg_fp64 on the host's cores, 1, 2, 4
#                                                 and 8 ranks, one per core: their weak scaling and prediction)
#                                               | checkpoint-host (checkpoint_io on the host's disk, 1, 4 and 8
#                                                 ranks; beside fio where the host has it)
#                                               | energy (1 GPU: dgemm_fp64, lu_fp64 and train_step with long timed phases, at
#                                                 their defaults, and the quick suite, beside nvidia-smi's power
#                                                 sampled every 100 ms; bench/gpu/energy_check.py compares)
#                                               | sdc (sdc_dgemm on 1 GPU healthy and with a planted flipped bit,
#                                                 then on every GPU of the host: the node's checksums compared)
# Figures and logs go to $OUT (the device tool's output folder) or ./gpu-out.
# Never changes clocks, power limits or modes; NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -uo pipefail
parts=" ${*:-all} "
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
tar -xJf "$here/.device-rt/rt.tar.xz" -C /tmp
# shellcheck disable=SC1091
source /tmp/rt/env.sh
bin=/tmp/rt/bin  # the bundle's binaries: shakedown, the test binaries, the probes
export NCCL_NVLS_ENABLE=0
runs=/tmp/shakedown-gpu-runs
mkdir -p "$runs"
gpus=$(nvidia-smi -L | wc -l)
log() { echo "== $(date -u +%FT%TZ) $*" | tee -a "$out/log.txt"; }
# train_step's fused attention loads cuDNN at run time: the one PyTorch's packages bring (the
# bundle carries none), for every part (the quick suite runs train_step too).
cudnn_lib=$(find / -name 'libcudnn.so.9' -path '*nvidia/cudnn/lib*' 2>/dev/null | head -n 1)
log "cuDNN for train_step: ${cudnn_lib:-none found}"
[ -n "$cudnn_lib" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$cudnn_lib")

run_job() {  # run_job NAME RANKS ARGS...: one shakedown run plus its analysis
  local name=$1 ranks=$2; shift 2
  # STOP_AT (epoch seconds): start no run after it, so the call ends with its figures packed.
  if [ -n "${STOP_AT:-}" ] && [ "$(date +%s)" -ge "$STOP_AT" ]; then log "skip $name: past STOP_AT"; return; fi
  log "run $name: mpirun -np $ranks shakedown run $*"
  timeout "${RUN_TIMEOUT_S:-400}" mpirun -np "$ranks" --bind-to none shakedown run --out "$runs" --name "$name" --progress lines "$@" \
    >>"$out/log.txt" 2>&1
  log "run $name exit $?"
  if command -v shakedown-analyze >/dev/null; then
    shakedown-analyze "$runs/$name" >>"$out/log.txt" 2>&1
    log "analyze $name exit $?"
  fi
  tar -C "$runs" -czf "$out/runs.tgz" .  # after every run: a call cut off at its limit still returns the runs before
}

if [[ $parts == *" kernels "* || $parts == *" all "* ]]; then
  { date -u; nvidia-smi; nvidia-smi topo -m; nproc; free -g; } >"$out/host.txt" 2>&1
  log "inventory"
  shakedown inventory >"$out/inventory.txt" 2>&1
  ( cd /tmp/rt/bin && ./inventory_tests && ./telemetry_tests ) >>"$out/log.txt" 2>&1
  log "inventory/telemetry tests exit $?"
  run_job kernels-1gpu 1 --tests stream,dgemm_fp64,stencil3d,gemm_ladder
  [ "$gpus" -ge 2 ] && run_job kernels-2gpu 2 --tests stream,dgemm_fp64,stencil3d,gemm_ladder
  run_job dgemm-small-integers "$gpus" --tests dgemm_fp64 --config "$here/bench/gpu/dgemm-small-integers.yaml"
fi
if [[ $parts == *" checks "* ]]; then  # correctness of the tuned kernels on awkward shapes
  run_job stencil-odd-1gpu 1 --tests stencil3d --config "$here/bench/gpu/stencil-odd-widths.yaml"
  run_job stencil-odd-2gpu 2 --tests stencil3d --config "$here/bench/gpu/stencil-odd-widths.yaml"
  run_job stencil-odd-4ranks 4 --tests stencil3d --config "$here/bench/gpu/stencil-odd-global.yaml"
  run_job stencil-one-cell 1 --tests stencil3d --config "$here/bench/gpu/stencil-one-cell.yaml"
  run_job stream-odd 1 --tests stream --config "$here/bench/gpu/stream-odd-length.yaml"
  run_job refused-stencil-shape 1 --tests stencil3d --config "$here/bench/gpu/refused-stencil-shape.yaml"  # exit 2 expected
fi
if [[ $parts == *" remeasure "* ]]; then  # one GPU: a second kernels run, the stencil at 100 steps, h2d
  run_job kernels-1gpu-again 1 --tests stream,dgemm_fp64,stencil3d,gemm_ladder
  run_job stencil-100-steps 1 --tests stencil3d --config "$here/bench/gpu/stencil-100-steps.yaml"
  run_job h2d-1gpu 1 --tests h2d_bandwidth --config "$here/health/configs/h200-health.yaml"
fi
if [[ $parts == *" verdict "* ]]; then  # a healthy GPU passes the quick suite; ranks sharing it fail nothing
  run_job quick-1rank 1 --suite quick --gpus-per-node 1
  CUDA_VISIBLE_DEVICES=0 run_job quick-2ranks-1gpu 2 --suite quick --gpus-per-node 1
fi
if [[ $parts == *" ladder-spread "* ]]; then  # run-to-run spread of the ladder's bursts
  for i in 1 2 3; do run_job "ladder-alone-$i" 1 --tests gemm_ladder; done
  for i in 1 2 3; do run_job "ladder-cooldown-5s-$i" 1 --tests gemm_ladder --config "$here/bench/gpu/ladder-cooldown-5s.yaml"; done
fi
if [[ $parts == *" stencil-auto "* ]]; then  # halo_path auto: which path it takes, and its rate
  for i in 1 2 3; do run_job "stencil-auto-2gpu-$i" 2 --tests stencil3d --config "$here/bench/gpu/stencil-default-100-steps.yaml"; done
  run_job stencil-host-2gpu 2 --tests stencil3d --config "$here/bench/gpu/stencil-halo-host.yaml"
  run_job stencil-auto-1gpu 1 --tests stencil3d
  run_job stencil-auto-4ranks-2gpus 4 --tests stencil3d  # ranks share GPUs: auto must take host
  run_job stencil-nccl-4ranks-2gpus 4 --tests stencil3d --config "$here/bench/gpu/stencil-halo-nccl.yaml"  # must be an error
fi
if [[ $parts == *" stencil-shared "* ]]; then  # ranks sharing GPUs: auto must take host
  run_job stencil-auto-4ranks-2gpus 4 --tests stencil3d
  CUDA_VISIBLE_DEVICES=0 run_job stencil-auto-2ranks-1gpu 2 --tests stencil3d
fi
if [[ $parts == *" probe "* ]]; then
  log "kernel probe"
  "$bin/shakedown_kernel_probe" >>"$out/log.txt" 2>&1
  log "kernel probe exit $?"
  python3 "$here/bench/gpu/torch_reference.py" >>"$out/log.txt" 2>&1
  log "torch reference exit $?"
fi
# Tuning probes (bench/gpu/*_probe.cu, the bundle's shakedown_*_probe), with the GPUs' clocks,
# power and temperature logged beside them every 100 ms.
run_probe() {  # run_probe LABEL BINARY [ENV=VALUE...] -- [ARGS...]
  local label=$1 binary=$2; shift 2
  local environment=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do environment+=("$1"); shift; done
  shift
  [ -x "$bin/$binary" ] || { log "$binary: not in the bundle"; return; }
  nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv -lms 100 >"$out/$label-smi.csv" 2>&1 &
  local smi=$!
  log "$label: $binary $*"
  env "${environment[@]}" timeout 300 "$bin/$binary" "$@" >"$out/$label.txt" 2>&1
  log "$label exit $?"
  kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
}
if [[ $parts == *" gemm-probe "* ]]; then
  # cuBLASLt's own errors, hints and info say why it refuses an fp8 set-up.
  run_probe gemm-fp8 shakedown_gemm_probe CUBLASLT_LOG_MASK=13 CUBLASLT_LOG_FILE="$out/cublaslt-fp8.log" -- fp8
  xz -T0 "$out/cublaslt-fp8.log" 2>/dev/null
  # Rate per input distribution (does lower-entropy data draw less power, as the anchor's 64.4 suggests?).
  run_probe gemm-data shakedown_gemm_probe -- data
fi
if [[ $parts == *" gemm-timeline "* ]]; then
  run_probe gemm-timeline shakedown_gemm_probe -- timeline algos --timeline-reps 1500
fi
if [[ $parts == *" stencil-probe "* ]]; then
  run_probe stencil shakedown_stencil_probe -- 512 511
fi
if [[ $parts == *" lu "* ]]; then
  ldconfig -p | grep -E "libcusolver|libcublas\.so" >>"$out/log.txt" 2>&1
  run_job lu-1gpu 1 --tests dgemm_fp64,lu_fp64
  run_job lu-corrupt 1 --tests lu_fp64 --config "$here/bench/gpu/lu-corrupt.yaml"  # FAIL expected, residual named
  run_job lu-host-4ranks 4 --tests dgemm_fp64,lu_fp64 --config "$here/bench/gpu/lu-host.yaml"
fi
if [[ $parts == *" lu-lookahead "* ]]; then  # the look-ahead LU against cuSOLVER's getrf, same binary, interleaved
  rounds=${LU_ROUNDS:-2}
  for i in $(seq 1 "$rounds"); do
    run_job "lu-cusolver-$i" 1 --tests dgemm_fp64,lu_fp64 --config "$here/bench/gpu/lu-cusolver.yaml"
    run_job "lu-lookahead-$i" 1 --tests dgemm_fp64,lu_fp64 --config "$here/bench/gpu/lu-lookahead.yaml"
  done
  run_job lu-lookahead-block512 1 --tests dgemm_fp64,lu_fp64 --config "$here/bench/gpu/lu-lookahead-block512.yaml"
  run_job lu-lookahead-block2048 1 --tests dgemm_fp64,lu_fp64 --config "$here/bench/gpu/lu-lookahead-block2048.yaml"
  run_job lu-lookahead-small 1 --tests lu_fp64 --config "$here/bench/gpu/lu-lookahead-small.yaml"
  run_job lu-lookahead-one-panel 1 --tests lu_fp64 --config "$here/bench/gpu/lu-lookahead-one-panel.yaml"
  run_job lu-lookahead-corrupt 1 --tests lu_fp64 --config "$here/bench/gpu/lu-lookahead-corrupt.yaml"  # FAIL expected
  python3 "$here/bench/gpu/lu_lookahead_table.py" "$runs" "$rounds" 2>&1 | tee "$out/lu-lookahead.txt" | tee -a "$out/log.txt"
fi
if [[ $parts == *" lu-sweep "* ]]; then  # both GPU algorithms over n (LU_SWEEP_N), one repetition each, DGEMM first and last
  sweep=(${LU_SWEEP_N:-48384 65536 81920 94208})
  # LU_SWEEP_RUNS, when given, replaces the grid: "ALGORITHM:N:BLOCK ..." (BLOCK auto or a width).
  runs_list=(${LU_SWEEP_RUNS:-})
  if [ ${#runs_list[@]} -eq 0 ]; then
    for n in "${sweep[@]}"; do runs_list+=("cusolver:$n:auto" "lookahead:$n:auto"); done
  fi
  run_job lu-sweep-dgemm-first 1 --tests dgemm_fp64
  names=()
  for entry in "${runs_list[@]}"; do
    IFS=: read -r algorithm n block <<<"$entry"
    name="lu-sweep-$algorithm-$n-b$block"
    printf 'params:\n  lu_fp64: {device: gpu, n: %s, block: %s, repetitions: 1, memory_fraction: 0.8, gpu_algorithm: %s}\n' \
      "$n" "$block" "$algorithm" >"$runs/$name.yaml"
    run_job "$name" 1 --tests lu_fp64 --config "$runs/$name.yaml"
    names+=("$name")
  done
  run_job lu-sweep-dgemm-last 1 --tests dgemm_fp64
  python3 "$here/bench/gpu/lu_sweep_table.py" "$runs" "${names[@]}" 2>&1 | tee "$out/lu-sweep.txt" | tee -a "$out/log.txt"
fi
if [[ $parts == *" cg "* ]]; then
  run_job cg-1gpu 1 --tests stream,cg_fp64
  run_job cg-corrupt 1 --tests cg_fp64 --config "$here/bench/gpu/cg-corrupt.yaml"  # FAIL expected, error named
  if (( gpus >= 2 )); then
    run_job cg-2gpu 2 --tests cg_fp64
    run_job cg-2gpu-halo-host 2 --tests cg_fp64 --config "$here/bench/gpu/cg-halo-host.yaml"
  fi
fi
if [[ $parts == *" calibrate "* ]]; then
  for i in 1 2 3; do run_job "cal-quick-$i" 1 --suite quick --gpus-per-node 1; done
  for i in 1 2 3; do run_job "cal-dgemm-int-$i" 1 --tests dgemm_fp64 --config "$here/bench/gpu/dgemm-small-integers.yaml"; done
fi
if [[ $parts == *" calibrate-fp64 "* ]]; then
  for i in 1 2 3; do run_job "cal-fp64-$i" 1 --suite full --tests dgemm_fp64,lu_fp64,cg_fp64,gemm_ladder; done
fi
if [[ $parts == *" calibration-check "* ]]; then
  for i in 1 2; do run_job "check-quick-$i" 1 --suite quick --gpus-per-node 1; done
  run_job check-fp64 1 --suite full --tests dgemm_fp64,lu_fp64,cg_fp64,gemm_ladder
  run_job check-slow-gpu 1 --tests dgemm_fp64 --config "$here/bench/gpu/dgemm-slow-gpu.yaml"
fi
if [[ $parts == *" fp64 "* ]]; then
  run_job fp64-1gpu 1 --suite full --tests dgemm_fp64,lu_fp64,cg_fp64,gemm_ladder
  shakedown-analyze "$runs/fp64-1gpu" --format markdown >"$out/fp64-1gpu.md" 2>&1
  run_job lu-large 1 --tests dgemm_fp64,lu_fp64 --config "$here/bench/gpu/lu-large.yaml"
fi
if [[ $parts == *" kokkos "* ]]; then  # Kokkos on the GPU against the native CUDA, same binary, interleaved
  shakedown inventory 2>/dev/null | grep -i kokkos >>"$out/log.txt"
  rounds=${KOKKOS_ROUNDS:-3}
  for i in $(seq 1 "$rounds"); do
    run_job "kokkos-native-$i" 1 --tests stream,stencil3d,dgemm_fp64 --config "$here/bench/gpu/kokkos-backend-native.yaml"
    run_job "kokkos-kokkos-$i" 1 --tests stream,stencil3d,dgemm_fp64 --config "$here/bench/gpu/kokkos-backend-kokkos.yaml"
  done
  python3 "$here/bench/gpu/kokkos_ratios.py" "$runs" "$rounds" 2>&1 | tee "$out/kokkos-ratios.txt" | tee -a "$out/log.txt"
fi
if [[ $parts == *" kokkos-probe "* ]]; then  # why Kokkos copy/scale and the Kokkos stencil fall short (issue 17)
  run_probe kokkos-probe shakedown_kokkos_probe -- 512 20
fi
if [[ $parts == *" comm "* || $parts == *" all "* ]]; then
  run_job nccl-reference 2 --config "$here/mpi/configs/nccl-h200-reference.yaml"
  run_job nccl-corrupt 2 --config "$here/mpi/configs/nccl-planted-corruption.yaml"
  run_job mpi-2gpu 2 --tests mpi_pingpong,p2p,allpairs,mpi_coll,gpu_aware_mpi
fi
if [[ $parts == *" health "* ]]; then
  run_job health-2gpu 2 --config "$here/health/configs/h200-health.yaml"
  run_job health-corrupt 2 --config "$here/health/configs/h200-burnin-corruption.yaml"
fi
if [[ $parts == *" health-overhead "* ]]; then  # the sources' cost again: on, off alternating, HEALTH_ROUNDS (2) pairs
  for i in $(seq 1 "${HEALTH_ROUNDS:-2}"); do
    run_job "quick-health-on-$i" 1 --suite quick --config "$here/bench/gpu/passive-health-on.yaml"
    run_job "quick-health-off-$i" 1 --suite quick --config "$here/bench/gpu/passive-health-off.yaml"
    python3 "$here/bench/gpu/compare_runs.py" "$runs/quick-health-on-$i" "$runs/quick-health-off-$i" 2>&1 |
      tee "$out/health-overhead-$i.txt" | tee -a "$out/log.txt"
  done
fi
if [[ $parts == *" health2-1gpu "* ]]; then  # the same on a 1-GPU host, and what the sources cost
  "$bin/telemetry_tests" --gtest_filter='RealNvml.*:RealSysfs.*' 2>&1 | tee "$out/health2-sources.txt" | tee -a "$out/log.txt"
  run_job gpu-memtest-1gpu 1 --config "$here/health/configs/h200-gpu-memtest-1gpu.yaml"
  run_job gpu-memtest-1gpu-corrupt 1 --config "$here/health/configs/h200-gpu-memtest-1gpu-corrupt.yaml"  # FAIL expected
  run_job quick-health-on 1 --suite quick --config "$here/bench/gpu/passive-health-on.yaml"
  run_job quick-health-off 1 --suite quick --config "$here/bench/gpu/passive-health-off.yaml"
  python3 "$here/bench/gpu/compare_runs.py" "$runs/quick-health-on" "$runs/quick-health-off" 2>&1 |
    tee "$out/health-overhead.txt" | tee -a "$out/log.txt"
fi
if [[ $parts == *" health2 "* ]]; then  # passive health read for real (every NVML value or its return code, the
  # PCIe AER counters), then gpu_memtest over 90 % of free HBM on 2 GPUs, rank 1 with one planted flipped bit
  "$bin/telemetry_tests" --gtest_filter='RealNvml.*:RealSysfs.*' 2>&1 | tee "$out/health2-sources.txt" | tee -a "$out/log.txt"
  RUN_TIMEOUT_S=600 run_job gpu-memtest 2 --config "$here/health/configs/h200-gpu-memtest.yaml"
  run_job health2-quick 1 --suite quick  # the health tables of a real run: shakedown-analyze's hidden-fault rule on them
fi
if [[ $parts == *" sdc "* ]]; then  # silent data corruption: the same DGEMM twice per GPU, bit for bit
  run_job sdc-1gpu 1 --config "$here/health/configs/h200-sdc-dgemm.yaml"
  run_job sdc-1gpu-corrupt 1 --config "$here/health/configs/h200-sdc-dgemm-corrupt.yaml"  # FAIL expected
  [ "${gpus:-0}" -ge 2 ] && run_job sdc-all-gpus "$gpus" --config "$here/health/configs/h200-sdc-dgemm.yaml"
fi
if [[ $parts == *" science-host "* ]]; then  # weak scaling of the science kernels on dedicated cores
  for ranks in 1 2 4 8; do run_job "science-host-$ranks" "$ranks" --tests stencil3d,cg_fp64 --config "$here/bench/gpu/science-host.yaml"; done
fi
if [[ $parts == *" host-bounds "* ]]; then  # one host rank's stencil and CG against their copy and triad bounds
  # At one rank the host stencil read 1.15 of its copy bound: is its working set (two 16.8 MB
  # arrays at local_n 128) in the last-level cache, where no measured bound is physical?
  { lscpu; ls -l /sys/class/powercap 2>&1; cat /sys/class/powercap/intel-rapl:0/energy_uj 2>&1; } >"$out/lscpu.txt" 2>&1
  for n in 128 256; do
    printf 'params:\n  stencil3d: {device: host, local_n: %s}\n  cg_fp64: {device: host, local_n: %s}\n' "$n" "$n" \
      >"$out/host-bounds-$n.yaml"
    run_job "host-bounds-n$n" 1 --tests stencil3d,cg_fp64 --config "$out/host-bounds-$n.yaml"
  done
  printf 'params:\n  stencil3d: {device: host, triad_mib: 2048}\n  cg_fp64: {device: host, triad_mib: 2048}\n' \
    >"$out/host-bounds-dram.yaml"
  run_job host-bounds-dram-bound 1 --tests stencil3d,cg_fp64 --config "$out/host-bounds-dram.yaml"
  for name in host-bounds-n128 host-bounds-n256 host-bounds-dram-bound; do
    shakedown-analyze export "$runs/$name" --format csv 2>/dev/null | grep -E "bound_fraction|gcells|gflops|triad|copy" \
      | sed "s/^/$name,/" >>"$out/host-bounds.csv"
  done
fi
if [[ $parts == *" checkpoint-host "* ]]; then  # the training job's storage on the host's own disk
  df -hT /tmp >>"$out/log.txt" 2>&1
  for ranks in 1 4 8; do run_job "checkpoint-$ranks" "$ranks" --tests checkpoint_io --config "$here/bench/gpu/checkpoint-host.yaml"; done
  if command -v fio >/dev/null; then
    SHAKEDOWN=$bin/shakedown SHAKEDOWN_ANALYZE=$bin/shakedown-analyze SHARD_MIB=1024 FILES=512 \
      timeout 300 bash "$here/bench/checkpoint_fio_comparison.sh" "$bin" /tmp 2 1 8 2>&1 | tee -a "$out/log.txt"
  else
    log "no fio on this host: checkpoint_io without its reference"
  fi
fi
if [[ $parts == *" energy "* ]]; then  # energy per unit of work beside nvidia-smi's power over the same phases
  date +%Z >>"$out/log.txt"  # nvidia-smi stamps local time: energy_check.py reads it as UTC
  nvidia-smi --query-gpu=timestamp,index,power.draw,power.draw.average,power.draw.instant --format=csv,noheader,nounits \
    -lms 100 >"$out/nvidia-smi-power.csv" 2>&1 &
  smi_pid=$!
  run_job energy-long 1 --tests dgemm_fp64,lu_fp64,train_step --config "$here/bench/gpu/energy.yaml"
  run_job energy-defaults 1 --tests dgemm_fp64,train_step
  run_job energy-quick 1 --suite quick --gpus-per-node 1
  kill "$smi_pid"
  python3 "$here/bench/gpu/energy_check.py" "$out/nvidia-smi-power.csv" "$runs"/energy-*/summary.json 2>&1 | tee -a "$out/log.txt"
fi
if [[ $parts == *" train "* ]]; then  # train_step on 1 GPU beside PyTorch's step of the same layers, interleaved
  [ -x "$bin/shakedown_attention_probe" ] && { timeout 300 "$bin/shakedown_attention_probe" 2>&1 | tee -a "$out/log.txt"; log "attention probe exit ${PIPESTATUS[0]}"; }
  torch_step() { env -u LD_LIBRARY_PATH PYTHONUNBUFFERED=1 timeout 300 python3 "$here/bench/gpu/train_step_torch.py" "$@" 2>&1 | tee -a "$out/log.txt"; }
  for round in ${TRAIN_ROUNDS:-1 2}; do
    run_job "train-$round" 1 --tests train_step
    torch_step
  done
  run_job train-batched 1 --tests train_step --config "$here/bench/gpu/train-batched-gemm.yaml"
  torch_step --attention explicit
  run_job train-corrupt 1 --tests train_step --config "$here/bench/gpu/train-corrupt.yaml"  # FAIL expected
fi
tar -C "$runs" -czf "$out/runs.tgz" .
log "done"
# The device tool returns a handful of files: the probes' outputs travel as one archive.
( cd "$out" && shopt -s nullglob && files=(*.txt *.csv *.log.xz) && [ ${#files[@]} -gt 0 ] &&
  tar -czf probes.tgz --exclude log.txt "${files[@]}" && for f in "${files[@]}"; do [ "$f" = log.txt ] || rm -f "$f"; done )
