#!/usr/bin/env bash
# hipBone CG (KSP hbcg + MATSHELL) on 1..G GPUs of one node, one rank per GPU (bench/gpu-bind.sh), with the
# communication overlap on and off (-hb_overlap):
#   weak:   HB_WEAK_DOFS unknowns per GPU (default 2e7);   strong: HB_STRONG_DOFS in all (default 2e7).
#   bench/run-hb-scaling.sh BUILD_DIR "1 2 4 8" "7 15"
# The figure of merit of each run (hb_bench's "hb_cg" records, NekBone's flop count) goes to stdout as JSON
# lines, tagged weak/strong, gpus, overlap; logs to $OUT (or .).
set -uo pipefail
b=${1:?build dir}; counts=${2:-"1 2"}; orders=${3:-"7 15"}; o=${OUT:-.}
root=$(cd "$(dirname "$0")/.." && pwd)
wd=${HB_WEAK_DOFS:-2e7}; sd=${HB_STRONG_DOFS:-2e7}
for N in $orders; do
  for g in $counts; do
    for kind in weak strong; do
      dofs=$sd; [ $kind = weak ] && dofs=$(python3 -c "print('%g' % ($wd * $g))")
      for ov in 1 0; do
        [ $g = 1 ] && [ $ov = 0 ] && continue
        timeout 200 mpiexec -n "$g" "$root/bench/gpu-bind.sh" "$b/bench/hb_bench" -hb_vec_type cuda -orders "$N" -dofs "$dofs" -reps 10 -cg_iterations 50 -solvers hbcg \
          -hb_overlap $ov -hb_log_setup 0 -use_gpu_aware_mpi 0 -tag "$kind,gpus=$g,overlap=$ov" 2> "$o/hb-scaling-N$N-$kind-g$g-ov$ov.log" | grep '"hb_cg"'
      done
    done
  done
done
