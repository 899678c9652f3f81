#!/usr/bin/env bash
# hipBone CG on a GPU machine, with the default kernels (SquallHBGetDefaultKernel()):
#   the CG figure of merit at N = 3, 7, 15 (KSP hbcg + MATSHELL, NekBone's flop count) with each order's
#   operator records, then the operator sweep over the other orders of N = 1..15;
# one process per order, each step under `timeout`, the whole run within a time budget.
#
#   bench/hb.sh BUILD_DIR OUTDIR
#
# BUILD_DIR: a CMake build of squall against a CUDA PETSc (the hb_bench target is brought up to date).
# OUTDIR/hb.jsonl gets one JSON object per measurement (bench/hb_bench.c), each with the streaming rate
# measured in the same process ("stream_gbs"):
#   "hb_cg":       solver, N, E, NG, ranks, device, kernel, iterations, time, t_iter, fom_gflops,
#                  dofs_iter_per_s, rnorm, stream_gbs, gpu_timers, mesh, geometry, bytes_per_node
#   "hb_operator": N, E, NG, NL, ranks, device, kernel, layers, elements, reps, t_kernel, kernel_gflops,
#                  kernel_gbs, kernel_bytes, kernel_flops, stream_gbs, roofline_gflops, roofline_fraction,
#                  t_gather, t_mult, mult_gflops_nekbone, mesh, geometry, bytes_per_node (the roofline
#                  counts the bytes of the record's geometry mode)
#   "hb_skipped":  N, reason (an order the budget or its step's timeout left out)
# OUTDIR also gets nvidia-smi.txt and hb-<mesh>-<geometry>-N<N>.log (stderr of each step).
# Environment (optional):
#   HB_DOFS          unknowns of the figure-of-merit orders (default 4e7, hipBone's size)
#   HB_SWEEP_DOFS    unknowns of the other orders' operator runs (default 2e7; at N = 1 the set-up of 4e7
#                    unknowns, one element each, alone takes a minute)
#   HB_BUDGET        seconds for all the steps together (default 900)
#   HB_STEP_TIMEOUT  seconds at most per step (default 90; never more than what is left of the budget)
#   HB_REPS          back-to-back products per operator timing (default 20)
#   HB_CG_ITERATIONS CG iterations of the figure of merit (default 100, upstream hipBone's timed count; fewer
#                    when the residual reaches zero first)
#   HB_RANKS         MPI ranks, one GPU each through bench/gpu-bind.sh (default 1)
#   HB_GEOMETRIES    -hb_geometry modes to run in turn, each with all the steps above (default "auto trilinear
#                    stored": on the brick auto is affine, so every mode; trilinear also on -hb_mesh perturbed)
#   HB_MESH          -hb_mesh of those steps (default brick)
#   HB_SCATTERS      -hb_scatter modes to run in turn, each with all the steps above (default "auto", squall's choice by
#                    order; "gather atomic" measures both ways of summing the element results, Z^T as CSR row sums and
#                    by atomic adds from the element kernels)
#   HB_APPEND        1: add to OUTDIR/hb.jsonl instead of starting it anew, so that a run split into parts (e.g. a
#                    second invocation with HB_GEOMETRIES="trilinear stored" HB_KERSHAW=0) makes one results file
#                    (default 0)
#   HB_FOM_ORDERS    orders of the figure of merit (default "3 7 15")
#   HB_SWEEP_ORDERS  orders of the operator sweep (default "1 2 4 5 6 8 9 10 11 12 13 14"); with the two above, a run
#                    split into parts (HB_APPEND) can measure the figures of merit of every mode before any sweep
#   HB_KERNEL_ORDERS orders at which each mode also times every CUDA kernel that runs there (layers, layers_tiled, mma)
#                    under each scatter, records tagged "kernels": the measurements behind -hb_kernel auto and
#                    -hb_scatter auto (default "7 15"; empty: none)
#   HB_KERSHAW       1: also the Kershaw record (-hb_mesh kershaw -hb_kershaw_eps 0.3, N = 7, 24 x 18 x 18 = 7776
#                    elements, stored factors, hbcg to 100 iterations: DOF x iterations / s) (default 1)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: bench/hb.sh BUILD_DIR OUTDIR}
out=${2:?usage: bench/hb.sh BUILD_DIR OUTDIR}
dofs=${HB_DOFS:-4e7}
budget=${HB_BUDGET:-900}
step_max=${HB_STEP_TIMEOUT:-90}
reps=${HB_REPS:-20}
iters=${HB_CG_ITERATIONS:-100}
ranks=${HB_RANKS:-1}
mkdir -p "$out"
jsonl=$out/hb.jsonl
[ "${HB_APPEND:-0}" = 1 ] || : > "$jsonl"
log() { echo "[hb.sh] $*" >&2; }
start=$SECONDS
status=0

nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv > "$out/nvidia-smi.txt" 2>&1 || log "nvidia-smi failed"
cmake --build "$build" --target hb_bench -j"$(nproc)" > "$out/hb-build.log" 2>&1 || { log "building hb_bench failed ($out/hb-build.log)"; exit 1; }
# MPI here is not CUDA-aware: PetscSF stages device buffers through the host
launch=("$build/bench/hb_bench")
[ "$ranks" -gt 1 ] && launch=(mpiexec -n "$ranks" "$root/bench/gpu-bind.sh" "$build/bench/hb_bench")

step() { # N, then hb_bench arguments
  local N=$1 left limit rc
  shift
  left=$((budget - (SECONDS - start)))
  if [ "$left" -lt 10 ]; then
    log "N=$N: skipped, the budget of $budget s is spent"
    echo "{\"bench\":\"hb_skipped\",\"N\":$N,\"reason\":\"budget\"}" >> "$jsonl"
    status=1
    return
  fi
  limit=$((left < step_max ? left : step_max))
  log "N=$N (timeout $limit s): $*"
  timeout "$limit" "${launch[@]}" -hb_vec_type cuda -use_gpu_aware_mpi 0 -orders "$N" -reps "$reps" -hb_log_setup 1 "$@" >> "$jsonl" 2> "$out/hb-$tag-N$N.log"
  rc=$?
  if [ $rc -ne 0 ]; then
    log "N=$N: rc $rc ($out/hb-$tag-N$N.log)"
    echo "{\"bench\":\"hb_skipped\",\"N\":$N,\"reason\":\"rc $rc\"}" >> "$jsonl"
    status=1
  fi
}

mesh=${HB_MESH:-brick}
scatters=${HB_SCATTERS:-auto}
for sc in $scatters; do
  for geo in ${HB_GEOMETRIES:-auto trilinear stored}; do
    tag=$mesh-$geo-$sc
    for N in ${HB_FOM_ORDERS-3 7 15}; do step "$N" -dofs "$dofs" -cg_iterations "$iters" -solvers hbcg -hb_mesh "$mesh" -hb_geometry "$geo" -hb_scatter "$sc"; done
    if [ "$sc" = "${scatters%% *}" ]; then # once per mode: the kernels side by side
      for N in ${HB_KERNEL_ORDERS-7 15}; do
        for ksc in gather atomic; do
          tag=$mesh-$geo-kernels-$ksc
          step "$N" -dofs "$dofs" -cg_iterations 0 -hb_mesh "$mesh" -hb_geometry "$geo" -hb_scatter "$ksc" -kernels layers,layers_tiled,mma -tag kernels
        done
      done
      tag=$mesh-$geo-$sc
    fi
    for N in ${HB_SWEEP_ORDERS-1 2 4 5 6 8 9 10 11 12 13 14}; do step "$N" -dofs "${HB_SWEEP_DOFS:-2e7}" -cg_iterations 0 -hb_mesh "$mesh" -hb_geometry "$geo" -hb_scatter "$sc"; done
  done
done
if [ "${HB_KERSHAW:-1}" = 1 ]; then
  tag=kershaw
  step 7 -hb_mesh kershaw -hb_kershaw_eps 0.3 -hb_elements 24,18,18 -cg_iterations 100 -solvers hbcg
fi
log "$(grep -c '^{' "$jsonl") records in $jsonl, $((SECONDS - start)) s"
exit $status
