#!/bin/bash
# device call S (1 x H200), session 11. P=.deps/packD (double) or .deps/packS (single); MODE picks the work.
# The double pack carries the previous library (P/libsquall-old.so.xz: c00643e's ESDG code, 96c6384 double / 6072a0f single),
# which the same binaries load through LD_LIBRARY_PATH (their RUNPATH comes after it): A/B in one call; esdg_bench
# reads the solver's private struct, so the old library runs with the old bench binary (P/esdg_bench-old.xz).
# MODE=1 (double): the ESDG GPU tests; esdg_bench N=2..8 with this library and the old one, twice, alternating; the
#   plain bubble 300 steps with each; the plain bubble 1000 steps with this library (time to solution).
# MODE=2 (single; the single pack has no room for the old library: 66 MiB with it): the ESDG GPU tests; esdg_bench
#   N=2..8; the bubble 1000 steps plain and in perturbation form.
# MODE=3 (double): the bubble 1000 steps in perturbation form (the same form as MODE=2's, for the ratio).
# MODE=4 (double, the faces without per-node logarithms too): the ESDG GPU tests; esdg_bench new / old, twice; the
#   plain bubble 300 steps with each library; the bubble 300 steps in perturbation form with this library.
# MODE=5 (single, the same code): the ESDG GPU tests; esdg_bench; the bubble 1000 steps plain and in perturbation form.
# MODE=6 (double, the same code): compute-sanitizer memcheck of ESDG GPU tests through the new face code (ES and EC
#   faces, a warped mesh, the perturbation form) and racecheck of the half sweep with the scaled pair values.
# MODE=7 (double, the same code): the SASS of the N = 4 half-sweep kernels (cuobjdump) and ncu's instruction and pipe
#   counters of the box half sweep at N = 4 (esdg_bench, one launch profiled): where the useful-flop ceiling lies.
# MODE=8 (double, the box half sweep without the gravity terms of x and y pairs too): the ESDG GPU tests; esdg_bench
#   new / old once; the plain bubble 300 steps.
# MODE=9 (single, the same code): the ESDG GPU tests; esdg_bench; the plain bubble 300 steps.
MODE=${MODE:-1}; O=/tmp/resS$MODE
. "$P/device-prologue.sh"
PA=$(readlink -f "$P")
[ -f "$PA/libsquall-old.so.xz" ] && mkdir -p /tmp/oldlib && xz -dc "$PA/libsquall-old.so.xz" > /tmp/oldlib/libsquall.so.0 && ln -sf libsquall.so.0 /tmp/oldlib/libsquall.so
[ -f "$PA/esdg_bench-old.xz" ] && xz -dc "$PA/esdg_bench-old.xz" > /tmp/oldlib/esdg_bench && chmod +x /tmp/oldlib/esdg_bench # built against the old private headers
MESH="-dm_p4est_brick_size 1,1,1 -dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda"
BUBP="-dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_time 1e9 -esdg_wall_time -dm_vec_type cuda"
kernels() { # tag, then the library dir (or none): esdg_bench N=2..8 (the old library with the old binary: the bench reads
  # the solver's private struct, whose SquallGas grew)
  local L=${2:-} B=./bench/esdg_bench
  [ -n "$L" ] && B=$L/esdg_bench
  LD_LIBRARY_PATH=$L${L:+:}$LD_LIBRARY_PATH timeout 100 $B $MESH -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag $1 >> $O/bench.jsonl 2>> $O/bench.err
  LD_LIBRARY_PATH=$L${L:+:}$LD_LIBRARY_PATH timeout 60 $B $MESH -dm_forest_initial_refinement 4 -bench_orders 7,8 -bench_reps 10 -bench_tag $1 >> $O/bench.jsonl 2>> $O/bench.err
}
bubble() { # file, steps, library dir (or ""), extra options
  local L=$3
  LD_LIBRARY_PATH=$L${L:+:}$LD_LIBRARY_PATH timeout 180 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUBP -ts_max_steps $2 "${@:4}" > $O/$1.txt 2>&1
}
if [ $MODE = 1 ]; then
  (dbl; timeout 150 ctest -L gpu -R esdg --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   for r in 1 2; do
     echo "== bench new r$r $(el)"; kernels new-r$r
     echo "== bench old r$r $(el)"; kernels old-r$r /tmp/oldlib
   done
   echo "== bubble 300 new $(el)"; bubble bubble300-new 300 ""
   echo "== bubble 300 old $(el)"; bubble bubble300-old 300 /tmp/oldlib
   echo "== bubble 1000 new $(el)"; bubble bubble1000-new 1000 ""
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 2 ]; then
  (sgl; timeout 150 ctest -L gpu -R esdg --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   echo "== bench new $(el)"; kernels new-r1
   echo "== bubble 1000 plain new $(el)"; bubble bubble1000-plain-new 1000 ""
   echo "== bubble 1000 pert new $(el)"; bubble bubble1000-pert-new 1000 "" -esdg_perturbation
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 4 ]; then
  (dbl; timeout 150 ctest -L gpu -R esdg --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   for r in 1 2; do
     echo "== bench new r$r $(el)"; kernels new-r$r
     echo "== bench old r$r $(el)"; kernels old-r$r /tmp/oldlib
   done
   echo "== bubble 300 new $(el)"; bubble bubble300-new 300 ""
   echo "== bubble 300 old $(el)"; bubble bubble300-old 300 /tmp/oldlib
   echo "== bubble 300 pert new $(el)"; bubble bubble300-pert-new 300 "" -esdg_perturbation
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 5 ]; then
  (sgl; timeout 150 ctest -L gpu -R esdg --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   echo "== bench new $(el)"; kernels new-r1
   echo "== bubble 1000 plain new $(el)"; bubble bubble1000-plain-new 1000 ""
   echo "== bubble 1000 pert new $(el)"; bubble bubble1000-pert-new 1000 "" -esdg_perturbation
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 6 ]; then
  (dbl; for t in gpu_esdg_entropy_es gpu_esdg_entropy_ec gpu_esdg_pert_bubble_warp_element gpu_esdg_pert_bubble; do san memcheck $t; done
   san racecheck gpu_esdg_entropy_half_np2
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 7 ]; then
  (dbl; command -v cuobjdump; command -v ncu
   for k in _Z14ESDGVolumeHalfILi5ELb1ELb0ELi0ELi6ELb0ELb0ELb0EEv9SquallGas8ESDGArgsPKdPd _Z14ESDGVolumeHalfILi5ELb1ELb1ELi0ELi6ELb0ELb0ELb0EEv9SquallGas8ESDGArgsPKdPd; do
     timeout 60 cuobjdump -sass -fun $k src/libsquall.so > $O/sass-$k.txt 2>&1; done
   echo "== sass $(el)"
   M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__inst_executed_pipe_fp64.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
   timeout 120 ncu --clock-control none --metrics $M -k regex:ESDGVolumeHalf -c 6 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 1 > $O/ncu-volume.txt 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 8 ] || [ $MODE = 9 ]; then
  (if [ $MODE = 8 ]; then dbl; else sgl; fi
   timeout 150 ctest -L gpu -R esdg --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   echo "== bench new $(el)"; kernels new-r1
   [ $MODE = 8 ] && { echo "== bench old $(el)"; kernels old-r1 /tmp/oldlib; }
   echo "== bubble 300 new $(el)"; bubble bubble300-new 300 ""
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 3 ]; then
  (dbl; echo "== bubble 1000 pert new $(el)"; bubble bubble1000-pert-new 1000 "" -esdg_perturbation
   echo "== done $(el)") > $O/pipe.log 2>&1
fi
grep -E "tests passed|tests failed" $O/ctest.log
tail -n 3 $O/bubble*.txt 2>/dev/null
finish resS$MODE
