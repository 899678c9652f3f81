#!/bin/bash
# device call V (1 x H200), session 14. P=.deps/packD (double); MODE picks the work.
# MODE=1 (double, hipBone v8: v7's tensor-core element in a persistent block per SM, the factors streamed into shared
#   memory a layer ahead by cp.async): the v8 and v7 GPU tests (v8 equal to v7 bit for bit); hb_bench at N = 9..15
#   (2e7 unknowns) timing v4, v5, v7 and v8 on one operator size each; ncu's sections of one v8 launch at N = 15 and
#   N = 11; compute-sanitizer memcheck and racecheck of gpu_hb_v8_np1 (one rank).
# MODE=2 (double, the 2D kernel with several elements per block also at N = 9 and 11): the multi-element GPU tests and
#   gpu_hb_np1; hb_bench at N = 9 and 11 (2e7 unknowns): v4 with -hb_2d_elements 1, 2, 3, 4, 6 at every layer count, each
#   in its own process, and the defaults (v5); compute-sanitizer memcheck of gpu_hb_2d_elements3_N9_np1.
# MODE=3 (double, hipBone v8: v7's arithmetic at three blocks per SM, q and t unpadded with an XOR swizzle, g_s in
#   registers): the v8 and v7 GPU tests (v8 equal to v7 bit for bit); hb_bench at N = 9..15 (2e7 unknowns): v5, v7 and v8
#   with 4 warps in one process, v8 with 6 and with 8 warps each in its own; ncu's sections of one v8 launch (4 warps)
#   at N = 15; compute-sanitizer memcheck of gpu_hb_v8_np1 and racecheck of gpu_hb_v8_w4_np1.
# MODE=4 (double, the session's final library code: v5 the default at N = 11): every GPU test; hb_bench with the default
#   kernels at N = 1..15 (2e7 unknowns), the operator and 100 CG iterations (NekBone's figure of merit).
# MODE=5 (double, the review: ESDG's boxPhiZ read from the solver instead of a CUDA copy): the ESDG GPU tests.
MODE=${MODE:-1}; O=/tmp/resV$MODE
. "$P/device-prologue.sh"
if [ $MODE = 1 ]; then
  (dbl; timeout 150 ctest -L gpu -R "gpu_hb_v8|gpu_hb_v7_np1" --timeout 120 -j4 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   timeout 240 ./bench/hb_bench -hb_vec_type cuda -orders 15,14,13,12,11,10,9 -dofs 2e7 -reps 20 -cg_iterations 0 -kernel_variants v4,v5,v7,v8 -tag v4578 > $O/hb-v8.jsonl 2> $O/hb-v8.err
   echo "== bench done $(el)"
   for N in 15 11; do
     timeout 60 ncu --clock-control none -k regex:HBLocalOpV8 --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section LaunchStats ./bench/hb_bench -hb_vec_type cuda -orders $N -dofs 2e7 -reps 5 -cg_iterations 0 -hb_kernel_variant v8 > $O/ncu-v8-$N.txt 2>&1
   done
   echo "== ncu done $(el)"
   san memcheck gpu_hb_v8_np1
   san racecheck gpu_hb_v8_np1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 2 ]; then
  (dbl; timeout 150 ctest -L gpu -R "gpu_hb_2d_elements|gpu_hb_np1" --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   for N in 9 11; do
     for E in 1 2 3 4 6; do
       timeout 40 ./bench/hb_bench -hb_vec_type cuda -orders $N -dofs 2e7 -reps 20 -cg_iterations 0 -hb_kernel_variant v4 -v3_layers 2,3,4 -hb_2d_elements $E -tag E$E >> $O/hb-elems.jsonl 2>> $O/hb-elems.err
     done
     timeout 30 ./bench/hb_bench -hb_vec_type cuda -orders $N -dofs 2e7 -reps 20 -cg_iterations 0 -tag default >> $O/hb-elems.jsonl 2>> $O/hb-elems.err
   done
   echo "== bench done $(el)"
   san memcheck gpu_hb_2d_elements3_N9_np1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 3 ]; then
  (dbl; timeout 150 ctest -L gpu -R "gpu_hb_v8|gpu_hb_v7_np1" --timeout 120 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   timeout 180 ./bench/hb_bench -hb_vec_type cuda -orders 15,14,13,12,11,10,9 -dofs 2e7 -reps 20 -cg_iterations 0 -kernel_variants v5,v7,v8 -hb_v8_warps 4 -tag w4 > $O/hb-v8.jsonl 2> $O/hb-v8.err
   for W in 6 8; do
     timeout 80 ./bench/hb_bench -hb_vec_type cuda -orders 15,14,13,12,11,10,9 -dofs 2e7 -reps 20 -cg_iterations 0 -hb_kernel_variant v8 -hb_v8_warps $W -tag w$W >> $O/hb-v8.jsonl 2>> $O/hb-v8.err
   done
   echo "== bench done $(el)"
   timeout 60 ncu --clock-control none -k regex:HBLocalOpV8 --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section LaunchStats ./bench/hb_bench -hb_vec_type cuda -orders 15 -dofs 2e7 -reps 5 -cg_iterations 0 -hb_kernel_variant v8 -hb_v8_warps 4 > $O/ncu-v8-15.txt 2>&1
   echo "== ncu done $(el)"
   san memcheck gpu_hb_v8_np1
   san racecheck gpu_hb_v8_w4_np1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 4 ]; then
  (dbl; timeout 300 ctest -L gpu --timeout 150 -j8 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   timeout 400 ./bench/hb_bench -hb_vec_type cuda -orders 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 -dofs 2e7 -reps 20 -cg_iterations 100 -tag final > $O/hb-final.jsonl 2> $O/hb-final.err
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 5 ]; then
  (dbl; timeout 240 ctest -L gpu -R "esdg|bubble|lsrk" --timeout 150 -j8 --output-on-failure > $O/ctest.log 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
fi
grep -E "tests passed|tests failed" $O/ctest.log
finish resV$MODE
