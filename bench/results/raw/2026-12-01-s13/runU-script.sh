#!/bin/bash
# device call U (1 x H200), session 13. P=.deps/packD (double); MODE picks the work.
# MODE=1 (double, hipBone v7: the contractions on the FP64 tensor cores): the v7 GPU tests and gpu_hb_np1; hb_bench at
#   N = 9..15 (2e7 unknowns) timing v4, v5 (their default layers) and v7 on one operator size each; ncu's sections of one
#   launch of the v7 kernel at N = 15 and N = 11; compute-sanitizer memcheck of gpu_hb_v7_np1 (one rank).
# MODE=2 (double, v7 with D's fragments in shared memory and phase 2's factors in two batches per layer, the first
#   requested a layer ahead): the same as MODE=1.
# MODE=3 (double, the session's final library code): every GPU test (hipBone, ESDG, P1, meshes); compute-sanitizer
#   memcheck of gpu_hb_v7_dirichlet_np2 (run on one rank) and of gpu_esdg_half_N4; the FP64 atomicAdd probe (consecutive,
#   one sector per lane, scattered) into 1.44 M and 53.1 M values (the scalar matrices' nnz at 0.56 M and 21.1 M tets), and
#   ncu's L2 and memory tables of one launch of the reduce kernel at 21.1 M tets.
# MODE=4 (single, the same code): every GPU test.
# MODE=5 (double, the atomic probe's self-check and gpu_p1_atomic_probe): every P1 GPU test; compute-sanitizer memcheck of
#   gpu_p1_atomic_probe; the probe at the resU3 sizes again (now checked).
# MODE=6 (double, the review: v7's phase 1 and 3 through one helper, the probe's grid from the device's SM count): the
#   hipBone and P1 GPU tests; memcheck of gpu_hb_v7_np1; hb_bench v7 at N = 15 and 11.
MODE=${MODE:-1}; O=/tmp/resU$MODE
. "$P/device-prologue.sh"
if [ $MODE = 1 ] || [ $MODE = 2 ]; then
  (dbl; timeout 150 ctest -L gpu -R "gpu_hb_v7|gpu_hb_np1" --timeout 120 -j4 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   timeout 200 ./bench/hb_bench -hb_vec_type cuda -orders 15,14,13,12,11,10,9 -dofs 2e7 -reps 20 -cg_iterations 0 -kernel_variants v4,v5,v7 -tag v457 > $O/hb-v7.jsonl 2> $O/hb-v7.err
   echo "== bench done $(el)"
   for N in 15 11; do
     timeout 60 ncu --clock-control none -k regex:HBLocalOpV7 --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section LaunchStats ./bench/hb_bench -hb_vec_type cuda -orders $N -dofs 2e7 -reps 5 -cg_iterations 0 -hb_kernel_variant v7 > $O/ncu-v7-$N.txt 2>&1
   done
   echo "== ncu done $(el)"
   san memcheck gpu_hb_v7_np1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 3 ]; then
  (dbl; timeout 420 ctest -L gpu --timeout 150 -j8 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   san memcheck gpu_hb_v7_dirichlet_np2
   san memcheck gpu_esdg_half_N4
   echo "== sanitizer $(el)"
   timeout 60 ./bench/p1_assembly -bench_cells 2,2,2 -bench_atomic_probe 1440117,53135989 -bench_repeats 10 -bench_json $O/p1-probe.jsonl > $O/p1-probe.out 2>&1
   echo "== probe $(el)"
   timeout 150 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section Occupancy -k regex:P1AssembleReduce --launch-count 1 ./bench/p1_assembly -bench_cells 154,154,148 -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared -bench_host_repeats 1 -bench_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_bs3_max_mtets 0 > $O/ncu-p1-large.txt 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 4 ]; then
  (sgl; timeout 480 ctest -L gpu --timeout 150 -j8 --output-on-failure > $O/ctest.log 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 5 ]; then
  (dbl; timeout 200 ctest -L gpu -R "p1" --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   san memcheck gpu_p1_atomic_probe
   timeout 90 ./bench/p1_assembly -bench_require_gpu -bench_cells 2,2,2 -bench_atomic_probe 1440117,53135989 -bench_repeats 10 -bench_json $O/p1-probe.jsonl > $O/p1-probe.out 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 6 ]; then
  (dbl; timeout 300 ctest -L gpu -R "gpu_hb|p1" --timeout 150 -j8 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   san memcheck gpu_hb_v7_np1
   timeout 60 ./bench/hb_bench -hb_vec_type cuda -orders 15,11 -dofs 2e7 -reps 20 -cg_iterations 0 -hb_kernel_variant v7 -tag v7review > $O/hb-v7.jsonl 2> $O/hb-v7.err
   echo "== done $(el)") > $O/pipe.log 2>&1
fi
grep -E "tests passed|tests failed" $O/ctest.log
finish resU$MODE
