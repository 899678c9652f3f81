#!/bin/bash
# device call M (1 x H200), session 5. MODE=1: ESDG GPU tests in both precisions (departures on the GPU), per-kernel
# share of a bubble step (30 steps, -log_view) in both precisions, plain and perturbation form; bubble 1000 steps
# single perturbation form (departures); baroclinic L3 single perturbation.
set -o pipefail
MODE=${MODE:-1}; O=/tmp/resM$MODE; mkdir -p $O
T0=$(date +%s)
P=${P:-.deps/pack}
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
share() { # precision tag options...
  local p=$1 tag=$2; shift 2
  echo "== $p share $tag t=$(( $(date +%s)-T0 ))s"
  timeout 75 ./tutorials/rising_bubble -options_file $OPTS -dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_steps 30 -dm_vec_type cuda -log_view_gpu_time -log_view :$O/logview-$p-$tag.txt "$@" > $O/share-$p-$tag.txt 2>&1
}
(sleep ${WATCH:-560} && tar -C /tmp -czf $OUT/resM$MODE${TAG:-}.tgz resM$MODE) > /dev/null 2>&1 & WD=$!
if [ $MODE = 1 ]; then
  (dbl; timeout 170 ctest -L gpu -R "esdg|bubble|pert" --timeout 120 -j6 --output-on-failure > $O/ctest-double-esdg.log 2>&1) &
  A=$!
  (sgl; timeout 170 ctest -L gpu -R "esdg|bubble|pert" --timeout 120 -j6 --output-on-failure > $O/ctest-single-esdg.log 2>&1) &
  wait $A $!
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  (dbl; share double plain; share double pert -esdg_perturbation
   sgl; share single plain; share single pert -esdg_perturbation
   echo "== single bubble 1000 pert t=$(( $(date +%s)-T0 ))s"
   timeout 110 ./tutorials/rising_bubble -options_file /tmp/snaps/options/rising_bubble.opts $BUB -esdg_perturbation > $O/bubble-single-pert.txt 2>&1
   echo "== single baroclinic L3 pert t=$(( $(date +%s)-T0 ))s"
   timeout 50 ./tutorials/baroclinic -options_file /tmp/snaps/options/baroclinic.opts -dm_forest_initial_refinement 3 -ts_max_steps 1000 -esdg_monitor 0 -esdg_wall_time -dm_vec_type cuda -esdg_perturbation > $O/baro-L3-single-pert.txt 2>&1
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 2 ]; then
  # after the stage verdict (no admissibility pass per stage): GPU tests, N = 4 kernel variants in both precisions
  # (occupancy of the single-precision volume kernel), hipBone v3/v4 if built, bubble 1000 steps double plain,
  # single plain and perturbation form
  (dbl; timeout 170 ctest -L gpu -R "esdg|bubble|pert|unphysical|gpu_hb" --timeout 120 -j6 --output-on-failure > $O/ctest-double.log 2>&1) &
  A=$!
  (sgl; timeout 170 ctest -L gpu -R "esdg|bubble|pert|unphysical|gpu_hb" --timeout 120 -j6 --output-on-failure > $O/ctest-single.log 2>&1) &
  wait $A $!
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  MESH="-dm_p4est_brick_size 1,1,1 -dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda"
  (dbl; echo "== double kernels N=4 t=$(( $(date +%s)-T0 ))s"
   timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 10 -bench_tag variants_double > $O/esdg-n4-double.json 2> $O/esdg-n4-double.err
   sgl; echo "== single kernels N=4 t=$(( $(date +%s)-T0 ))s"
   timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 10 -bench_tag variants_single > $O/esdg-n4-single.json 2> $O/esdg-n4-single.err
   dbl; if grep -q v4 /tmp/snap/src/ksp/hbop.c; then echo "== hipBone v3/v4 t=$(( $(date +%s)-T0 ))s"
     timeout 100 ./bench/hb_bench -hb_vec_type cuda -orders 9,10,11,12,13,14,15 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v3,v4 -v3_layers 2,3,4 -tag v4 > $O/hb-v4.jsonl 2> $O/hb-v4.err; fi
   echo "== double bubble 1000 t=$(( $(date +%s)-T0 ))s"
   timeout 140 ./tutorials/rising_bubble -options_file $OPTS $BUB > $O/bubble-double.txt 2>&1
   sgl; echo "== single bubble 1000 plain t=$(( $(date +%s)-T0 ))s"
   timeout 100 ./tutorials/rising_bubble -options_file $OPTS $BUB > $O/bubble-single-plain.txt 2>&1
   echo "== single bubble 1000 pert t=$(( $(date +%s)-T0 ))s"
   timeout 100 ./tutorials/rising_bubble -options_file $OPTS $BUB -esdg_perturbation > $O/bubble-single-pert.txt 2>&1
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 3 ]; then
  # GPU tests (ESDG, hipBone, P1) in both precisions; compute-sanitizer memcheck/racecheck on the new ESDG paths;
  # hipBone v3/v4; P1 at 0.56 M and 21.1 M tets (all scalar paths incl. the new variant); bubble 300 steps double
  (dbl; timeout 200 ctest -L gpu -R "esdg|bubble|pert|unphysical|gpu_hb|gpu_p1" --timeout 150 -j6 --output-on-failure > $O/ctest-double.log 2>&1) &
  A=$!
  (sgl; timeout 200 ctest -L gpu -R "esdg|bubble|pert|unphysical|gpu_hb|gpu_p1" --timeout 150 -j6 --output-on-failure > $O/ctest-single.log 2>&1) &
  wait $A $!
  echo "== tests done t=$(( $(date +%s)-T0 ))s"
  san() { # tool test: ctest's command of the test under compute-sanitizer (one rank)
    local cmd; cmd=$(ctest -R "^$2\$" -N -V | sed -n 's/.*Test command: //p' | tr -d '"' | sed 's|^[^ ]*mpiexec -n [0-9]* ||')
    echo "== $1 $2: $cmd" >> $O/sanitizer.log
    timeout 120 compute-sanitizer --tool $1 --error-exitcode 9 $cmd >> $O/sanitizer.log 2>&1; echo "$1 $2 rc $?" | tee -a $O/sanitizer-summary.txt
  }
  (dbl; echo "== sanitizer t=$(( $(date +%s)-T0 ))s"
   san memcheck gpu_esdg_pert_bubble; san racecheck gpu_esdg_pert_bubble_warp_element; san racecheck gpu_esdg_half_N3
   if grep -q '"v4"' /tmp/snap/src/ksp/hbop.c; then echo "== hipBone v3/v4 t=$(( $(date +%s)-T0 ))s"
     timeout 100 ./bench/hb_bench -hb_vec_type cuda -orders 9,10,11,12,13,14,15 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v3,v4 -v3_layers 2,3,4 -tag v4 > $O/hb-v4.jsonl 2> $O/hb-v4.err; fi
   echo "== P1 0.56 M and 21.1 M t=$(( $(date +%s)-T0 ))s"
   timeout 150 ./bench/p1_assembly -bench_cells 46,46,44,154,154,148 -bench_coo_max_mtets 25 -bench_json $O/p1-sweep.jsonl > $O/p1-sweep.out 2> $O/p1-sweep.err
   echo "== double kernels N=4 t=$(( $(date +%s)-T0 ))s"
   MESH="-dm_p4est_brick_size 1,1,1 -dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda"
   timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 10 -bench_tag faces_double > $O/esdg-n4-double.json 2> $O/esdg-n4-double.err
   echo "== double bubble 300 t=$(( $(date +%s)-T0 ))s"
   timeout 80 ./tutorials/rising_bubble -options_file $OPTS $BUB -ts_max_steps 300 > $O/bubble-double.txt 2>&1
   sgl; echo "== single kernels N=4 t=$(( $(date +%s)-T0 ))s"
   timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 10 -bench_tag faces_single > $O/esdg-n4-single.json 2> $O/esdg-n4-single.err
   echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe.log 2>&1
elif [ $MODE = 4 ]; then
  # entropy jumps from departures, hipBone v4, the P1 helper's variant, one precision per call (the carry limit):
  # GPU tests; double: hipBone v3/v4 N=9..15, P1 at 0.56 M tets with every reduce variant; single: bubble 1000
  # steps in perturbation form
  if [ -d /tmp/snap ]; then
    (dbl; timeout 200 ctest -L gpu -R "esdg|bubble|pert|unphysical|gpu_hb|gpu_p1" --timeout 150 -j6 --output-on-failure > $O/ctest-double.log 2>&1)
    echo "== tests done t=$(( $(date +%s)-T0 ))s"
    (dbl; echo "== hipBone v3/v4 t=$(( $(date +%s)-T0 ))s"
     timeout 110 ./bench/hb_bench -hb_vec_type cuda -orders 9,10,11,12,13,14,15 -dofs 2e7 -reps 50 -cg_iterations 0 -kernel_variants v3,v4 -v3_layers 2,3,4 -tag v4 > $O/hb-v4.jsonl 2> $O/hb-v4.err
     echo "== P1 0.56 M t=$(( $(date +%s)-T0 ))s"
     timeout 60 ./bench/p1_assembly -bench_cells 46,46,44 -bench_json $O/p1-056.jsonl > $O/p1-056.out 2> $O/p1-056.err
     echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe-double.log 2>&1
  fi
  if [ -d /tmp/snaps ]; then
    (sgl; timeout 200 ctest -L gpu -R "esdg|bubble|pert|unphysical|gpu_hb|gpu_p1" --timeout 150 -j6 --output-on-failure > $O/ctest-single.log 2>&1)
    echo "== tests done t=$(( $(date +%s)-T0 ))s"
    (sgl; echo "== single bubble 1000 pert t=$(( $(date +%s)-T0 ))s"
     timeout 100 ./tutorials/rising_bubble -options_file $OPTS $BUB -esdg_perturbation > $O/bubble-single-pert.txt 2>&1
     echo "== done t=$(( $(date +%s)-T0 ))s") > $O/pipe-single.log 2>&1
  fi
fi
kill $WD 2>/dev/null
cat $O/pipe*.log; grep -hE "tests passed|\(Failed\)|\*\*\*Failed" $O/ctest-*.log
for f in $O/logview-*.txt; do [ -f $f ] && { echo "== $f"; grep -E "^(SqESDG|TSStep|SqLSRK|VecAXPY|VecWAXPY|VecCopy) " $f; }; done
cat $O/esdg-n4-*.json $O/sanitizer-summary.txt 2>/dev/null; tail -16 $O/p1-sweep.out $O/p1-056.out 2>/dev/null; grep -h '"N"' $O/hb-v4.jsonl 2>/dev/null | python3 -c 'import sys,json; [print(r["N"],r["kernel"],r["roofline_fraction"],r["kernel_gflops"]) for r in map(json.loads,sys.stdin)]'
tail -n 4 $O/bubble-*.txt $O/baro-*.txt
tar -C /tmp -czf $OUT/resM$MODE${TAG:-}.tgz resM$MODE && echo packed
