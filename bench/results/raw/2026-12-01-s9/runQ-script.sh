#!/bin/bash
# device call Q (1 x H200), session 9. P=.deps/packD (double) or .deps/packS (single); MODE picks the work.
# MODE=1 (double): all GPU tests; the ESDG GPU tests again with the face prefetch on (PETSC_OPTIONS); esdg_bench
#   N=2..8 with the face kernel's prefetch at 0, 0.5, 1 waves; the plain bubble 300 steps with 0 and 0.5; the
#   P1 assembly at 0.56 M tets (no wait after the kernel now); ncu of the P1 reduce kernel at boost clocks;
#   compute-sanitizer memcheck of the prefetch test.
MODE=${MODE:-1}; O=/tmp/resQ$MODE
. "$P/device-prologue.sh"
MESH="-dm_p4est_brick_size 1,1,1 -dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda"
BUBP="-dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_time 1e9 -esdg_wall_time -dm_vec_type cuda"
kernels() { # tag, extra options: esdg_bench N=2..8
  timeout 100 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag $1 "${@:2}" >> $O/bench.jsonl 2>> $O/bench.err
  timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 4 -bench_orders 7,8 -bench_reps 10 -bench_tag $1 "${@:2}" >> $O/bench.jsonl 2>> $O/bench.err
}
if [ $MODE = 2 ]; then # single at d9ec744: all GPU tests; esdg_bench; the bubble, plain and perturbation form, 1000 steps
  (sgl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   echo "== bench $(el)"; kernels single
   echo "== bubble plain 1000 $(el)"
   timeout 100 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUBP -ts_max_steps 1000 > $O/bubble1000-plain.txt 2>&1
   echo "== bubble pert 1000 $(el)"
   timeout 100 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUBP -ts_max_steps 1000 -esdg_perturbation > $O/bubble1000-pert.txt 2>&1
   echo "== bubble plain 300 $(el)"
   timeout 60 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUBP -ts_max_steps 300 > $O/bubble300-plain.txt 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 4 ]; then # double at the session's last code: all GPU tests; esdg_bench N=4 (the face kernel capped at 4 and 6 blocks per SM), N=2..8
  (dbl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   for r in 1 2; do echo "== bench N4 run $r $(el)"
     timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 20 -bench_tag n4r$r >> $O/bench.jsonl 2>> $O/bench.err; done
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 5 ]; then # single at the session's last library code: all GPU tests
  (sgl; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 6 ]; then # double at 063cf16: the hipBone GPU tests (the forest partition among them) and the forest-partition CPU tests
  (dbl; timeout 200 ctest -R "gpu_hb|forest|hipbone" --timeout 150 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 3 ]; then # double at d9ec744 on one H200 (two were not lent): plain bubble 1000 steps, perturbation form 300; kernels
  (dbl; echo "== bubble plain 1000 $(el)"
   timeout 120 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUBP -ts_max_steps 1000 > $O/bubble1000-plain.txt 2>&1
   echo "== bubble pert 300 $(el)"
   timeout 80 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUBP -ts_max_steps 300 -esdg_perturbation > $O/bubble300-pert.txt 2>&1
   echo "== bench $(el)"; kernels double
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 1 ]; then
  (if [ $MODE = 1 ]; then dbl; else sgl; fi; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   PETSC_OPTIONS="$PETSC_OPTIONS -esdg_gpu_face_prefetch_distance 0.5" timeout 100 ctest -R "gpu_esdg" --timeout 80 -j6 --output-on-failure > $O/ctest-facepf.log 2>&1
   echo "== tests facepf done $(el)"
   for d in 0 0.5 1; do echo "== bench facepf $d $(el)"; kernels facepf$d -esdg_gpu_face_prefetch_distance $d; done
   for d in 0 0.5; do
     echo "== bubble plain 300 facepf $d $(el)"
     timeout 60 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUBP -ts_max_steps 300 -esdg_gpu_face_prefetch_distance $d > $O/bubble300-facepf$d.txt 2>&1
   done
   echo "== p1 $(el)"
   timeout 60 ./bench/p1_assembly -bench_cells 46,46,44 -bench_coo_max_mtets 1 -bench_gather_max_mtets 0.6 -bench_reduce_variants affine_xyz,affine,staged -bench_host_repeats 1 -bench_json $O/p1.jsonl > $O/p1.out 2> $O/p1.err
   echo "== ncu p1 $(el)"
   timeout 60 ncu --clock-control none --section SpeedOfLight -k regex:P1AssembleReduce ./bench/p1_assembly -bench_cells 46,46,44 -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_xyz -bench_host_repeats 1 -bench_repeats 3 -bench_host_max_mtets 0 > $O/ncu-p1.txt 2>&1
   echo "== sanitizer $(el)"
   san memcheck gpu_esdg_prefetch_next; san memcheck gpu_esdg_prefetch_next_warp
   echo "== done $(el)") > $O/pipe.log 2>&1
fi
cat $O/pipe.log; cat $O/sanitizer-summary.txt 2>/dev/null; grep -hE "tests passed|\(Failed\)|\*\*\*Failed|Timeout" $O/ctest*.log
tail -n 3 $O/bubble*.txt 2>/dev/null
python3 - $O/bench.jsonl <<'PY'
import sys, json, os
for l in sum([open(f).readlines() for f in sys.argv[1:] if os.path.exists(f)], []):
    if not l.startswith("{"): continue
    r = json.loads(l)
    print(r["tag"], r["N"], r["precision"], "rhs", r["rhs_ms"], "faces", r.get("faces_ms"), "half", r.get("volume_half_ms"), "lift", r.get("volume_lift_ms"), "faces_minb4", r.get("tune_faces_minb4_ms"), "faces_minb6", r.get("tune_faces_minb6_ms"), "faces_minb5_pernode", r.get("tune_faces_minb5_ms"))
PY
cat $O/esdg-scaling.jsonl $O/hb-scaling.jsonl 2>/dev/null | cut -c1-400
grep -E '"(gpu_reduce_affine_xyz|gpu_coo|speedup_reduce_variant)"' $O/p1.jsonl | grep '"bs": 1' | head; grep -E "Duration|P1Assemble" $O/ncu-p1.txt | head
finish resQ$MODE
