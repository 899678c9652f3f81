#!/usr/bin/env bash
# ESDG on one GPU, one command: kernel timings for N=2..8 with the ablation variants at N=4, throughput
# against element count, and the per-kernel share of the step time (first version vs current).
#   bench/run-esdg-gpu.sh BUILD_DIR        (PATH/PETSC_DIR set for the CUDA PETSc; writes to $OUT or .)
# Outputs: esdg-smi.csv, esdg-kernels.json, esdg-throughput.json (JSON lines of bench/esdg_bench.c),
# esdg-share.json (bench/esdg_share.py over -log_view of short bubble runs). Then
# Each file holds one JSON record per line, with the GPU, clocks and commit of the run.
set -uo pipefail
b=${1:?build dir}; o=${OUT:-.}; root=$(cd "$(dirname "$0")/.." && pwd)
mesh="-dm_p4est_brick_size 1,1,1 -dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda -use_gpu_aware_mpi 0"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv > "$o/esdg-smi.csv" 2>&1
: > "$o/esdg-kernels.json"
timeout 150 "$b/bench/esdg_bench" $mesh -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag kernels >> "$o/esdg-kernels.json"
timeout 80 "$b/bench/esdg_bench" $mesh -dm_forest_initial_refinement 4 -bench_orders 7,8 -bench_reps 10 -bench_tag kernels >> "$o/esdg-kernels.json"
: > "$o/esdg-throughput.json"
for L in 0 1 2 3 4 5 6; do
  orders=2,3,4,5,6; [ $L = 6 ] && orders=2,3,4
  timeout 90 "$b/bench/esdg_bench" $mesh -dm_forest_initial_refinement $L -bench_orders $orders -bench_reps 5 -bench_tag throughput >> "$o/esdg-throughput.json"
done
# per-kernel share of the step: 30 steps of the bubble (N=4, 262,144 elements) with GPU event timing
bubble="-options_file $root/options/rising_bubble.opts -dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_steps 30 -dm_vec_type cuda -use_gpu_aware_mpi 0 -log_view_gpu_time"
timeout 120 "$b/tutorials/rising_bubble" $bubble -esdg_gpu_surface element -esdg_gpu_half_sweep 0 -log_view :"$o/esdg-logview-v1.txt" > /dev/null
timeout 120 "$b/tutorials/rising_bubble" $bubble -log_view :"$o/esdg-logview.txt" > /dev/null
python3 "$root/bench/esdg_share.py" "$o/esdg-logview-v1.txt" first_version "$o/esdg-logview.txt" current > "$o/esdg-share.json"
cat "$o/esdg-share.json"
