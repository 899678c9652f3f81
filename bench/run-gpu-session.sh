#!/usr/bin/env bash
# Everything a GPU session measures, in one command, within a time budget: the GPU tests, the ESDG kernel
# benchmark (all orders, ablation at N=4), the time to solution and the single-precision accuracy
# options, the scaling runs for every GPU of the session, the hipBone kernel generations (and the v3
# kernel's layers per step) and the P1
# benchmark (all assembly modes and reduce variants). Each step has its own timeout and runs only while the budget
# lasts; results go to $OUT (one folder per step) and a tarball $OUT/gpu-session.tgz.
#   PATH=$PETSC_DIR/bin:$PATH PETSC_DIR=... bench/run-gpu-session.sh BUILD_DIR [BUDGET_S=540]
# Then bench/record_esdg.py (and the P1/hipBone records) turn the raw output into bench/results/.
set -uo pipefail
b=${1:?build dir}; budget=${2:-540}; o=${OUT:-$PWD/gpu-session}; root=$(cd "$(dirname "$0")/.." && pwd)
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0" UCX_TLS=${UCX_TLS:-self,sm}
mkdir -p "$o"; t0=$(date +%s); left() { echo $(( budget - ($(date +%s) - t0) )); }
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
# a session given some of the GPUs (CUDA_VISIBLE_DEVICES, as scripts/device-run.sh gives each precision one) scales over those
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && ngpu=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
counts=$(seq -s ' ' 1 "${ngpu:-1}")
single=$(grep -q "define PETSC_USE_REAL_SINGLE 1" "${PETSC_DIR:-/nonexistent}/include/petscconf.h" 2>/dev/null && echo 1 || echo 0)
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv,noheader > "$o/smi.txt" 2>&1
step() { # name timeout command...
  local name=$1 to=$2; shift 2
  [ "$(left)" -lt 20 ] && { echo "== $name skipped (budget)"; return; }
  [ "$to" -gt "$(left)" ] && to=$(left)
  echo "== $name (t=$(( $(date +%s) - t0 ))s, limit ${to}s)"; mkdir -p "$o/$name"
  (cd "$o/$name" && OUT="$o/$name" timeout "$to" "$@" > "$o/$name/stdout.txt" 2>&1); echo "   rc $?"
}
step tests 150 bash -c "cd '$b' && ctest -L gpu --timeout 90 -j6 --output-on-failure"
grep -E "tests passed|\(Failed\)" "$o/tests/stdout.txt"
step esdg 200 bash "$root/bench/run-esdg-gpu.sh" "$b"
# time to solution; in single precision without the CPU reference (measured in double), then the
# accuracy options of the Precision section (-esdg_reference_residual, -esdg_perturbation)
if [ "$single" = 0 ]; then
  step tts 200 bash "$root/bench/run-esdg-tts.sh" "$b" 1000 3 "$(nproc)"
else
  step tts 120 bash "$root/bench/run-esdg-tts.sh" "$b" 1000 0
fi
bub="-options_file $root/options/rising_bubble.opts -dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_time 1e9 -esdg_wall_time -ts_max_steps 1000 -dm_vec_type cuda"
step bubble-ref 150 bash -c "'$b/tutorials/rising_bubble' $bub -esdg_reference_residual"
# single precision: the perturbation form (conservation to round-off; see README, Precision)
[ "$single" = 1 ] && step bubble-pert 150 bash -c "'$b/tutorials/rising_bubble' $bub -esdg_perturbation"
[ "${ngpu:-1}" -gt 1 ] && step esdg-scaling 200 bash "$root/bench/run-esdg-scaling.sh" "$b" "$counts" 30
[ "${ngpu:-1}" -gt 1 ] && step hb-scaling 150 bash "$root/bench/run-hb-scaling.sh" "$b" "$counts" "7 15"
step hb-kernels 150 "$b/bench/hb_bench" -hb_vec_type cuda -orders 3,5,7,9,11,13,15 -dofs 2e7 -reps 50 -cg_iterations 50 -solvers hbcg -kernel_variants v3,v2,v1
# the v3 2D kernel with 2, 3, 4 layers per step (-hb_v3_layers) on one operator per order: ~45 s
step hb-v3-layers 90 "$b/bench/hb_bench" -hb_vec_type cuda -orders 9,10,11,12,13,14,15 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v3 -v3_layers 2,3,4
step p1 170 "$b/bench/p1_assembly" -bench_json p1.jsonl
tar -C "$o" -czf "$o/gpu-session.tgz" --exclude=gpu-session.tgz . && echo "results: $o/gpu-session.tgz"
