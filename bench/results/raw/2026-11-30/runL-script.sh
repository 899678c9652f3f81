#!/bin/bash
# device call L (1 x H200; call with MODE=1: both precisions' tests + double benchmarks, MODE=2: single benchmarks), session 4: GPU 0 double (tests, sanitizer, ESDG kernels N=2..8, hipBone v3 layers, bubble 1000
# steps, share of step, perturbation-form overhead), GPU 1 single (tests, ESDG kernels, bubble 1000 plain / perturbation, baroclinic L3)
set -o pipefail
MODE=${MODE:-1}; O=/tmp/resL$MODE; mkdir -p $O
T0=$(date +%s)
P=.deps/pack
mkdir -p /opt/squall-deps && tar -C /opt/squall-deps -xJf $P/cuda-runtime.tar.xz && cp -a /opt/squall-deps/cuda /opt/squall-deps/cuda-single && tar -C /opt/squall-deps -xJf $P/single-delta.tar.xz && tar -C /tmp -xJf $P/snap.txz && tar -C /tmp -xJf $P/snaps.txz || exit 1
echo "unpacked t=$(( $(date +%s)-T0 ))s"; cp $P/commit.txt $O/
py=$(sed -n 's/^_\?Python3_EXECUTABLE:[A-Z]*=//p' /tmp/snap/b/CMakeCache.txt | head -1)
[ -n "$py" ] && [ ! -e "$py" ] && mkdir -p "$(dirname "$py")" && ln -sf "$(command -v python3)" "$py"
P0=$PATH; export PETSC_OPTIONS="-use_gpu_aware_mpi 0" UCX_TLS=self,sm
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv,noheader | tee $O/smi.txt
MESH="-dm_p4est_brick_size 1,1,1 -dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda"
BUB="-dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_time 1e9 -esdg_wall_time -ts_max_steps 1000 -dm_vec_type cuda"
san() { # run ctest's command of test $1 under compute-sanitizer memcheck (one rank)
  local cmd; cmd=$(ctest -R "^$1\$" -N -V | sed -n 's/.*Test command: //p' | tr -d '"' | sed 's|^[^ ]*mpiexec -n [0-9]* ||')
  echo "== sanitizer $1: $cmd" >> $O/sanitizer.log
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $cmd >> $O/sanitizer.log 2>&1; echo "$1 rc $?" | tee -a $O/sanitizer-summary.txt
}
gpu0() {
  export CUDA_VISIBLE_DEVICES=0 PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda
  cd /tmp/snap/b
  echo "== double t=$(( $(date +%s)-T0 ))s sanitizer"
  for t in gpu_rising_bubble_pert gpu_esdg_half_N8 gpu_hb_v3_L4_np1 gpu_hb_v3_L3_np1; do san $t; done
  echo "== double t=$(( $(date +%s)-T0 ))s ESDG kernels"
  timeout 100 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag kernels_double > $O/esdg-kernels-double.json 2> $O/kernels-double.err
  timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 4 -bench_orders 7,8 -bench_reps 10 -bench_tag kernels_double >> $O/esdg-kernels-double.json 2>> $O/kernels-double.err
  echo "== double t=$(( $(date +%s)-T0 ))s hipBone v3 layers"
  timeout 90 ./bench/hb_bench -hb_vec_type cuda -orders 9,10,11,12,13,14,15 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v3 -v3_layers 2,3,4 -tag v3layers > $O/hb-v3layers.jsonl 2> $O/hb-v3layers.err
  echo "== double t=$(( $(date +%s)-T0 ))s bubble 1000 steps"
  timeout 150 ./tutorials/rising_bubble -options_file /tmp/snap/options/rising_bubble.opts $BUB > $O/bubble-double.txt 2>&1
  echo "== double t=$(( $(date +%s)-T0 ))s bubble 200 steps perturbation"
  timeout 60 ./tutorials/rising_bubble -options_file /tmp/snap/options/rising_bubble.opts $BUB -ts_max_steps 200 -esdg_perturbation > $O/bubble-double-pert200.txt 2>&1
  echo "== double t=$(( $(date +%s)-T0 ))s share"
  timeout 60 ./tutorials/rising_bubble -options_file /tmp/snap/options/rising_bubble.opts -dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_steps 30 -dm_vec_type cuda -log_view_gpu_time -log_view :$O/esdg-logview.txt > /dev/null 2>&1
  echo "== double t=$(( $(date +%s)-T0 ))s done"
}
gpu1() {
  export CUDA_VISIBLE_DEVICES=0 PATH=/opt/squall-deps/cuda-single/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda-single
  cd /tmp/snaps/b
  echo "== single t=$(( $(date +%s)-T0 ))s ESDG kernels"
  timeout 100 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag kernels_single > $O/esdg-kernels-single.json 2> $O/kernels-single.err
  timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 4 -bench_orders 7,8 -bench_reps 10 -bench_tag kernels_single >> $O/esdg-kernels-single.json 2>> $O/kernels-single.err
  for v in plain pert; do
    o=""; [ $v = pert ] && o="-esdg_perturbation"
    echo "== single t=$(( $(date +%s)-T0 ))s bubble $v"
    timeout 120 ./tutorials/rising_bubble -options_file /tmp/snaps/options/rising_bubble.opts $BUB $o > $O/bubble-single-$v.txt 2>&1
  done
  for v in pert; do
    o=""; [ $v = pert ] && o="-esdg_perturbation"
    echo "== single t=$(( $(date +%s)-T0 ))s baroclinic L3 $v"
    timeout 50 ./tutorials/baroclinic -options_file /tmp/snaps/options/baroclinic.opts -dm_forest_initial_refinement 3 -ts_max_steps 1000 -esdg_monitor 0 -esdg_wall_time -dm_vec_type cuda $o > $O/baro-L3-single-$v.txt 2>&1
  done
  echo "== single t=$(( $(date +%s)-T0 ))s done"
}
tests() {
  (export CUDA_VISIBLE_DEVICES=0 PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b && timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest-double.log 2>&1) &
  local a=$!
  (export CUDA_VISIBLE_DEVICES=0 PATH=/opt/squall-deps/cuda-single/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda-single; cd /tmp/snaps/b && timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest-single.log 2>&1) &
  wait $a $!
}
(sleep ${WATCH:-560} && tar -C /tmp -czf $OUT/resL$MODE.tgz resL$MODE) > /dev/null 2>&1 & WD=$!
if [ $MODE = 4 ]; then
  # the fused LSRK stage: ESDG GPU tests (fused vs unfused bit for bit) in both precisions, bubble 1000 steps both, share
  (export PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b && timeout 120 ctest -L gpu -R "esdg|bubble" --timeout 100 -j6 --output-on-failure > $O/ctest-double-esdg.log 2>&1) &
  A=$!
  (export PATH=/opt/squall-deps/cuda-single/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda-single; cd /tmp/snaps/b && timeout 120 ctest -L gpu -R "esdg|bubble" --timeout 100 -j6 --output-on-failure > $O/ctest-single-esdg.log 2>&1) &
  wait $A $!
  (export PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b
   echo "== double t=$(( $(date +%s)-T0 ))s bubble 1000"
   timeout 140 ./tutorials/rising_bubble -options_file /tmp/snap/options/rising_bubble.opts $BUB > $O/bubble-double.txt 2>&1
   export PATH=/opt/squall-deps/cuda-single/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda-single; cd /tmp/snaps/b
   echo "== single t=$(( $(date +%s)-T0 ))s bubble 1000 plain"
   timeout 110 ./tutorials/rising_bubble -options_file /tmp/snaps/options/rising_bubble.opts $BUB > $O/bubble-single-plain.txt 2>&1
   export PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b
   echo "== double t=$(( $(date +%s)-T0 ))s share"
   timeout 50 ./tutorials/rising_bubble -options_file /tmp/snap/options/rising_bubble.opts -dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_steps 30 -dm_vec_type cuda -log_view_gpu_time -log_view :$O/esdg-logview.txt > /dev/null 2>&1
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 3 ]; then
  # after the check-only node reduction: ESDG GPU tests in both precisions, bubble 1000 steps both, share of step
  (export PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b && timeout 150 ctest -L gpu -R "esdg|bubble" --timeout 120 -j6 --output-on-failure > $O/ctest-double-esdg.log 2>&1) &
  A=$!
  (export PATH=/opt/squall-deps/cuda-single/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda-single; cd /tmp/snaps/b && timeout 150 ctest -L gpu -R "esdg|bubble" --timeout 120 -j6 --output-on-failure > $O/ctest-single-esdg.log 2>&1) &
  wait $A $!
  (export PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b
   echo "== double t=$(( $(date +%s)-T0 ))s bubble 1000"
   timeout 150 ./tutorials/rising_bubble -options_file /tmp/snap/options/rising_bubble.opts $BUB > $O/bubble-double.txt 2>&1
   echo "== double t=$(( $(date +%s)-T0 ))s share"
   timeout 60 ./tutorials/rising_bubble -options_file /tmp/snap/options/rising_bubble.opts -dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_steps 30 -dm_vec_type cuda -log_view_gpu_time -log_view :$O/esdg-logview.txt > /dev/null 2>&1
   export PATH=/opt/squall-deps/cuda-single/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda-single; cd /tmp/snaps/b
   echo "== single t=$(( $(date +%s)-T0 ))s bubble 1000 plain"
   timeout 120 ./tutorials/rising_bubble -options_file /tmp/snaps/options/rising_bubble.opts $BUB > $O/bubble-single-plain.txt 2>&1
   echo "== single t=$(( $(date +%s)-T0 ))s bubble 1000 pert"
   timeout 120 ./tutorials/rising_bubble -options_file /tmp/snaps/options/rising_bubble.opts $BUB -esdg_perturbation > $O/bubble-single-pert.txt 2>&1
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 1 ]; then
  echo "== tests t=$(( $(date +%s)-T0 ))s"; tests; echo "== tests done t=$(( $(date +%s)-T0 ))s"
  gpu0 > $O/pipe-double.log 2>&1
