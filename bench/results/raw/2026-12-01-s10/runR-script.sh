#!/bin/bash
# device call R (1 x H200), session 10. P=.deps/packD (double); MODE picks the work.
# MODE=1 (double): the P1 GPU tests (the new reduce variant affine_shared among them); the P1 assembly at 0.56 M
#   tets (affine_xyz, affine_shared, affine; COO; bs 1 and 3) and at 21.1 M tets (affine_xyz, affine_shared; no
#   COO: its pattern set-up alone takes ~43 s there); ncu SpeedOfLight + memory workload of both kernels at 0.56 M
#   (boost clocks); compute-sanitizer memcheck and racecheck of the affine_shared test.
# MODE=2 (double): the P1 GPU tests (gpu_p1_morton_np2 new); the P1 assembly with -bench_element_order morton against
#   natural in the same call, at 0.56 M tets (affine_shared, affine_xyz; COO; bs 1 and 3) and 21.1 M (affine_shared,
#   affine_xyz; no COO); ncu of affine_shared with the Morton order at 0.56 M.
# MODE=3 (double, the session's last library code): all GPU tests; the P1 assembly at 0.56 M (affine_shared with its
#   block-local vertices loaded first, affine_xyz; COO); ncu of affine_shared at 0.56 M with the warp-state, scheduler
#   and memory tables (where its time goes, for the next step); compute-sanitizer memcheck of gpu_hb_np1 (the fused hbcg launchers) and of the affine_shared test.
# MODE=4 (single, P=.deps/packS): all GPU tests; the P1 assembly at 0.56 M (affine_shared, affine_xyz; COO).
# MODE=5 (double, hipBone; its v6-80 part failed in resR5: the pack's path was relative; MODE=6 is its v6 part again): v6's layer sweep at N = 3..6 with its register cap as built (128 per thread, 2 blocks per
#   SM at Nq >= 4) and with 80 (3 blocks; P/libsquall-v6r80.so.xz: src/cuda/hbop.cu built with -DHB_V6_REGS_TRY=80,
#   ptxas: 8-24 bytes of spill at Nq = 4-6, 180 at Nq = 7), and the defaults (v4's 2D kernel there) for reference.
# MODE=7 (double): the P1 GPU tests with the reduce map's entries in two length classes (long first); the P1 assembly
#   at 0.56 M and 21.1 M tets with this library and, in the same call, with a961075's (P/libsquall-a961075.so.xz:
#   the map in position order only) through LD_LIBRARY_PATH (the bench's RUNPATH comes after it).
# MODE=8 (double, the final library code: per-block-size reduce maps, scalar with the length classes, 3x3 blocks in
#   position order): the P1 GPU tests; the P1 assembly at 0.56 M (affine_shared, affine_xyz, COO; bs 1 and 3) twice and
#   at 21.1 M tets.
# MODE=9 (single, P=.deps/packS, the final library code): the P1 GPU tests; the P1 assembly at 0.56 M tets.
# MODE=10 (double, after the review mend of the staging code, 96c6384): the P1 GPU tests, memcheck of the
#   affine_shared test, the P1 assembly at 0.56 M tets.
MODE=${MODE:-1}; O=/tmp/resR$MODE
. "$P/device-prologue.sh"
if [ $MODE = 1 ]; then
  (dbl; timeout 150 ctest -L gpu -R "p1" --timeout 100 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   echo "== p1 0.56M $(el)"
   timeout 80 ./bench/p1_assembly -bench_cells 46,46,44 -bench_coo_max_mtets 1 -bench_gather_max_mtets 0 -bench_reduce_variants affine_xyz,affine_shared,affine -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_json $O/p1.jsonl > $O/p1.out 2> $O/p1.err
   echo "== p1 21.1M $(el)"
   timeout 150 ./bench/p1_assembly -bench_cells 154,154,148 -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_xyz,affine_shared -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_bs3_max_mtets 0 -bench_json $O/p1-large.jsonl > $O/p1-large.out 2> $O/p1-large.err
   echo "== ncu p1 $(el)"
   timeout 90 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy -k regex:P1AssembleReduce ./bench/p1_assembly -bench_cells 46,46,44 -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_xyz,affine_shared -bench_host_repeats 1 -bench_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_bs3_max_mtets 0 > $O/ncu-p1.txt 2>&1
   echo "== sanitizer $(el)"
   san memcheck gpu_p1_reduce_affine_shared_np1; san racecheck gpu_p1_reduce_affine_shared_np1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 2 ]; then
  (dbl; timeout 150 ctest -L gpu -R "p1" --timeout 100 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   for o in morton natural; do
     echo "== p1 0.56M $o $(el)"
     timeout 80 ./bench/p1_assembly -bench_cells 46,46,44 -bench_element_order $o -bench_coo_max_mtets 1 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared,affine_xyz -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_json $O/p1-$o.jsonl > $O/p1-$o.out 2> $O/p1-$o.err
   done
   for o in morton natural; do
     echo "== p1 21.1M $o $(el)"
     timeout 120 ./bench/p1_assembly -bench_cells 154,154,148 -bench_element_order $o -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared,affine_xyz -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_bs3_max_mtets 0 -bench_json $O/p1-large-$o.jsonl > $O/p1-large-$o.out 2> $O/p1-large-$o.err
   done
   echo "== ncu p1 $(el)"
   timeout 90 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy -k regex:P1AssembleReduce ./bench/p1_assembly -bench_cells 46,46,44 -bench_element_order morton -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared -bench_host_repeats 1 -bench_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_bs3_max_mtets 0 > $O/ncu-p1.txt 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 3 ] || [ $MODE = 4 ]; then
  (if [ $MODE = 3 ]; then dbl; else sgl; fi
   timeout 200 ctest -L gpu --timeout 150 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   timeout 80 ./bench/p1_assembly -bench_cells 46,46,44 -bench_coo_max_mtets 1 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared,affine_xyz -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_json $O/p1.jsonl > $O/p1.out 2> $O/p1.err
   echo "== p1 done $(el)"
   if [ $MODE = 3 ]; then
     timeout 90 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section InstructionStats -k regex:P1AssembleReduce ./bench/p1_assembly -bench_cells 46,46,44 -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared -bench_host_repeats 1 -bench_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_bs3_max_mtets 0 > $O/ncu-p1.txt 2>&1
     echo "== ncu done $(el)"
     san memcheck gpu_hb_np1; san memcheck gpu_p1_reduce_affine_shared_np1
   fi
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 7 ]; then
  PA=$(readlink -f "$P")
  mkdir -p /tmp/oldlib && xz -dc "$PA/libsquall-a961075.so.xz" > /tmp/oldlib/libsquall.so.0 && ln -sf libsquall.so.0 /tmp/oldlib/libsquall.so
  (dbl; timeout 150 ctest -L gpu -R "p1" --timeout 100 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   p1s() { timeout 60 ./bench/p1_assembly -bench_cells 46,46,44 -bench_coo_max_mtets 1 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared,affine_xyz,staged -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 "$@"; }
   p1l() { timeout 100 ./bench/p1_assembly -bench_cells 154,154,148 -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_bs3_max_mtets 0 "$@"; }
   for r in 1 2; do
     echo "== p1 0.56M classes run $r $(el)"; p1s -bench_json $O/p1-classes-r$r.jsonl > $O/p1-classes-r$r.out 2>&1
     echo "== p1 0.56M position order (a961075) run $r $(el)"; LD_LIBRARY_PATH=/tmp/oldlib:$LD_LIBRARY_PATH p1s -bench_json $O/p1-position-r$r.jsonl > $O/p1-position-r$r.out 2>&1
   done
   echo "== p1 21.1M classes $(el)"; p1l -bench_json $O/p1-large-classes.jsonl > $O/p1-large-classes.out 2>&1
   echo "== p1 21.1M position order $(el)"; LD_LIBRARY_PATH=/tmp/oldlib:$LD_LIBRARY_PATH p1l -bench_json $O/p1-large-position.jsonl > $O/p1-large-position.out 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 8 ] || [ $MODE = 9 ]; then
  (if [ $MODE = 8 ]; then dbl; else sgl; fi; timeout 150 ctest -L gpu -R "p1" --timeout 100 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   for r in 1 2; do
     echo "== p1 0.56M run $r $(el)"
     timeout 60 ./bench/p1_assembly -bench_cells 46,46,44 -bench_coo_max_mtets 1 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared,affine_xyz -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_json $O/p1-r$r.jsonl > $O/p1-r$r.out 2>&1
   done
   [ $MODE = 8 ] && echo "== p1 21.1M $(el)" && timeout 100 ./bench/p1_assembly -bench_cells 154,154,148 -bench_coo_max_mtets 0 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared,affine_xyz -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_bs3_max_mtets 0 -bench_json $O/p1-large.jsonl > $O/p1-large.out 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 10 ]; then
  (dbl; timeout 150 ctest -L gpu -R "p1" --timeout 100 -j6 --output-on-failure > $O/ctest.log 2>&1
   echo "== tests done $(el)"
   san memcheck gpu_p1_reduce_affine_shared_np1
   timeout 60 ./bench/p1_assembly -bench_cells 46,46,44 -bench_coo_max_mtets 1 -bench_gather_max_mtets 0 -bench_reduce_variants affine_shared,affine_xyz -bench_host_repeats 1 -bench_host_max_mtets 0 -bench_order_max_mtets 0 -bench_json $O/p1-r1.jsonl > $O/p1-r1.out 2>&1
   echo "== done $(el)") > $O/pipe.log 2>&1
