#!/bin/bash
# device call P (1 x H200), session 8. P=.deps/packD (double) or .deps/packS (single); MODE picks the work.
# MODE=1 (double): the ESDG GPU tests (new line sweep among them); esdg_bench N=2..8 (volume_line against
#   volume_half); ncu of both at N=4; sanitizer on the line sweep.
MODE=${MODE:-1}; O=/tmp/resP$MODE
. "$P/device-prologue.sh"
MESH="-dm_p4est_brick_size 1,1,1 -dm_p4est_brick_periodicity 1,1,0 -dm_p4est_brick_bounds -1000,1000,-1000,1000,0,2000 -dm_vec_type cuda"
NCU="ncu --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section LaunchStats"
BUB="-dm_forest_initial_refinement 5 -esdg_monitor 0 -ts_max_time 1e9 -esdg_wall_time -dm_vec_type cuda -esdg_perturbation"
kernels() { # tag, extra options: esdg_bench N=2..8
  timeout 100 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag $1 "${@:2}" >> $O/bench.jsonl 2>> $O/bench.err
  timeout 60 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 4 -bench_orders 7,8 -bench_reps 10 -bench_tag $1 "${@:2}" >> $O/bench.jsonl 2>> $O/bench.err
}
if [ $MODE = 2 ] || [ $MODE = 3 ]; then # 2 double, 3 single: L2 prefetch on and off
  (if [ $MODE = 2 ]; then dbl; else sgl; fi; timeout 120 ctest -R "gpu_esdg" --timeout 100 -j6 --output-on-failure > $O/ctest.log 2>&1)
  echo "== tests done $(el)"
  (if [ $MODE = 2 ]; then dbl; else sgl; fi
   echo "== bench prefetch $(el)"; kernels prefetch
   echo "== bench noprefetch $(el)"; kernels noprefetch -esdg_gpu_prefetch 0
   echo "== bubble prefetch $(el)"
   timeout 100 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUB -ts_max_steps 200 > $O/bubble-prefetch.txt 2>&1
   echo "== bubble noprefetch $(el)"
   timeout 100 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUB -ts_max_steps 200 -esdg_gpu_prefetch 0 > $O/bubble-noprefetch.txt 2>&1
   echo "== ncu $(el)"
   timeout 60 $NCU -k regex:ESDGVolumeHalf ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 3 > $O/ncu-half.txt 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 4 ]; then # double: the prefetch's ranges and distance on the fused perturbation-form bubble
  (dbl; timeout 120 ctest -R "gpu_esdg" --timeout 100 -j6 --output-on-failure > $O/ctest.log 2>&1)
  echo "== tests done $(el)"
  (dbl
   for v in "0 1" "1 1" "1 0.5" "2 0.5" "1 0.25"; do set -- $v
     echo "== bubble prefetch $1 distance $2 $(el)"
     timeout 80 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUB -ts_max_steps 100 -esdg_gpu_prefetch $1 -esdg_gpu_prefetch_distance $2 > $O/bubble-pf$1-d$2.txt 2>&1
   done
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 5 ] || [ $MODE = 6 ]; then # 5 double, 6 single: all GPU tests at the new defaults; kernels and bubble with and without the prefetch
  (if [ $MODE = 5 ]; then dbl; else sgl; fi; timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest.log 2>&1)
  echo "== tests done $(el)"
  (if [ $MODE = 5 ]; then dbl; else sgl; fi
   echo "== bench prefetch $(el)"; kernels prefetch
   echo "== bench noprefetch $(el)"; kernels noprefetch -esdg_gpu_prefetch 0
   for r in ${REPS:-1 2}; do for v in 2 0; do
     echo "== bubble prefetch $v run $r $(el)"
     timeout 80 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUB -ts_max_steps 150 -esdg_gpu_prefetch $v > $O/bubble-pf$v-r$r.txt 2>&1
   done; done
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 7 ]; then # single: the perturbation-form bubble for 1000 steps with and without the prefetch
  (sgl
   for v in 2 0; do
     echo "== bubble 1000 prefetch $v $(el)"
     timeout 115 ./tutorials/rising_bubble -options_file $OPTS/rising_bubble.opts $BUB -ts_max_steps 1000 -esdg_gpu_prefetch $v > $O/bubble1000-pf$v.txt 2>&1
   done
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 1 ]; then
  (dbl; timeout 200 ctest -R "gpu_esdg" --timeout 150 -j6 --output-on-failure > $O/ctest.log 2>&1)
  echo "== tests done $(el)"
  (dbl; echo "== bench L5 $(el)"
   timeout 150 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag line > $O/bench.jsonl 2> $O/bench.err
   echo "== bench L4 $(el)"
   timeout 80 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 4 -bench_orders 7,8 -bench_reps 10 -bench_tag line >> $O/bench.jsonl 2>> $O/bench.err
   echo "== bench L5 line as production $(el)"
   timeout 100 ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 2,3,4,5,6 -bench_reps 10 -bench_tag line_prod -esdg_gpu_volume line > $O/bench-lineprod.jsonl 2> $O/bench-lineprod.err
   echo "== ncu $(el)"
   timeout 60 $NCU -k regex:ESDGVolumeLine ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 3 -esdg_gpu_volume line > $O/ncu-line.txt 2>&1
   timeout 60 $NCU -k regex:ESDGVolumeHalf ./bench/esdg_bench $MESH -dm_forest_initial_refinement 5 -bench_orders 4 -bench_reps 3 > $O/ncu-half.txt 2>&1
   echo "== sanitizer $(el)"
   san memcheck gpu_esdg_line_N3; san racecheck gpu_esdg_line_N3; san memcheck gpu_esdg_line_pert_bubble
   echo "== done $(el)") > $O/pipe.log 2>&1
fi
cat $O/pipe.log; cat $O/sanitizer-summary.txt 2>/dev/null; grep -hE "tests passed|\(Failed\)|\*\*\*Failed|Timeout" $O/ctest*.log
tail -n 3 $O/bubble-*.txt 2>/dev/null
python3 - $O/bench.jsonl $O/bench-lineprod.jsonl <<'PY'
import sys, json, os
for l in sum([open(f).readlines() for f in sys.argv[1:] if os.path.exists(f)], []):
    if not l.startswith("{"): continue
    r = json.loads(l)
    print(r["tag"], r["N"], r["precision"], "half", r.get("volume_half_ms"), r.get("volume_half_pct_peak"), "line", r.get("volume_line_ms"), r.get("volume_line_pct_peak"), "lift", r.get("volume_lift_ms"), "rhs", r["rhs_ms"])
PY
grep -E "Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc|stall|Stall" $O/ncu-*.txt 2>/dev/null | head -40
finish resP$MODE
