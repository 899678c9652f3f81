#!/usr/bin/env bash
# The README's first command: install what is missing, build squall, and run the main job, a small
# 3D rising bubble (on the GPU when PETSc has CUDA and a GPU is present, else on the CPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
. "$root/scripts/env.sh"
build=${SQUALL_BUILD_DIR:-$root/build}
gpu=()
if [ "$SQUALL_PETSC_CUDA" = 1 ] && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  gpu=(-dm_vec_type cuda)
  echo "running the rising bubble on the GPU"
else
  echo "running the rising bubble on the CPU"
fi
np=${SQUALL_NP:-$(( $(nproc) < 4 ? $(nproc) : 4 ))}
[ ${#gpu[@]} -gt 0 ] && np=1
mpiexec -n "$np" "$build/tutorials/rising_bubble" -options_file "$root/options/rising_bubble.opts" \
  -dm_forest_initial_refinement 1 -esdg_order 3 -ts_max_time 50 -esdg_monitor 20 "${gpu[@]}" "$@"