else
  echo "== output tests t=$(( $(date +%s)-T0 ))s"
  (export PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b && timeout 100 ctest -R gpu_rising_bubble --timeout 90 -j4 --output-on-failure > $O/ctest-double-output.log 2>&1)
  (export PATH=/opt/squall-deps/cuda-single/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda-single; cd /tmp/snaps/b && timeout 100 ctest -R gpu_rising_bubble --timeout 90 -j4 --output-on-failure > $O/ctest-single-output.log 2>&1)
  gpu1 > $O/pipe-single.log 2>&1
  (export PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b
   echo "== double t=$(( $(date +%s)-T0 ))s bubble 300 steps perturbation"
   timeout 100 ./tutorials/rising_bubble -options_file /tmp/snap/options/rising_bubble.opts $BUB -ts_max_steps 300 -esdg_perturbation > $O/bubble-double-pert300.txt 2>&1
   echo "== double t=$(( $(date +%s)-T0 ))s hipBone FOM N=15, 7 (layers by order)"
   timeout 80 ./bench/hb_bench -hb_vec_type cuda -orders 7,15 -dofs 2e7 -reps 20 -cg_iterations 50 -solvers hbcg -tag fom_auto > $O/hb-fom-auto.jsonl 2> $O/hb-fom-auto.err
   echo "== double t=$(( $(date +%s)-T0 ))s done") >> $O/pipe-single.log 2>&1
fi
kill $WD 2>/dev/null
cat $O/pipe-*.log; grep -hE "tests passed|\(Failed\)" $O/ctest-*.log; cat $O/sanitizer-summary.txt 2>/dev/null
tar -C /tmp -czf $OUT/resL$MODE.tgz resL$MODE && echo packed
