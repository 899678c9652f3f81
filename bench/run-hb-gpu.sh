#!/usr/bin/env bash
# hipBone CG on a GPU machine: the GPU tests (ctest -L gpu -R hb) and the benchmark sweep.
#
#   PATH=/opt/squall-deps/cuda/bin:$PATH PETSC_DIR=/opt/squall-deps/cuda bench/run-hb-gpu.sh BUILD_DIR
#
# BUILD_DIR is configured against $PETSC_DIR if it has no CMakeCache.txt, then brought up to date
# (only the targets used here). Every step runs under `timeout`; one order per process, so an order
# that fails or runs out of time costs only its own records. Results go to $OUT (default
# BUILD_DIR/hb-results):
#   nvidia-smi.txt, hb-gpu-ctest.log            the device and the GPU tests
#   hb-bench.jsonl                              one JSON object per line (bench/hb_bench.c):
#       hb_operator: element kernel GFLOP/s, its share of the streaming roofline measured in the same run
#                    (8 reads : 1 write), the Z^T gather, the whole MatMult
#       hb_cg:       hbcg + MATSHELL, PETSc cg + MATSHELL, and at HB_ASSEMBLED_DOFS PETSc cg +
#                    MATAIJCUSPARSE against hbcg: time per iteration, NekBone FOM, DOF x iterations / s
#   hb-bench-N<N>[-<variant>].log               stderr and -log_view of each run
# Environment (optional):
#   HB_DOFS            unknowns per order (default 4e7, hipBone's size)
#   HB_ORDERS          orders of the main sweep (default "1 2 ... 15")
#   HB_VARIANT_ORDERS  orders also run with the other kernel shape: 3D vs 2D around the switch, the v1
#                      kernel with capped registers for N >= 13 (default "7 8 9 13 14 15"; "" to skip)
#   HB_V1_ORDERS       orders also run with the first kernels, -hb_kernel_variant v1 (tag v1; the main
#                      sweep runs the default v2), operator only (default "$HB_ORDERS"; "" to skip)
#   HB_REPS            back-to-back applications per kernel timing (default 50)
#   HB_CG_ITERATIONS   fixed CG iterations of the FOM runs (default 50)
#   HB_ASSEMBLED_DOFS  size of the assembled-matrix comparison (default 2e6)
#   HB_STEP_TIMEOUT    seconds per order (default 300); HB_TEST_TIMEOUT seconds per test (default 300)
#   HB_SKIP_TESTS=1, HB_SKIP_BENCH=1
#   HB_JOBS            build parallelism (default nproc)
# A whole sweep at 4e7 unknowns takes longer than one 10-minute command: split it, e.g.
#   HB_SKIP_BENCH=1 ...; HB_SKIP_TESTS=1 HB_ORDERS="1 2 3 4 5" HB_VARIANT_ORDERS= ...;
#   HB_SKIP_TESTS=1 HB_ORDERS="6 7 8 9 10" HB_VARIANT_ORDERS="7 8 9" ...; and so on.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: run-hb-gpu.sh BUILD_DIR}
out=${OUT:-$build/hb-results}
dofs=${HB_DOFS:-4e7}
orders=${HB_ORDERS:-"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"}
variants=${HB_VARIANT_ORDERS-"7 8 9 13 14 15"}
v1orders=${HB_V1_ORDERS-$orders}
reps=${HB_REPS:-50}
iters=${HB_CG_ITERATIONS:-50}
adofs=${HB_ASSEMBLED_DOFS:-2e6}
step_timeout=${HB_STEP_TIMEOUT:-300}
test_timeout=${HB_TEST_TIMEOUT:-300}
jobs=${HB_JOBS:-$(nproc)}
mkdir -p "$out"
log() { echo "[run-hb-gpu] $*" >&2; }
status=0

: "${PETSC_DIR:?set PETSC_DIR to the CUDA PETSc (/opt/squall-deps/cuda)}"
grep -q '^#define PETSC_HAVE_CUDA 1' "$PETSC_DIR/include/petscconf.h" || { log "$PETSC_DIR is not a CUDA build of PETSc"; exit 1; }
# MPI here is not CUDA-aware: PetscSF stages device buffers through the host
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv > "$out/nvidia-smi.txt" 2>&1 || log "nvidia-smi failed"

