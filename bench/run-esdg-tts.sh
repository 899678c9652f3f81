#!/usr/bin/env bash
# Time to solution of the rising bubble, N=4, 262,144 elements (2x2x2 base cells refined 5 times = one
# cell refined 6 times), 14-stage LSRK with the CFL step, on one GPU against the CPU reference on all
# cores of the same machine.
#   bench/run-esdg-tts.sh BUILD_DIR [GPU_STEPS=1000] [CPU_STEPS=3, 0: none] [CPU_RANKS=nproc]
# The CPU run is a few steps; its per-step time is scaled to GPU_STEPS and reported as such.
# Writes esdg-tts-gpu.txt, esdg-tts-cpu.txt to $OUT (or .) and prints one JSON line.
set -uo pipefail
b=${1:?build dir}; gsteps=${2:-1000}; csteps=${3:-3}; cranks=${4:-$(nproc)}; o=${OUT:-.}
root=$(cd "$(dirname "$0")/.." && pwd)
case="-options_file $root/options/rising_bubble.opts -dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_time 1e9 -esdg_wall_time"
timeout 400 "$b/tutorials/rising_bubble" $case -ts_max_steps "$gsteps" -dm_vec_type cuda -use_gpu_aware_mpi 0 > "$o/esdg-tts-gpu.txt" 2>&1
if [ "$csteps" -gt 0 ]; then
  timeout 200 mpiexec -n "$cranks" "$b/tutorials/rising_bubble" $case -ts_max_steps "$csteps" > "$o/esdg-tts-cpu.txt" 2>&1
else
  : > "$o/esdg-tts-cpu.txt" # CPU_STEPS=0: no CPU reference (its fields are null)
fi
python3 - "$root/bench" "$o/esdg-tts-gpu.txt" "$o/esdg-tts-cpu.txt" "$gsteps" "$cranks" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from tutorial_log import parse
g, c, n = parse(sys.argv[2]), parse(sys.argv[3]), int(sys.argv[4])
print(json.dumps({"case": "rising bubble N=4, 262144 elements, lsrk 14s4, CFL 1", "gpu": g, "cpu_ranks": int(sys.argv[5]), "cpu": c,
                  "cpu_wall_s_for_gpu_steps_extrapolated": c["s_per_step"] and c["s_per_step"] * n,
                  "speedup_gpu_vs_cpu_node": (c["s_per_step"] / g["s_per_step"]) if (c["s_per_step"] and g["s_per_step"]) else None}))
PY
