#!/bin/bash
# device call N (1 x H200), session 6. One precision per call (carry limit): P=.deps/packD (double) or .deps/packS (single).
# MODE=1 (double): all GPU tests; memcheck of the new P1 and hipBone kernels; hipBone v4 vs v5 N=9..15 (layers 2,3,4);
#   P1 at 0.56 M and 21.1 M tets (affine_xyz, affine, staged, plain, slots, search, COO); bubble 300 steps double plain
#   and perturbation form (reference component masks).
# MODE=2 (single): all GPU tests; bubble 1000 steps single perturbation form; 300 steps single plain and perturbation.
set -o pipefail
MODE=${MODE:-1}; O=/tmp/resN$MODE; mkdir -p $O
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
(sleep ${WATCH:-560} && tar -C /tmp -czf $OUT/resN$MODE${TAG:-}.tgz resN$MODE) > /dev/null 2>&1 & WD=$!
if [ $MODE = 1 ]; then
  (dbl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest-double.log 2>&1)
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  (dbl; echo "== sanitizer t=$(( $(date +%s)-T0 ))s"
   san memcheck gpu_p1_reduce_affine_xyz_np1; san memcheck gpu_hb_v5_L2_np1; san racecheck gpu_hb_v5_L4_np1
   echo "== hipBone v4/v5 t=$(( $(date +%s)-T0 ))s"
   timeout 150 ./bench/hb_bench -hb_vec_type cuda -orders 9,10,11,12,13,14,15 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v4,v5 -v3_layers 2,3,4 -tag v5 > $O/hb-v5.jsonl 2> $O/hb-v5.err
   echo "== P1 0.56 M and 21.1 M t=$(( $(date +%s)-T0 ))s"
   timeout 150 ./bench/p1_assembly -bench_cells 46,46,44,154,154,148 -bench_coo_max_mtets 25 -bench_gather_max_mtets 0.6 -bench_reduce_variants affine_xyz,affine,staged,plain -bench_host_repeats 1 -bench_json $O/p1-xyz.jsonl > $O/p1-xyz.out 2> $O/p1-xyz.err
   echo "== double bubble 300 plain t=$(( $(date +%s)-T0 ))s"
   timeout 90 ./tutorials/rising_bubble -options_file $OPTS $BUB -ts_max_steps 300 > $O/bubble-double-plain-300.txt 2>&1
   echo "== double bubble 300 pert t=$(( $(date +%s)-T0 ))s"
   timeout 110 ./tutorials/rising_bubble -options_file $OPTS $BUB -ts_max_steps 300 -esdg_perturbation > $O/bubble-double-pert-300.txt 2>&1
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 2 ]; then
  (sgl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest-single.log 2>&1)
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  (sgl; echo "== single bubble 1000 pert t=$(( $(date +%s)-T0 ))s"
   timeout 130 ./tutorials/rising_bubble -options_file $OPTS $BUB -esdg_perturbation > $O/bubble-single-pert.txt 2>&1
   echo "== hipBone v4/v5 single t=$(( $(date +%s)-T0 ))s"
   timeout 100 ./bench/hb_bench -hb_vec_type cuda -orders 9,10,11,12,13,14,15 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v4,v5 -v3_layers 2,3,4 -tag v5_single > $O/hb-v5.jsonl 2> $O/hb-v5.err
   echo "== single bubble 300 plain t=$(( $(date +%s)-T0 ))s"
   timeout 80 ./tutorials/rising_bubble -options_file $OPTS $BUB -ts_max_steps 300 > $O/bubble-single-plain-300.txt 2>&1
   echo "== single bubble 300 pert t=$(( $(date +%s)-T0 ))s"
   timeout 80 ./tutorials/rising_bubble -options_file $OPTS $BUB -ts_max_steps 300 -esdg_perturbation > $O/bubble-single-pert-300.txt 2>&1
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
fi
kill $WD 2>/dev/null
cat $O/pipe*.log; grep -hE "tests passed|\(Failed\)|\*\*\*Failed|Timeout" $O/ctest-*.log
cat $O/sanitizer-summary.txt 2>/dev/null; tail -24 $O/p1-xyz.out 2>/dev/null
grep -h '"N"' $O/hb-v5.jsonl 2>/dev/null | python3 -c 'import sys,json; [print(r["N"],r["kernel"],r.get("v3_layers"),r["roofline_fraction"],r["kernel_gflops"]) for r in map(json.loads,sys.stdin)]'
tail -n 4 $O/bubble-*.txt
tar -C /tmp -czf $OUT/resN$MODE${TAG:-}.tgz resN$MODE && echo packed
