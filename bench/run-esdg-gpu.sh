#!/usr/bin/env bash
# ESDG on one GPU: kernel timings for N=2..8 and throughput against element count.
#   bench/run-esdg-gpu.sh BUILD_DIR        (PATH/PETSC_DIR set for the CUDA PETSc; writes to $OUT or .)
# Records are JSON lines (bench/esdg_bench.c); copy them into bench/results/ with the GPU's clocks.
set -uo pipefail
b=${1:?build dir}; o=${OUT:-.}
mesh="-dm_p4est_brick_size 1,1,1 -dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv > "$o/esdg-smi.csv" 2>&1
: > "$o/esdg-kernels.json"
timeout 150 "$b/bench/esdg_bench" $mesh -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag kernels >> "$o/esdg-kernels.json"
timeout 80 "$b/bench/esdg_bench" $mesh -dm_forest_initial_refinement 4 -bench_orders 7,8 -bench_reps 10 -bench_tag kernels >> "$o/esdg-kernels.json"
: > "$o/esdg-throughput.json"
for L in 1 2 3 4 5; do
  timeout 60 "$b/bench/esdg_bench" $mesh -dm_forest_initial_refinement $L -bench_orders 2,4,6 -bench_reps 10 -bench_tag throughput >> "$o/esdg-throughput.json"
done
