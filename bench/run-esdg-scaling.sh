#!/usr/bin/env bash
# ESDG rising bubble (N=4) on 1..G GPUs of one node, one rank per GPU (bench/gpu-bind.sh):
#   strong: 262,144 elements (2x2x2 base cells refined 5 times) on every GPU count;
#   weak:   one base cell refined 6 times (262,144 elements) per GPU, the brick G x 1 x 1 base cells.
#   bench/run-esdg-scaling.sh BUILD_DIR "1 2 4 8" [STEPS=50]
# Time per step = TSSolve wall time (barriers before and after) / steps, so the slowest rank counts.
# Prints one JSON line per run and writes esdg-scaling-*.txt to $OUT (or .).
set -uo pipefail
b=${1:?build dir}; counts=${2:-"1 2"}; steps=${3:-50}; o=${OUT:-.}
root=$(cd "$(dirname "$0")/.." && pwd)
common="-options_file $root/options/rising_bubble.opts -esdg_monitor 0 -ts_max_time 1e9 -ts_max_steps $steps -esdg_wall_time -dm_vec_type cuda -use_gpu_aware_mpi 0"
for g in $counts; do
  for kind in strong weak; do
    if [ $kind = strong ]; then
      mesh="-dm_forest_initial_refinement 5"
    else
      mesh="-dm_p4est_brick_size $g,1,1 -dm_p4est_brick_bounds -1000,$((2000 * g - 1000)),-1000,1000,0,2000 -dm_forest_initial_refinement 6"
    fi
    f="$o/esdg-scaling-$kind-g$g.txt"
    timeout 240 mpiexec -n "$g" "$root/bench/gpu-bind.sh" "$b/tutorials/rising_bubble" $common $mesh > "$f" 2>&1
    python3 "$root/bench/tutorial_log.py" "$f" bench=esdg_scaling kind=$kind gpus=$g
  done
done