elif [ $MODE = 5 ] || [ $MODE = 6 ]; then
  PA=$(readlink -f "$P") # dbl leaves the checkout for the build folder
  (dbl
   hb() { timeout 60 ./bench/hb_bench -hb_vec_type cuda -orders 3,4,5,6 -dofs 2e7 -reps 50 -cg_iterations 0 "$@"; }
   for r in 1 2; do
     [ $MODE = 5 ] && { echo "== hb default run $r $(el)"; hb -tag default_r$r >> $O/hb.jsonl 2>> $O/hb.err; }
     echo "== hb v6 regs128 run $r $(el)"; hb -kernel_variants v6 -hb_kernel_switch 10 -tag v6_regs128_r$r >> $O/hb.jsonl 2>> $O/hb.err
   done
   cp src/libsquall.so.0.1.0 /tmp/libsquall-orig.so && xz -dc "$PA/libsquall-v6r80.so.xz" > /tmp/libsquall-v6r80.so && cp /tmp/libsquall-v6r80.so src/libsquall.so.0.1.0
   for r in 1 2; do
     echo "== hb v6 regs80 run $r $(el)"; hb -kernel_variants v6 -hb_kernel_switch 10 -tag v6_regs80_r$r >> $O/hb.jsonl 2>> $O/hb.err
   done
   cp /tmp/libsquall-orig.so src/libsquall.so.0.1.0
   echo "== done $(el)") > $O/pipe.log 2>&1
  python3 - $O/hb.jsonl <<'PY'
import sys, json
for l in open(sys.argv[1]):
    if not l.startswith("{"): continue
    r = json.loads(l)
    if r.get("bench") == "hb_operator": print(r["tag"], r["N"], r["kernel"], r.get("v3_layers"), "t_kernel", r["t_kernel"], "GF", r["kernel_gflops"], "stream", r["stream_gbs"], "roofline", r["roofline_fraction"])
PY
fi
cat $O/pipe.log; cat $O/sanitizer-summary.txt 2>/dev/null; grep -hE "tests passed|\(Failed\)|\*\*\*Failed|Timeout" $O/ctest*.log
grep -hE '"(setup|reduce_map|gpu_reduce_affine_xyz|gpu_reduce_affine_shared|gpu_reduce_affine|gpu_coo|speedup_reduce_variant)"' $O/p1*.jsonl | cut -c1-260
grep -E "Duration|P1Assemble|L1/TEX Cache|DRAM Through|Achieved Occ|Registers" $O/ncu-p1.txt | head -40
finish resR$MODE
