#!/usr/bin/env bash
# ESDG on one GPU, about 5 minutes, every step under timeout:
#   bench/esdg.sh BUILD_DIR OUTDIR      (PATH set for the CUDA PETSc's mpiexec)
# 1. the rising bubble, N=4, 262,144 elements (2x2x2 base cells refined 5 times), 14-stage LSRK with the
#    CFL step: TSSolve wall time over STEPS steps (default 50), and the 1000-step time projected from it;
# 2. the per-order kernel sweep of bench/esdg_bench.c: N=1..8 at about 4.1 million LGL nodes each (N=4:
#    32,768 elements), RHS wall time and the GPU times of the volume, face and node-reduce kernels;
# 3. the same sweep at N = 2, 4, 6, 8 over terrain (a bell mountain, -esdg_terrain bell, on the same brick), whose
#    curved elements read their metric terms per node: the cost per node against the box of item 2.
# Writes OUTDIR/esdg.jsonl (one JSON object per line: first a record of the GPU, then the bubble, then
# one per order), and the runs' output next to it.
set -uo pipefail
b=${1:?build dir}; o=${2:?output dir}; steps=${STEPS:-50}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$o"
out="$o/esdg.jsonl"
python3 "$root/bench/device_record.py" esdg_device "$root" > "$out"

bubble="-options_file $root/options/rising_bubble.opts -dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_time 1e9 -ts_max_steps $steps -esdg_wall_time -dm_vec_type cuda -use_gpu_aware_mpi 0"
timeout 120 "$b/tutorials/rising_bubble" $bubble > "$o/esdg-bubble.txt" 2>&1
python3 - "$root/bench" "$o/esdg-bubble.txt" >> "$out" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from tutorial_log import parse
r = parse(sys.argv[2])
r.update({"bench": "esdg_bubble", "case": "rising bubble N=4, lsrk 14s4, CFL 1", "N": 4, "ok": r["s_per_step"] is not None,
          "projected_1000_steps_s": r["s_per_step"] and 1000 * r["s_per_step"]})
print(json.dumps(r))
PY

mesh="-dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda -use_gpu_aware_mpi 0"
timeout 120 "$b/bench/esdg_bench" $mesh -bench_orders 1,2,3,4,5,6,7,8 -bench_nodes 4096000 -bench_reps 20 -bench_tag kernels > "$o/esdg-kernels.txt" 2>&1
grep '^{' "$o/esdg-kernels.txt" | sed 's/^{/{"bench": "esdg_kernels", /' >> "$out"
timeout 120 "$b/bench/esdg_bench" $mesh -esdg_terrain bell -esdg_terrain_h0 200 -esdg_terrain_a 500 -bench_orders 2,4,6,8 -bench_nodes 4096000 -bench_reps 20 -bench_tag terrain > "$o/esdg-terrain.txt" 2>&1
grep '^{' "$o/esdg-terrain.txt" | sed 's/^{/{"bench": "esdg_terrain", /' >> "$out"
cat "$out"