if [ ! -f "$build/CMakeCache.txt" ]; then
  log "configuring $build"
  timeout 600 cmake -S "$root" -B "$build" -DPETSC_DIR="$PETSC_DIR" -DCMAKE_BUILD_TYPE=Release > "$out/hb-configure.log" 2>&1 || { log "configure failed (hb-configure.log)"; exit 1; }
fi
log "building (-j$jobs)"
timeout 1200 cmake --build "$build" -j"$jobs" --target squall test_gpu_hb hb_bench hipbone > "$out/hb-build.log" 2>&1 || { log "build failed (hb-build.log)"; exit 1; }

if [ "${HB_SKIP_TESTS:-0}" != 1 ]; then
  log "GPU tests"
  (cd "$build" && timeout $((4 * test_timeout)) ctest -L gpu -R hb --output-on-failure --timeout "$test_timeout") > "$out/hb-gpu-ctest.log" 2>&1 || status=1
  tail -n 15 "$out/hb-gpu-ctest.log" >&2
  if grep -qE '\(Skipped\)|Not Run' "$out/hb-gpu-ctest.log" && nvidia-smi -L 2>/dev/null | grep -q GPU; then log "a GPU is present but GPU tests were skipped"; status=1; fi
fi

bench() { # name, then hb_bench arguments
  local name=$1
  shift
  log "hb_bench $name: $*"
  timeout "$step_timeout" "$build/bench/hb_bench" -hb_vec_type cuda -dofs "$dofs" -reps "$reps" -log_view ":$out/hb-bench-$name.logview" "$@" \
    >> "$out/hb-bench.jsonl" 2> "$out/hb-bench-$name.log" || { log "hb_bench $name failed or timed out (rc $?, hb-bench-$name.log)"; status=1; }
}
if [ "${HB_SKIP_BENCH:-0}" != 1 ]; then
  for N in $orders; do
    # the assembled comparison (E Np (3 Nq)^2 COO entries to assemble on the host) up to a modest order
    solvers=hbcg,cg
    [ "$N" -le "${HB_ASSEMBLED_MAX_ORDER:-7}" ] && solvers=hbcg,cg,cg_assembled
    bench "N$N" -orders "$N" -cg_iterations "$iters" -solvers "$solvers" -assembled_dofs "$adofs" -tag default
  done
  for N in $variants; do
    # the default is 3D below N = 9 and 2D from it (-hb_kernel_switch 9): time the other variant
    if [ "$N" -ge 13 ]; then
      bench "N$N-capped" -orders "$N" -cg_iterations 0 -hb_kernel_variant v1 -hb_kernel_cap_registers -tag capped_registers
    elif [ "$N" -lt 9 ]; then
      bench "N$N-2d" -orders "$N" -cg_iterations 0 -hb_kernel_switch 1 -tag 2d
    elif [ "$N" -eq 9 ]; then
      bench "N$N-3d" -orders "$N" -cg_iterations 0 -hb_kernel_switch 10 -tag 3d
    fi
  done
  for N in $v1orders; do
    bench "N$N-v1" -orders "$N" -cg_iterations 0 -hb_kernel_variant v1 -tag v1
  done
  log "$(wc -l < "$out/hb-bench.jsonl") records in $out/hb-bench.jsonl"
  # against the goals: kernel >= 90% of the streaming roofline, >= 10 TFLOPS at N = 15; hipBone's FOM
  # on the same GPU: N=3 2270, N=7 2689, N=15 3430 GFLOP/s
  if command -v python3 > /dev/null; then
    python3 - "$out/hb-bench.jsonl" <<'PY' | tee "$out/hb-summary.txt" >&2
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
hipbone = {3: 2270, 7: 2689, 15: 3430}
for r in recs:
    if r['bench'] == 'hb_operator':
        print(f"N={r['N']:2d} {r['tag']:>16s} {r['kernel']:>9s}: kernel {r['kernel_gflops']:9.1f} GFLOP/s = {100 * r['roofline_fraction']:5.1f}% of roofline {r['roofline_gflops']:9.1f} (stream {r['stream_gbs']:.0f} GB/s)")
for r in recs:
    if r['bench'] == 'hb_cg':
        ref = f" (hipBone {hipbone[r['N']]})" if r['N'] in hipbone and r['solver'] == 'hbcg' else ''
        print(f"N={r['N']:2d} {r['solver']:>12s} N_G={r['NG']:.3g}: FOM {r['fom_gflops']:9.1f} GFLOP/s{ref}, {r['t_iter'] * 1e3:.3f} ms/iteration")
PY
  fi
fi
exit $status
