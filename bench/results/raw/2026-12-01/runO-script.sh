#!/bin/bash
# device call O (1 x H200), session 7. P=.deps/packD (double) or .deps/packS (single).
# MODE=1 (double, HEAD 7dca385): all GPU tests (P1 reduce now the GPU default, hipBone default by order);
#   hipBone 2D kernels (v2, v4, v5; L 2,3,4) at low orders N=2..8 with -hb_kernel_switch 1 against the 3D kernel;
#   mountain_advdiff end to end, reduce (default) vs slots; bubble 300 steps double perturbation form.
set -o pipefail
MODE=${MODE:-1}; O=/tmp/resO$MODE; mkdir -p $O
T0=$(date +%s)
P=${P:-.deps/packD}
mkdir -p /opt/squall-deps && tar -C /opt/squall-deps -xJf $P/cuda-runtime.tar.xz || exit 1
if [ -f $P/single-delta.tar.xz ]; then cp -a /opt/squall-deps/cuda /opt/squall-deps/cuda-single && tar -C /opt/squall-deps -xJf $P/single-delta.tar.xz || exit 1; fi
for f in snap snaps; do [ -f $P/$f.txz ] && { tar -C /tmp -xJf $P/$f.txz || exit 1; }; done
echo "unpacked t=$(( $(date +%s)-T0 ))s"; cp $P/commit.txt $O/
cc=/tmp/snap/b/CMakeCache.txt; [ -f $cc ] || cc=/tmp/snaps/b/CMakeCache.txt
py=$(sed -n 's/^_\?Python3_EXECUTABLE:[A-Z]*=//p' $cc | head -1)
[ -n "$py" ] && [ ! -e "$py" ] && mkdir -p "$(dirname "$py")" && ln -sf "$(command -v python3)" "$py"
P0=$PATH; export PETSC_OPTIONS="-use_gpu_aware_mpi 0" UCX_TLS=self,sm
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv,noheader | tee $O/smi.txt
BUB="-dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_time 1e9 -esdg_wall_time -ts_max_steps 1000 -dm_vec_type cuda"
dbl() { OPTS=/tmp/snap/options/rising_bubble.opts; export PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b; }
sgl() { OPTS=/tmp/snaps/options/rising_bubble.opts; export PATH=/opt/squall-deps/cuda-single/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda-single; cd /tmp/snaps/b; }
san() { # tool test: ctest's command of the test under compute-sanitizer (one rank)
  local cmd; cmd=$(ctest -R "^$2\$" -N -V | sed -n 's/.*Test command: //p' | tr -d '"' | sed 's|^[^ ]*mpiexec -n [0-9]* ||')
  echo "== $1 $2: $cmd" >> $O/sanitizer.log
  timeout 120 compute-sanitizer --tool $1 --error-exitcode 9 $cmd >> $O/sanitizer.log 2>&1; echo "$1 $2 rc $?" | tee -a $O/sanitizer-summary.txt
}
(sleep ${WATCH:-560} && tar -C /tmp -czf $OUT/resO$MODE${TAG:-}.tgz resO$MODE) > /dev/null 2>&1 & WD=$!
if [ $MODE = 1 ]; then
  (dbl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest-double.log 2>&1)
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  (dbl; echo "== hipBone low N 2D t=$(( $(date +%s)-T0 ))s"
   timeout 140 ./bench/hb_bench -hb_vec_type cuda -orders 2,3,4,5,6,7,8 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v2,v4,v5 -v3_layers 2,3,4 -hb_kernel_switch 1 -tag lowN_2d > $O/hb-lowN-2d.jsonl 2> $O/hb-lowN-2d.err
   echo "== hipBone low N 3D t=$(( $(date +%s)-T0 ))s"
   timeout 60 ./bench/hb_bench -hb_vec_type cuda -orders 2,3,4,5,6,7,8 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v4 -tag lowN_3d > $O/hb-lowN-3d.jsonl 2> $O/hb-lowN-3d.err
   echo "== mountain_advdiff reduce (default) t=$(( $(date +%s)-T0 ))s"
   timeout 60 ./tutorials/mountain_advdiff -options_file /tmp/snap/options/mountain_advdiff.opts -advdiff_monitor 0 -log_view > $O/advdiff-reduce.txt 2>&1
   echo "== mountain_advdiff slots t=$(( $(date +%s)-T0 ))s"
   timeout 60 ./tutorials/mountain_advdiff -options_file /tmp/snap/options/mountain_advdiff.opts -advdiff_monitor 0 -log_view -p1_assembly_mode slots > $O/advdiff-slots.txt 2>&1
   echo "== double bubble 300 pert t=$(( $(date +%s)-T0 ))s"
   timeout 130 ./tutorials/rising_bubble -options_file $OPTS $BUB -ts_max_steps 300 -esdg_perturbation > $O/bubble-double-pert-300.txt 2>&1
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 2 ]; then
  (sgl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest-single.log 2>&1)
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  (sgl; echo "== hipBone single default N=1..15 t=$(( $(date +%s)-T0 ))s"
   timeout 100 ./bench/hb_bench -hb_vec_type cuda -orders 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 -dofs 2e7 -reps 50 -cg_iterations 0 -tag default_single > $O/hb-default.jsonl 2> $O/hb-default.err
   echo "== hipBone single v6 t=$(( $(date +%s)-T0 ))s"
   timeout 60 ./bench/hb_bench -hb_vec_type cuda -orders 1,2,3,4,5,6,7,8 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v6 -hb_kernel_switch 10 -tag v6_single > $O/hb-v6.jsonl 2> $O/hb-v6.err
   echo "== hipBone single 3D t=$(( $(date +%s)-T0 ))s"
   timeout 60 ./bench/hb_bench -hb_vec_type cuda -orders 1,2,3,4,5,6,7,8 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v4 -hb_kernel_switch 10 -tag 3d_single > $O/hb-3d.jsonl 2> $O/hb-3d.err
   echo "== hipBone single 2D layers t=$(( $(date +%s)-T0 ))s"
   timeout 100 ./bench/hb_bench -hb_vec_type cuda -orders 2,3,4,5,6,7,8 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v4 -v3_layers 2,3,4 -hb_kernel_switch 1 -tag 2d_single > $O/hb-2d.jsonl 2> $O/hb-2d.err
   echo "== hipBone single CG FOM t=$(( $(date +%s)-T0 ))s"
   timeout 90 ./bench/hb_bench -hb_vec_type cuda -orders 3,7,15 -dofs 4e7 -reps 20 -cg_iterations 100 -solvers hbcg -tag fom_single > $O/hb-fom.jsonl 2> $O/hb-fom.err
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 4 ]; then
  (dbl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest-double.log 2>&1)
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  (dbl; echo "== sanitizer t=$(( $(date +%s)-T0 ))s"
   san memcheck gpu_hb_v6_np1; san racecheck gpu_hb_v6_np1
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 5 ]; then
  (dbl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest-double.log 2>&1)
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  (dbl; echo "== hipBone double default N=1..15 t=$(( $(date +%s)-T0 ))s"
   timeout 120 ./bench/hb_bench -hb_vec_type cuda -orders 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 -dofs 2e7 -reps 50 -cg_iterations 0 -tag default_double > $O/hb-default.jsonl 2> $O/hb-default.err
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 6 ]; then
  (dbl; timeout 60 ctest -R "gpu_hb_v6|gpu_hb_np|gpu_hb_3d" --timeout 50 -j6 --output-on-failure > $O/ctest-double.log 2>&1)
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  (dbl; timeout 40 ./bench/hb_bench -hb_vec_type cuda -orders 1,2,3 -dofs 2e7 -reps 50 -cg_iterations 0 -tag v6_regs64 > $O/hb-default.jsonl 2> $O/hb-default.err
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 3 ]; then
  (dbl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest-double.log 2>&1)
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  (dbl; echo "== hipBone v6 low N t=$(( $(date +%s)-T0 ))s"
   timeout 100 ./bench/hb_bench -hb_vec_type cuda -orders 1,2,3,4,5,6,7,8,9 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v6 -hb_kernel_switch 10 -tag v6 > $O/hb-v6.jsonl 2> $O/hb-v6.err
   echo "== hipBone default N=1..9 t=$(( $(date +%s)-T0 ))s"
   timeout 100 ./bench/hb_bench -hb_vec_type cuda -orders 1,2,3,4,5,6,7,8,9 -dofs 2e7 -reps 50 -cg_iterations 0 -tag default > $O/hb-default.jsonl 2> $O/hb-default.err
   echo "== hipBone 2D at N=1 t=$(( $(date +%s)-T0 ))s"
   timeout 40 ./bench/hb_bench -hb_vec_type cuda -orders 1 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v4 -v3_layers 2,3,4 -hb_kernel_switch 1 -tag n1_2d > $O/hb-n1-2d.jsonl 2> $O/hb-n1-2d.err
   echo "== hipBone CG FOM t=$(( $(date +%s)-T0 ))s"
   timeout 120 ./bench/hb_bench -hb_vec_type cuda -orders 3,7,15 -dofs 4e7 -reps 20 -cg_iterations 100 -solvers hbcg -tag fom > $O/hb-fom.jsonl 2> $O/hb-fom.err
   echo "== ncu P1 reduce t=$(( $(date +%s)-T0 ))s"
   timeout 90 ncu --clock-control none -k regex:P1AssembleReduceStaged --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis ./bench/p1_assembly -bench_cells 46,46,44 -bench_max_mtets 0.5 -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_xyz -bench_host_max_mtets 0 -bench_repeats 5 -bench_order_max_mtets 0 -bench_bs3_max_mtets 0 > $O/ncu-p1.txt 2>&1
   echo "== ncu hb N15 t=$(( $(date +%s)-T0 ))s"
   timeout 90 ncu --clock-control none -k regex:HBLocalOp --launch-skip 5 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis ./bench/hb_bench -hb_vec_type cuda -orders 15 -dofs 2e7 -reps 10 -cg_iterations 0 > $O/ncu-hb15.txt 2>&1
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
fi
kill $WD 2>/dev/null
cat $O/pipe*.log; cat $O/sanitizer-summary.txt 2>/dev/null; grep -hE "tests passed|\(Failed\)|\*\*\*Failed|Timeout" $O/ctest-*.log
for f in $O/hb-lowN-*.jsonl; do grep -h '"N"' $f 2>/dev/null | python3 -c 'import sys,json; [print(r["N"],r["kernel"],r.get("v3_layers"),r["roofline_fraction"],r["kernel_gflops"]) for r in map(json.loads,sys.stdin) if r.get("bench")=="hb_operator"]'; done
grep -h "SquallP1Assemble\|KSPSolve \|Time (sec)\|^TSStep\|MatSetValuesCOO" $O/advdiff-*.txt | head -20
tail -n 4 $O/bubble-*.txt 2>/dev/null
for f in $O/hb-v6.jsonl $O/hb-default.jsonl $O/hb-n1-2d.jsonl $O/hb-3d.jsonl $O/hb-2d.jsonl; do grep -h '"N"' $f 2>/dev/null | python3 -c 'import sys,json; [print(r["N"],r["kernel"],r.get("v3_layers"),r["roofline_fraction"],r["kernel_gflops"]) for r in map(json.loads,sys.stdin) if r.get("bench")=="hb_operator"]'; done
grep -h hb_cg $O/hb-fom.jsonl 2>/dev/null | python3 -c 'import sys,json; [print(r["N"],r["NG"],r["fom_gflops"],r["dofs_iter_per_s"]) for r in map(json.loads,sys.stdin)]'
grep -E "Duration|Throughput|Achieved Occupancy|Registers Per|Theoretical Occ|Warp Cycles Per Issued|Stall|Block Limit" $O/ncu-*.txt 2>/dev/null | head -60
tar -C /tmp -czf $OUT/resO$MODE${TAG:-}.tgz resO$MODE && echo packed
