#!/bin/bash
# device call T (1 x H200), session 12. P=.deps/packD (double) or .deps/packS (single); MODE picks the work.
# MODE=1 (single): the ESDG and compensation GPU tests; esdg_bench N=2..8; the plain bubble 1000 steps without
#   compensation, with density and energy compensated (-ts_lsrk_compensated_fields 0,4, folded into the fused stage)
#   and with every field compensated; the SASS opcode counts of the N = 4 box kernels (volume half sweep, faces) and
#   ncu's instruction, issue and stall counters of one launch of each (where single precision's time goes).
# MODE=2 (double, the same code): the same tests; esdg_bench; the plain bubble 1000 steps, and with density and
#   energy compensated; SASS and ncu as in MODE=1 (ten launches: the faces, the finishing and the plain volume kernel).
# MODE=3 (single, with the compensated fields' registers prefetched into L2 with the fused stage's other inputs): the
#   same tests; the plain bubble 1000 steps, with density alone compensated and with density and energy.
# MODE=4 (double, a022995's library: the same code as the final one): compute-sanitizer memcheck of the compensated
#   fused stage (all fields; density and energy, face and element mode); hb_bench at N = 5 and 8 (2e7 unknowns, the
#   defaults) and ncu's sections (speed of light, occupancy, warp states, memory and compute workload) of one launch of
#   each order's operator kernel: where the two orders below 90% of the roofline lose their time.
# MODE=5 (double, the hipBone 2D kernels' L2 prefetch of the next blocks' inputs): the hipBone GPU tests; hb_bench at
#   N = 3..15 (2e7 unknowns, each order's default variant) timing every layer count at prefetch distances 0, 0.5, 1
#   waves; the same for v4 and v5 at N = 9..15.
# MODE=6 (double, the same code): hb_bench at N = 5, 8, 12, 15 with short prefetch distances (0, 1e-6 (one block ahead),
#   0.02, 0.1 waves), every layer count.
# MODE=7 (double, several elements per block of the 2D kernel at N = 5): its GPU tests; hb_bench at N = 5 with
#   -hb_2d_elements 1, 2, 3, 4, 6, every layer count, each in its own process.
# MODE=8 (double, 4 elements per block the default at N = 5): every hipBone GPU test; hb_bench at N = 5 with the
#   defaults and with -hb_2d_elements 1.
MODE=${MODE:-1}; O=/tmp/resT$MODE
. "$P/device-prologue.sh"
MESH="-dm_p4est_brick_size 1,1,1 -dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda"
BUBP="-dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_time 1e9 -esdg_wall_time -dm_vec_type cuda"
kernels() {
  timeout 100 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag $1 >> $O/bench.jsonl 2>> $O/bench.err
  timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 4 -bench_orders 7,8 -bench_reps 10 -bench_tag $1 >> $O/bench.jsonl 2>> $O/bench.err
}
bubble() { # file, steps, extra options
  timeout 180 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUBP -ts_max_steps $2 "${@:3}" > $O/$1.txt 2>&1
}
sass() { # opcode counts per kernel of the N = 4 volume half sweep and face kernels
  timeout 120 cuobjdump -sass src/libsquall.so > /tmp/all.sass 2>&1
  awk '/Function : /{f=$3} /^[[:space:]]+\/\*[0-9a-f]+\*\/[[:space:]]+[A-Z@]/{if (f ~ /ESDGVolumeHalfILi5ELb1ELb[01]ELi0ELi6ELb0ELb0ELb0E|ESDGFaceFlux/) {l=$0; sub(/^[[:space:]]+\/\*[0-9a-f]+\*\/[[:space:]]+/, "", l); sub(/^@!?P[0-9T] +/, "", l); split(l, w, /[ .;]/); c[f" "w[1]]++}} END {for (k in c) print k, c[k]}' /tmp/all.sass | sort > $O/sass-counts.txt
}
NCUM=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_xu.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warp_latency_issue_stalled_selected.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,dram__bytes.sum
if [ $MODE = 1 ]; then
  (sgl; timeout 200 ctest -L gpu -R "esdg|compensated" --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   kernels new-r1; echo "== bench done $(el)"
   bubble bubble1000-plain 1000; echo "== plain $(el)"
   bubble bubble1000-comp04 1000 -ts_lsrk_compensated_fields 0,4; echo "== comp04 $(el)"
   bubble bubble1000-compall 1000 -ts_lsrk_compensated; echo "== compall $(el)"
   sass; echo "== sass $(el)"
   timeout 150 ncu --clock-control none --metrics $NCUM -k regex:"ESDGVolumeHalf|ESDGFaceFlux" -c 4 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 1 > $O/ncu.txt 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 2 ]; then
  (dbl; timeout 200 ctest -L gpu -R "esdg|compensated" --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   kernels new-r1; echo "== bench done $(el)"
   bubble bubble1000-plain 1000; echo "== plain $(el)"
   bubble bubble1000-comp04 1000 -ts_lsrk_compensated_fields 0,4; echo "== comp04 $(el)"
   sass; echo "== sass $(el)"
   timeout 150 ncu --clock-control none --metrics $NCUM -k regex:"ESDGVolumeHalf|ESDGFaceFlux" -c 10 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 1 > $O/ncu.txt 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 3 ]; then
  (sgl; timeout 200 ctest -L gpu -R "esdg|compensated" --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   bubble bubble1000-plain 1000; echo "== plain $(el)"
   bubble bubble1000-comp0 1000 -ts_lsrk_compensated_fields 0; echo "== comp0 $(el)"
   bubble bubble1000-comp04 1000 -ts_lsrk_compensated_fields 0,4; echo "== comp04 $(el)"
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 4 ]; then
  (dbl; for t in gpu_esdg_compensated gpu_esdg_compensated_fields gpu_esdg_compensated_fields_element; do san memcheck $t; done
   echo "== sanitizer $(el)"
   timeout 120 ./bench/hb_bench -hb_vec_type cuda -orders 5,8 -dofs 2e7 -reps 20 -cg_iterations 0 > $O/hb.txt 2>&1
   echo "== hb_bench $(el)"
   for N in 5 8; do
     timeout 90 ncu --clock-control none -k regex:HBLocalOp --launch-skip 5 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section LaunchStats ./bench/hb_bench -hb_vec_type cuda -orders $N -dofs 2e7 -reps 10 -cg_iterations 0 > $O/ncu-hb$N.txt 2>&1
   done
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 5 ]; then
  (dbl; timeout 200 ctest -L gpu -R "gpu_hb" --timeout 120 -j8 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   timeout 200 ./bench/hb_bench -hb_vec_type cuda -orders 3,4,5,6,7,8,9,10,11,12,13,14,15 -dofs 2e7 -reps 20 -cg_iterations 0 -v3_layers 2,3,4 -prefetch_distances 0,0.5,1 -tag default > $O/hb-pf.jsonl 2> $O/hb-pf.err
   echo "== default $(el)"
   timeout 150 ./bench/hb_bench -hb_vec_type cuda -orders 9,10,11,12,13,14,15 -dofs 2e7 -reps 20 -cg_iterations 0 -kernel_variants v4,v5 -v3_layers 2,3,4 -prefetch_distances 0,0.5,1 -tag v4v5 > $O/hb-pf-v45.jsonl 2> $O/hb-pf-v45.err
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 6 ]; then
  (dbl; timeout 150 ./bench/hb_bench -hb_vec_type cuda -orders 5,8,12,15 -dofs 2e7 -reps 20 -cg_iterations 0 -v3_layers 2,3,4 -prefetch_distances 0,1e-6,0.02,0.1 -tag short > $O/hb-pf-short.jsonl 2> $O/hb-pf-short.err
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 7 ]; then
  (dbl; timeout 100 ctest -L gpu -R "gpu_hb_2d_elements|gpu_hb_np1|gpu_hb_2d_all" --timeout 60 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   for E in 1 3 2 4 6; do
     timeout 40 ./bench/hb_bench -hb_vec_type cuda -orders 5 -dofs 2e7 -reps 20 -cg_iterations 0 -v3_layers 2,3,4 -hb_2d_elements $E -tag E$E >> $O/hb-elems.jsonl 2>> $O/hb-elems.err
   done
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 8 ]; then
  (dbl; timeout 120 ctest -L gpu -R "gpu_hb" --timeout 100 -j8 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   timeout 30 ./bench/hb_bench -hb_vec_type cuda -orders 5 -dofs 2e7 -reps 20 -cg_iterations 0 -tag default >> $O/hb-elems.jsonl 2>> $O/hb-elems.err
   timeout 30 ./bench/hb_bench -hb_vec_type cuda -orders 5 -dofs 2e7 -reps 20 -cg_iterations 0 -hb_2d_elements 1 -tag E1 >> $O/hb-elems.jsonl 2>> $O/hb-elems.err
   echo "== done $(el)") > $O/pipe.log 2>&1
fi
grep -E "tests passed|tests failed" $O/ctest.log
tail -n 2 $O/bubble*.txt 2>/dev/null
finish resT$MODE
